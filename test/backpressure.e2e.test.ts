// When commits stall (another writer holds the lock), accepted-but-uncommitted records stay
// within the queue limit: new requests get 503 with Retry-After, and the ones already accepted
// are answered 201 once the lock is released, with their records stored.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets, holdRecordLogLock } from './helpers/databases.js';
import { startServer } from './helpers/server.js';
import { appRecord, ndjson } from './helpers/factories.js';
import { streamRecords } from '../src/telemetry/telemetry-service.js';
import { findTenantByCodeName } from '../src/identity/tenant-store.js';

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
        for (let i = 0; i < 100 && server.sightline.queue.pendingBytes === 0; i++) await new Promise((r) => setTimeout(r, 20));
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
        for await (const record of streamRecords(opened, tenant!.id, {})) markers.add(record.record.marker);
        for (const record of stuckRecords) assert.ok(markers.has(record.marker));
        assert.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);
      } finally {
        await server.close();
        await database.cleanup();
      }
    });
  });
}
