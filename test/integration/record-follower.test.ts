// The detection follower on both databases: its reads, and on PostgreSQL the cases it exists
// for (a record whose transaction commits after a later-numbered record's is read once, never
// skipped; a transaction held open elsewhere on the server holds nothing back; a restart inside
// a window neither skips nor repeats); and its commits (a record that could not be evaluated is kept in
// detection_failures; a commit from a stale position is refused rather than applied twice, and
// its consumer told to discard what it holds in memory).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { schemaClient } from '../helpers/postgres.js';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { SqlRecordLogReader } from '../../src/record-log/record-follower.js';
import { CursorMoved, type LogPosition } from '../../src/record-log/record-log.js';
import { DETECTION_CURSOR } from '../../src/detection/detection-cursor.js';
import { expiredBatch, followerFloor, logEnd, purgeFloor } from '../../src/retention/purge-store.js';
import { storeDetection, type CaseUpkeep } from '../../src/pipeline/detection-commit.js';
import { LogFollower } from '../../src/record-log/log-follower.js';
import type { RecordConsumer } from '../../src/record-log/record-consumer.js';
import { loadAttackCatalogue } from '../../src/detection/attack.js';
import { DEFAULT_GROUPING } from '../../src/cases/case-grouping.js';
import { MmdbGeoIp } from '../../src/devices/geoip.js';
import { storagePorts } from '../helpers/storage-ports.js';

import { databaseTargets, type TestDatabase } from '../helpers/databases.js';

function upkeep(database: Database): CaseUpkeep {
  return {
    locks: storagePorts(database).locks,
    policy: DEFAULT_GROUPING,
    catalogue: loadAttackCatalogue(),
    geo: MmdbGeoIp.bundled(),
  };
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

    const log = () => new SqlRecordLogReader(database.db, storagePorts(database).logReading);

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
      assert.deepEqual(first.records.map(markerOf), ['a', 'b']);
      const rest = await log().read(first.to, 10);
      assert.deepEqual(rest.records.map(markerOf), ['c']);
      assert.equal(rest.records[0]!.tenantId, tenantId);
      assert.deepEqual((await log().read(rest.to, 10)).records, []);
    });

    /** Moves the detection cursor from `from` to `to`, as a detection chunk's commit does. */
    async function acknowledge(from: LogPosition, to: LogPosition): Promise<void> {
      await database.db.transaction().execute((trx) => log().acknowledge(trx, DETECTION_CURSOR, from, to));
    }

    /** Reads and acknowledges everything readable now, in chunks of `limit`; returns the markers. */
    async function drain(limit = 100): Promise<string[]> {
      const markers: string[] = [];
      for (;;) {
        const from = await log().position(DETECTION_CURSOR);
        const read = await log().read(from, limit);
        if (read.records.length === 0) return markers;
        markers.push(...read.records.map(markerOf));
        await acknowledge(from, read.to);
      }
    }

    // SQLite assigns sequences under its single write lock, so sequence order is commit order there.
    if (target.kind === 'postgres') {
      test('a record committed late is read once, after the later ones it waited behind', async () => {
        await drain();
        const slow = await schemaClient(testDb.databaseUrl);
        try {
          await slow.query('BEGIN');
          const held = await slow.query<{ seq: string }>(
            `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record) VALUES ($1, 0, 0, '{"marker":"late"}') RETURNING seq`,
            [tenantId],
          );
          await insert('early'); // a higher sequence, committed first
          assert.deepEqual(await drain(), ['early'], 'a committed record is read past one still being written');
          assert.deepEqual(await drain(), []);

          await slow.query('COMMIT');
          // Retention may not purge the late record: the followers' floor stays below it.
          const lateSeq = Number(held.rows[0]!.seq);
          await database.db.updateTable('log_cursors').set({ seq: 1e12 }).where('name', '=', 'search_index').execute();
          assert.equal(await followerFloor(database.db), lateSeq - 1);
          const position = await log().position(DETECTION_CURSOR);
          const late = await log().read(position, 100);
          assert.deepEqual(late.records.map(markerOf), ['late']);
          assert.equal(late.records[0]!.seq, lateSeq);
          await acknowledge(position, late.to);
          assert.deepEqual(await drain(), [], 'read exactly once');
          assert.equal(await log().lag(DETECTION_CURSOR), 0);
          assert.equal(await followerFloor(database.db), await logEnd(database.db));
        } finally {
          await slow.end();
        }
      });

      test('a purge batch never takes a record whose transaction commits after the floor is taken', async () => {
        await drain();
        await database.db.updateTable('log_cursors').set({ seq: 1e12 }).where('name', '=', 'search_index').execute();
        const slow = await schemaClient(testDb.databaseUrl);
        try {
          await slow.query('BEGIN');
          const held = await slow.query<{ seq: string }>(
            `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record) VALUES ($1, 0, 0, '{"marker":"expired-late"}') RETURNING seq`,
            [tenantId],
          );
          await insert('expired-early');
          assert.deepEqual(await drain(), ['expired-early']);
          // The follower has passed everything it can see: the floor is above the running record.
          const floor = await purgeFloor(database.db, storagePorts(database).recordPurge);
          const lateSeq = Number(held.rows[0]!.seq);
          assert.ok(floor.seq > lateSeq);
          await slow.query('COMMIT');
          const batch = await expiredBatch(database.db, tenantId, Date.now() + 1, undefined, floor, 1_000);
          assert.ok(!batch.some((row) => row.seq === lateSeq), 'the record committed after the floor stays, unread');
          assert.deepEqual(await drain(), ['expired-late']);
          const next = await purgeFloor(database.db, storagePorts(database).recordPurge);
          const again = await expiredBatch(database.db, tenantId, Date.now() + 1, undefined, next, 1_000);
          assert.ok(
            again.some((row) => row.seq === lateSeq),
            'read, it goes with the next pass',
          );
        } finally {
          await slow.end();
        }
      });

      test('a transaction held open elsewhere on the server does not hold the follower back', async () => {
        await drain();
        // Another application's transaction, in another schema, that has taken a transaction id.
        const elsewhere = await schemaClient(testDb.databaseUrl.replace(/schema=[^&]*/, 'schema=public'));
        try {
          await elsewhere.query('BEGIN');
          await elsewhere.query('SELECT pg_current_xact_id()');
          for (const marker of ['after-1', 'after-2', 'after-3']) await insert(marker);
          assert.equal(await log().lag(DETECTION_CURSOR), 3);
          assert.deepEqual(await drain(2), ['after-1', 'after-2', 'after-3']);
          assert.equal(await log().lag(DETECTION_CURSOR), 0);
          await insert('after-4');
          assert.deepEqual(await drain(), ['after-4']);
        } finally {
          await elsewhere.query('ROLLBACK');
          await elsewhere.end();
        }
      });

      test('a restart inside a window goes on from the persisted position: nothing skipped or repeated', async () => {
        await drain();
        const slow = await schemaClient(testDb.databaseUrl);
        try {
          await slow.query('BEGIN');
          await slow.query(
            `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record) VALUES ($1, 0, 0, '{"marker":"w-late"}')`,
            [tenantId],
          );
          for (const marker of ['w-1', 'w-2', 'w-3', 'w-4', 'w-5']) await insert(marker);
          const from = await log().position(DETECTION_CURSOR);
          const first = await log().read(from, 2);
          assert.deepEqual(first.records.map(markerOf), ['w-1', 'w-2']);
          assert.ok(first.to.upTo, 'the position stays inside the window');
          await acknowledge(from, first.to);
          // A stale reader of the same window cannot move the cursor again.
          await assert.rejects(acknowledge(from, first.to), CursorMoved);
          await insert('w-6'); // after the window: read in the next one
          await slow.query('COMMIT');

          // A new reader, as after a restart, starts from what was persisted.
          const restarted = new SqlRecordLogReader(database.db, storagePorts(database).logReading);
          const resumed = await restarted.position(DETECTION_CURSOR);
          assert.deepEqual(resumed, first.to);
          const second = await restarted.read(resumed, 3);
          assert.deepEqual(second.records.map(markerOf), ['w-3', 'w-4', 'w-5']);
          await acknowledge(resumed, second.to);
          assert.deepEqual((await drain(1)).sort(), ['w-6', 'w-late']);
          assert.deepEqual(await drain(), []);
        } finally {
          await slow.end();
        }
      });
    }

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
      // A consumer that stores, for the chunk's last record, the failure detection would report.
      const told: string[] = [];
      const failing: RecordConsumer = {
        apply: async (trx, batch) => {
          const broken = batch.records.at(-1);
          if (!broken) return;
          const failure = { seq: broken.seq, tenantId, error: new TypeError('x'.repeat(5_000)) };
          const output = {
            processRows: [],
            networkRows: [],
            observations: [],
            sightings: [],
            logsources: [],
            failures: [failure],
          };
          await storeDetection(trx, upkeep(database), { output, correlationChanges: [], now: 1_000 });
        },
        committed: (scope) => told.push(`committed ${scope.kind}`),
        discard: (scope) => told.push(`discard ${scope.kind}`),
      };
      const follower = new LogFollower(database.db, log(), DETECTION_CURSOR, failing, 1_000);
      // Earlier tests may have left records behind the cursor too: this chunk is all of them, ending in ours.
      const chunk = await follower.next();
      const { from, to, records } = chunk;
      const [first, broken] = records.slice(-2) as [(typeof records)[number], (typeof records)[number]];
      assert.equal(markerOf(broken), 'broken');
      await follower.commit(chunk);

      const failures = await database.db.selectFrom('detection_failures').selectAll().execute();
      assert.equal(failures.length, 1);
      assert.equal(Number(failures[0]?.record_seq), broken.seq);
      assert.equal(Number(failures[0]?.tenant_id), tenantId);
      assert.ok(failures[0]?.error.startsWith('TypeError: xxx'));
      assert.equal(failures[0]?.error.length, 1_000, 'the error is capped');
      assert.notEqual(first.seq, broken.seq);
      assert.deepEqual(await log().position(DETECTION_CURSOR), to);

      // A second follower that read the same position cannot apply the chunk again.
      await assert.rejects(follower.commit({ from, to, records }), CursorMoved);
      assert.equal((await database.db.selectFrom('detection_failures').selectAll().execute()).length, 1);
      // The consumer heard of the commit, then was told to forget what the refused chunk left in memory.
      assert.deepEqual(told, ['committed log', 'discard log']);
    });
  });
}
