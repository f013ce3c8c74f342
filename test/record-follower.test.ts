// The detection follower on both databases: its reads, and on PostgreSQL the case it exists
// for (a record whose transaction commits after a later-numbered record's must still be read,
// in order, never skipped); and its commits (a record that could not be evaluated is kept in
// detection_failures; a commit from a stale position is refused rather than applied twice).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { schemaClient } from './helpers/postgres.js';
import { openDatabase, type Database } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { createTenant } from '../src/identity/tenant-service.js';
import { SqlRecordLogReader } from '../src/record-log/record-follower.js';
import { CursorMoved, type LogPosition } from '../src/record-log/record-log.js';
import { DETECTION_CURSOR } from '../src/detection/detection-loop.js';
import { detectionCommitter, type CaseUpkeep } from '../src/app/detection-commit.js';
import { loadAttackCatalogue } from '../src/detection/attack.js';
import { DEFAULT_GROUPING } from '../src/cases/case-grouping.js';
import { MmdbGeoIp } from '../src/devices/geoip.js';
import type { DatabaseKind } from '../src/storage/database.js';

import { databaseTargets, type TestDatabase } from './helpers/databases.js';

function upkeep(kind: DatabaseKind): CaseUpkeep {
  return { kind, policy: DEFAULT_GROUPING, catalogue: loadAttackCatalogue(), geo: MmdbGeoIp.bundled() };
}

/** The marker of a record these tests wrote (its JSON text is `{"marker": …}`). */
const markerOf = (read: { record: string }) => (JSON.parse(read.record) as { marker: string }).marker;

for (const target of databaseTargets) {
  describe(`record follower on ${target.kind}`, { skip: target.skip }, () => {
    let testDb: TestDatabase;
    let database: Database;
    let tenantId: number;

    before(async () => {
      testDb = await target.create();
      database = await openDatabase(testDb);
      await migrateToLatest(database);
      tenantId = (await createTenant(database.db, { codeName: 'acme', name: 'Acme' })).id;
    });
    after(async () => {
      await database.close();
      await testDb.cleanup();
    });

    const log = () => new SqlRecordLogReader(database.db, database.kind);

    async function insert(marker: string): Promise<void> {
      await database.db
        .insertInto('telemetry_records')
        .values({
          tenant_id: tenantId,
          received_at: Date.now(),
          event_time: Date.now(),
          record: JSON.stringify({ marker }),
          meta: null,
        })
        .execute();
    }

    test('reads in order after a position, in chunks, and reports the lag', async () => {
      for (const marker of ['a', 'b', 'c']) await insert(marker);
      const start = await log().position(DETECTION_CURSOR);
      assert.equal(await log().lag(DETECTION_CURSOR), 3);
      const first = await log().read(start, 2);
      assert.deepEqual(
        first.map((record) => markerOf(record)),
        ['a', 'b'],
      );
      const last = first.at(-1)!;
      const rest = await log().read({ seq: last.seq, txId: last.txId }, 10);
      assert.deepEqual(
        rest.map((record) => markerOf(record)),
        ['c'],
      );
      assert.equal(rest[0]!.tenantId, tenantId);
    });

    // SQLite assigns sequences under its single write lock, so sequence order is commit order there.
    if (target.kind === 'postgres')
      test('a record committed late is never skipped (sequence values are taken before commit)', async () => {
        let position: LogPosition = await log().position(DETECTION_CURSOR);
        // Catch up with what earlier tests wrote.
        for (const record of await log().read(position, 100)) position = { seq: record.seq, txId: record.txId };

        const slow = await schemaClient(testDb.databaseUrl);
        try {
          await slow.query('BEGIN');
          const held = await slow.query<{ seq: string }>(
            `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record) VALUES ($1, 0, 0, '{"marker":"late"}') RETURNING seq`,
            [tenantId],
          );
          await insert('early'); // a higher sequence, committed first
          const whileOpen = await log().read(position, 100);
          assert.deepEqual(whileOpen, [], 'nothing is read past a transaction that may still commit an earlier record');
          assert.equal((await log().lag(DETECTION_CURSOR)) >= 1, true);

          await slow.query('COMMIT');
          const after = await log().read(position, 100);
          assert.deepEqual(
            after.map((record) => markerOf(record)),
            ['late', 'early'],
          );
          assert.equal(after[0]!.seq, Number(held.rows[0]!.seq));
          assert.ok(after[0]!.seq < after[1]!.seq, 'the late record has the lower sequence');
        } finally {
          await slow.end();
        }
      });

    test('a failed record is kept with its error, the cursor moves past it, and a stale commit is refused', async () => {
      for (const marker of ['ok', 'broken']) {
        await database.db
          .insertInto('telemetry_records')
          .values({
            tenant_id: tenantId,
            received_at: Date.now(),
            event_time: Date.now(),
            record: JSON.stringify({ marker }),
            meta: null,
          })
          .execute();
      }
      const commit = detectionCommitter(database.db, log(), upkeep(database.kind));
      const from = await log().position(DETECTION_CURSOR);
      // Earlier tests left records behind the cursor too: this chunk is all of them, ending in ours.
      // On PostgreSQL the log shows a record once every transaction older than its own has ended,
      // across the whole server (other suites' schemas included): wait until ours are readable.
      let records = await log().read(from, 1_000);
      for (let i = 0; i < 300 && markerOf(records.at(-1)!) !== 'broken'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        records = await log().read(from, 1_000);
      }
      const [first, broken] = records.slice(-2) as [(typeof records)[number], (typeof records)[number]];
      assert.equal(markerOf(broken), 'broken');
      const output = {
        processRows: [],
        networkRows: [],
        observations: [],
        sightings: [],
        logsources: [],
        failures: [{ seq: broken.seq, tenantId, error: new TypeError('x'.repeat(5_000)) }],
      };
      const to = { seq: broken.seq, txId: broken.txId };
      await commit({ from, to, output, correlationChanges: [], now: 1_000 });

      const failures = await database.db.selectFrom('detection_failures').selectAll().execute();
      assert.equal(failures.length, 1);
      assert.equal(Number(failures[0]?.record_seq), broken.seq);
      assert.equal(Number(failures[0]?.tenant_id), tenantId);
      assert.ok(failures[0]?.error.startsWith('TypeError: xxx'));
      assert.equal(failures[0]?.error.length, 1_000, 'the error is capped');
      assert.notEqual(first.seq, broken.seq);
      assert.deepEqual(await log().position(DETECTION_CURSOR), to);

      // A second follower that read the same position cannot apply the chunk again.
      await assert.rejects(commit({ from, to, output, correlationChanges: [], now: 2_000 }), CursorMoved);
      assert.equal((await database.db.selectFrom('detection_failures').selectAll().execute()).length, 1);
    });
  });
}
