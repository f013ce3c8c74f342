// A full disk, for real: the embedded database lives on a small tmpfs that ingestion fills.
// The collector must say what is wrong (503 storage_unavailable naming the full disk, with a
// Retry-After that does not hammer it), /readyz must name the record writer and the fault, and
// once space is freed ingestion must resume with every acknowledged record stored. Mounting
// needs root, which CI has; elsewhere the test says loudly that it did not run.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tempDir, type TestDatabase } from '../helpers/databases.js';
import { startServer } from '../helpers/server.js';
import { appRecord, ndjson } from '../helpers/factories.js';

function mountTmpfs(dir: string, size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const probe = tempDir('sightline-full-probe-');
const cannotMount = mountTmpfs(probe, '1m');
if (cannotMount === undefined) execFileSync('umount', [probe]);
fs.rmSync(probe, { recursive: true, force: true });
if (cannotMount !== undefined) {
  const message = `cannot mount a tmpfs here (${cannotMount.split('\n')[0] ?? ''}): the full-disk test is NOT run`;
  if (process.env.CI) throw new Error(`${message}. CI runs as root and must run it.`);
  console.warn(`\n*** WARNING: ${message} ***\n`);
}

interface Readiness {
  checks: { record_writer: string; storage: string };
  reasons: string[];
}

describe('a full disk under the embedded database', { skip: cannotMount !== undefined && cannotMount }, () => {
  test('is reported as what it is, and ingestion resumes with nothing acknowledged lost once space is freed', async () => {
    const mountPoint = tempDir('sightline-full-');
    assert.equal(mountTmpfs(mountPoint, '16m'), undefined);
    const database: TestDatabase = {
      kind: 'sqlite',
      dataDir: mountPoint,
      databaseUrl: '',
      cleanup: () => Promise.resolve(),
    };
    const server = await startServer(database, { logLevel: 'info' });
    try {
      const body = ndjson(Array.from({ length: 200 }, () => appRecord({ padding: 'f'.repeat(900) })));
      let acknowledged = 0;
      let refused: Response | undefined;
      for (let i = 0; i < 400 && !refused; i++) {
        const response = await server.post(body, { 'content-type': 'application/x-ndjson' });
        if (response.status === 201) acknowledged += ((await response.json()) as { accepted: number }).accepted;
        else refused = response;
      }
      assert.ok(refused, 'the tmpfs never filled up');
      assert.ok(acknowledged > 0);
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '30');
      const problem = (await refused.json()) as { code: string; detail: string; fault: string };
      assert.equal(problem.code, 'storage_unavailable');
      assert.equal(problem.fault, 'disk_full');
      assert.match(problem.detail, /the disk holding the database is full/);

      const ready = await fetch(`${server.baseUrl}/readyz`);
      assert.equal(ready.status, 503);
      const readiness = (await ready.json()) as Readiness;
      assert.equal(readiness.checks.record_writer, 'disk_full');
      assert.equal(readiness.checks.storage, 'disk_full');
      assert.ok(readiness.reasons.includes('record_writer: the disk holding the database is full'));

      // Space is freed: the next request goes through and readiness returns.
      execFileSync('mount', ['-o', 'remount,size=128m', mountPoint]);
      let resumed: Response | undefined;
      for (let i = 0; i < 50; i++) {
        resumed = await server.post(body, { 'content-type': 'application/x-ndjson' });
        if (resumed.status === 201) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(resumed?.status, 201);
      acknowledged += ((await resumed.json()) as { accepted: number }).accepted;
      const after = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as Readiness;
      assert.equal(after.checks.record_writer, 'ok');

      const stored = await server.sightline.database.db
        .selectFrom('telemetry_records')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(stored.n, acknowledged, 'every acknowledged record is stored, and nothing else');
    } finally {
      await server.close();
      execFileSync('umount', [mountPoint]);
      fs.rmSync(mountPoint, { recursive: true, force: true });
    }
  });
});
