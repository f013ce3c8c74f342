// A real forwarder against the real collector: syslog-ng tails a file of application JSON
// lines and ships them with its http() destination, batched as newline-delimited JSON, the
// way the collector documentation asks forwarders to. Every line must arrive as a record.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { databaseTargets } from './helpers/databases.js';
import { startServer } from './helpers/server.js';
import { appRecord, ndjson } from './helpers/factories.js';
import { findTenantByCodeName } from '../src/identity/tenant-store.js';
import { streamRecords } from '../src/telemetry/telemetry-service.js';

const available = spawnSync('syslog-ng', ['--version'], { stdio: 'ignore' }).status === 0;
if (!available) {
  const message = 'syslog-ng is not installed: the real-forwarder test is NOT running (apt-get install syslog-ng-core syslog-ng-mod-http; .ci/run does)';
  if (process.env.CI) throw new Error(message);
  console.warn(`\n*** WARNING: ${message} ***\n`);
}

test('syslog-ng http() destination ships NDJSON batches that are all stored', { skip: !available && 'syslog-ng not installed', timeout: 60_000 }, async () => {
  const database = await databaseTargets[0]!.create();
  const server = await startServer(database);
  const dir = database.dataDir;
  const input = path.join(dir, 'app.log');
  const records = Array.from({ length: 250 }, () => appRecord());
  fs.writeFileSync(input, ndjson(records));
  fs.writeFileSync(
    path.join(dir, 'syslog-ng.conf'),
    `@version: 3.38
options { stats-freq(0); };
source s_app { file("${input}" flags(no-parse) follow-freq(0.2)); };
destination d_sightline {
  http(
    url("${server.baseUrl}/log_sink")
    method("POST")
    headers("Content-Type: application/x-ndjson")
    body("\${MESSAGE}")
    body-suffix("\\n")
    batch-lines(100)
    batch-timeout(200)
  );
};
log { source(s_app); destination(d_sightline); };
`,
  );
  const forwarder = spawn(
    'syslog-ng',
    ['-F', '-f', path.join(dir, 'syslog-ng.conf'), '-R', path.join(dir, 'persist'), '-p', path.join(dir, 'pid'), '-c', path.join(dir, 'ctl'), '--no-caps'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let forwarderErrors = '';
  forwarder.stderr.on('data', (chunk: Buffer) => (forwarderErrors += chunk.toString()));
  const exited = new Promise((resolve) => forwarder.once('exit', resolve));
  try {
    const tenant = await findTenantByCodeName(server.sightline.database.db, 'demo');
    const expected = new Set(records.map((record) => record.marker));
    let stored = new Set<unknown>();
    for (let attempt = 0; attempt < 100 && stored.size < expected.size && forwarder.exitCode === null; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      stored = new Set<unknown>();
      for await (const record of streamRecords(server.sightline.database, tenant!.id, {})) stored.add(record.record.marker);
    }
    assert.equal(stored.size, expected.size, `all lines arrived (syslog-ng said: ${forwarderErrors.slice(0, 500)})`);
    for (const marker of expected) assert.ok(stored.has(marker));
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const requests = Number(/sightline_http_requests_total\{route="\/log_sink",status="201"\} (\d+)/.exec(metrics)?.[1]);
    assert.ok(requests >= 3 && requests < records.length, `sent in batches (${requests} requests for ${records.length} records)`);
  } finally {
    forwarder.kill('SIGTERM');
    await exited;
    await server.close();
    await database.cleanup();
  }
});
