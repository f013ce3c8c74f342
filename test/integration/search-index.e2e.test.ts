// The search index follows the log; a text search first catches it up, so a record in the log
// is findable even when no indexer has run since it was written (read-your-writes).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { appRecord } from '../helpers/factories.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';

import { searchIndexLag } from '../../src/telemetry/telemetry-store.js';
import { telemetryReader } from '../helpers/storage-ports.js';
import { matchText, readStored } from '../helpers/telemetry.js';
import { waitFor } from '../helpers/summaries.js';
import { PostgresSearchIndexLoop } from '../../src/storage/postgres/search-indexer.js';
import type { Database } from '../../src/storage/database.js';

for (const target of databaseTargets) {
  describe(`search index on ${target.kind}`, { skip: target.skip }, () => {
    test('a text search indexes what the log holds first, then finds it, scoped to the tenant', async () => {
      const testDatabase = await target.create();
      const database = await openDatabase(testDatabase);
      try {
        await migrateToLatest(database);
        const acme = await createTenant(database.db, { codeName: 'acme' });
        const globex = await createTenant(database.db, { codeName: 'globex' });
        const word = `zebra${Date.now()}`;
        const rows = [acme, globex, acme].map((tenant, i) => ({
          tenant_id: tenant.id,
          received_at: Date.now(),
          event_time: Date.now(),
          record: JSON.stringify(appRecord({ message: `${word} number ${i}` })),
          meta: null,
        }));
        // Written straight to the log, as a writer would: no indexer has run.
        await database.db.insertInto('telemetry_records').values(rows).execute();
        assert.equal(await searchIndexLag(database.db), 3);

        const found = await readStored(telemetryReader(database), acme.id, matchText(word));
        assert.deepEqual(
          found.map((r) => r.record.message),
          [`${word} number 0`, `${word} number 2`],
        );
        assert.equal(await searchIndexLag(database.db), 0);

        // Indexing again changes nothing: each record is indexed once.
        const again = await readStored(telemetryReader(database), globex.id, matchText(`${word} number`));
        assert.deepEqual(
          again.map((r) => r.record.message),
          [`${word} number 1`],
        );
      } finally {
        await database.close();
        await testDatabase.cleanup();
      }
    });

    test('a record the full-text engine cannot take whole does not stop the index for anyone', async () => {
      const testDatabase = await target.create();
      const database = await openDatabase(testDatabase);
      try {
        await migrateToLatest(database);
        const tenant = await createTenant(database.db, { codeName: 'acme' });
        // ~600 KB of hyphenated words: more than a PostgreSQL tsvector can hold.
        const huge = appRecord({ message: Array.from({ length: 60_000 }, (_, i) => `w${i}-x${i}`).join(' ') });
        const word = `okapi${Date.now()}`;
        const rows = [huge, appRecord({ message: word })].map((record) => ({
          tenant_id: tenant.id,
          received_at: Date.now(),
          event_time: Date.now(),
          record: JSON.stringify(record),
          meta: null,
        }));
        await database.db.insertInto('telemetry_records').values(rows).execute();
        const found = await readStored(telemetryReader(database), tenant.id, matchText(word));
        assert.deepEqual(
          found.map((r) => r.record.message),
          [word],
        );
        assert.equal(await searchIndexLag(database.db), 0);
      } finally {
        await database.close();
        await testDatabase.cleanup();
      }
    });
  });
}

/** `count` records of one tenant, written straight to the log. */
async function writeRecords(database: Database, tenantId: number, count: number): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => ({
    tenant_id: tenantId,
    received_at: Date.now(),
    event_time: Date.now(),
    record: JSON.stringify(appRecord({ message: `record ${i}` })),
    meta: null,
  }));
  for (let i = 0; i < rows.length; i += 1_000)
    await database.db
      .insertInto('telemetry_records')
      .values(rows.slice(i, i + 1_000))
      .execute();
}

const postgres = databaseTargets.find((target) => target.kind === 'postgres');
describe('the PostgreSQL search index loop', { skip: postgres?.skip ?? 'no PostgreSQL target' }, () => {
  test('follows the log from start and after a commit, through a burst of commits, and stops', async () => {
    const testDatabase = await postgres!.create();
    const database = await openDatabase(testDatabase);
    const errors: unknown[] = [];
    const loop = new PostgresSearchIndexLoop(database.db, (error) => errors.push(error));
    let committing: NodeJS.Timeout | undefined;
    try {
      await migrateToLatest(database);
      const tenant = await createTenant(database.db, { codeName: 'acme' });
      await writeRecords(database, tenant.id, 3);
      loop.start();
      await waitFor('the records there at start indexed', async () => (await searchIndexLag(database.db)) === 0);
      await writeRecords(database, tenant.id, 2);
      loop.poke();
      await waitFor('the committed records indexed', async () => (await searchIndexLag(database.db)) === 0);
      // More than one chunk while commits keep coming: the loop rests between chunks, and the
      // commits neither cut its rests short nor keep it from finishing.
      await writeRecords(database, tenant.id, 6_000);
      committing = setInterval(() => loop.poke(), 20);
      await waitFor('a burst indexed', async () => (await searchIndexLag(database.db)) === 0);
      const stopping = performance.now();
      await loop.stop();
      assert.ok(performance.now() - stopping < 1_000, 'stop ended the rest (or waited for one short chunk)');
      assert.deepEqual(errors, []);
    } finally {
      clearInterval(committing);
      await loop.stop();
      await database.close();
      await testDatabase.cleanup();
    }
  });
});
