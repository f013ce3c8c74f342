// When commits stall (another writer holds the lock), accepted-but-uncommitted records stay
// within the queue limit: new requests get 503 with Retry-After, and the ones already accepted
// are answered 201 once the lock is released, with their records stored.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { databaseTargets, holdRecordLogLock } from '../helpers/databases.js';
import { startServer } from '../helpers/server.js';
import { appRecord, ndjson } from '../helpers/factories.js';
import { findTenantByCodeName } from '../../src/identity/tenants/tenant-store.js';
import { telemetryReader } from '../helpers/storage-ports.js';
import { readStored } from '../helpers/telemetry.js';

test('bodies being read count against the in-flight budget: past it new requests get 503, the held one completes', async () => {
  const database = await databaseTargets[0]!.create();
  const server = await startServer(database, { maxInflightBytes: '2KiB' });
  try {
    const records = Array.from({ length: 8 }, () => appRecord({ padding: 'q'.repeat(150) }));
    const body = Buffer.from(ndjson(records));
    const half = Math.floor(body.length / 2);
    const { port } = new URL(server.baseUrl);
    // A slow sender: half of its body now, the rest later.
    let answer: (status: number) => void;
    const slowStatus = new Promise<number>((resolve) => (answer = resolve));
    const slow = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/log_sink',
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'content-length': body.length },
      },
      (response) => {
        response.resume();
        answer(response.statusCode ?? 0);
      },
    );
    slow.write(body.subarray(0, half));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const refused = await server.post(body, { 'content-type': 'application/x-ndjson' });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '1');

    slow.end(body.subarray(half));
    assert.equal(await slowStatus, 201);
    // The budget is released with the response: the same body now goes through.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await server.post(body, { 'content-type': 'application/x-ndjson' })).status, 201);
  } finally {
    await server.close();
    await database.cleanup();
  }
});

for (const target of databaseTargets) {
  describe(`back-pressure on ${target.kind}`, { skip: target.skip }, () => {
    test('a stalled record log answers 503 + Retry-After past the queue limit and loses nothing accepted', async () => {
      const database = await target.create();
      const server = await startServer(database, { maxQueueBytes: '4KiB' });
      try {
        const release = await holdRecordLogLock(database);
        const stuckRecords = Array.from({ length: 20 }, () => appRecord({ padding: 'p'.repeat(200) }));
        const stuck = server.post(ndjson(stuckRecords), { 'content-type': 'application/x-ndjson' });
        // Wait until the stalled batch is counted in the queue.
        for (let i = 0; i < 100 && server.sightline.queue.pendingBytes === 0; i++)
          await new Promise((r) => setTimeout(r, 20));
        assert.ok(server.sightline.queue.pendingBytes > 4096, 'the stalled batch fills the queue');

        const refused = await server.post(JSON.stringify(appRecord()));
        assert.equal(refused.status, 503);
        assert.equal(refused.headers.get('retry-after'), '1');
        assert.equal(((await refused.json()) as { code: string }).code, 'overloaded');
        const ready = await fetch(`${server.baseUrl}/readyz`);
        assert.equal(ready.status, 503);
        assert.equal(((await ready.json()) as { checks: { write_queue: string } }).checks.write_queue, 'full');

        await release();
        const response = await stuck;
        assert.equal(response.status, 201);
        const { database: opened } = server.sightline;
        const tenant = await findTenantByCodeName(opened.db, 'demo');
        const markers = new Set<unknown>();
        for (const record of await readStored(telemetryReader(opened), tenant!.id)) markers.add(record.record.marker);
        for (const record of stuckRecords) assert.ok(markers.has(record.marker));
        assert.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);
      } finally {
        await server.close();
        await database.cleanup();
      }
    });
  });
}
