// A real forwarder against the real collector: syslog-ng tails a file of application JSON
// lines and ships them with its http() destination, batched as newline-delimited JSON, the
// way the collector documentation asks forwarders to. Every line must arrive as a record: with
// a hand-written configuration, and with the one the web UI hands out (Settings › Collector),
// pointed at the test server's collector. (The other forwarders are not packaged here.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { databaseTargets } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { appRecord, ndjson } from '../helpers/factories.js';
import { findTenantByCodeName } from '../../src/identity/tenants/tenant-store.js';
import { syslogNgConfig } from '../../src/collector/forwarders/forwarder-configs.js';
import { startSyslogNg, syslogNgAvailable } from '../helpers/syslog-ng.js';
import { telemetryReader } from '../helpers/storage-ports.js';
import { readStored } from '../helpers/telemetry.js';

const available = syslogNgAvailable('the real-forwarder tests');
const skip = !available && 'syslog-ng not installed';

/**
 * Runs syslog-ng with `config` (a configuration body; the version line is added) against a fresh
 * server, writes `records` as the application log it reads, and waits until the demo tenant
 * (the default collector tenant) holds as many records as were written or `attempts` polls
 * 200 ms apart have passed. Returns the stored records by marker and the server, still running.
 */
async function forward(
  records: Record<string, unknown>[],
  config: (paths: { dir: string; logs: string; server: TestServer }) => string,
  attempts: number,
  check: (stored: Map<unknown, Record<string, unknown>>, server: TestServer) => void | Promise<void>,
): Promise<void> {
  const database = await databaseTargets[0]!.create();
  const server = await startServer(database);
  const dir = database.dataDir;
  const logs = path.join(dir, 'logs');
  fs.mkdirSync(logs);
  fs.writeFileSync(path.join(logs, 'app.log'), ndjson(records));
  const forwarder = startSyslogNg(config({ dir, logs, server }), path.join(dir, 'syslog-ng'));
  const exited = new Promise((resolve) => forwarder.process.once('exit', resolve));
  try {
    const tenant = await findTenantByCodeName(server.sightline.database.db, 'demo');
    let stored = new Map<unknown, Record<string, unknown>>();
    for (
      let attempt = 0;
      attempt < attempts && stored.size < records.length && forwarder.process.exitCode === null;
      attempt++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      stored = new Map();
      for (const record of await readStored(telemetryReader(server.sightline.database), tenant!.id))
        stored.set(record.record.marker, record.record);
    }
    assert.equal(
      stored.size,
      records.length,
      `all lines arrived (syslog-ng said: ${forwarder.stderr().slice(0, 500)})`,
    );
    await check(stored, server);
  } finally {
    forwarder.process.kill('SIGTERM');
    await exited;
    await server.close();
    await database.cleanup();
  }
}

test('syslog-ng http() destination ships NDJSON batches that are all stored', { skip, timeout: 60_000 }, async () => {
  const records = Array.from({ length: 250 }, () => appRecord());
  const config = ({
    logs,
    server,
  }: {
    logs: string;
    server: TestServer;
  }) => `source s_app { file("${path.join(logs, 'app.log')}" flags(no-parse) follow-freq(0.2)); };
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
`;
  await forward(records, config, 100, async (stored, server) => {
    for (const record of records) assert.ok(stored.has(record.marker));
    const metrics = await server.metrics();
    const requests = Number(
      /sightline_http_requests_total\{route="\/log_sink",status="201"\} (\d+)/.exec(metrics)?.[1],
    );
    assert.ok(
      requests >= 3 && requests < records.length,
      `sent in batches (${requests} requests for ${records.length} records)`,
    );
  });
});

test("the UI's syslog-ng configuration delivers every line", { skip, timeout: 60_000 }, async () => {
  const records = Array.from({ length: 120 }, () => appRecord());
  // The collector address as GET /v1/tenant gives it for this server: demo-collector.localhost.
  // Its state (disk buffer) in the test's directory, never the machine's /var/lib/syslog-ng.
  const config = ({ dir, logs, server }: { dir: string; logs: string; server: TestServer }) =>
    syslogNgConfig(`http://demo-collector.localhost:${new URL(server.baseUrl).port}`, `${logs}/*.log`, dir).files[0]!
      .text;
  // batch-timeout is the recommended 5 s flush interval: allow for a few of them.
  await forward(records, config, 150, (stored) => {
    for (const record of records)
      assert.deepEqual(stored.get(record.marker), record, 'each record is the application object, unchanged');
  });
});
