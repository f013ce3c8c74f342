// The PostgreSQL record-log follower under concurrent writers, randomized: transactions of random
// sizes that commit after random delays (so out of sequence order), some rolled back whole or in
// part (savepoints), some holding a transaction id and no records, one of ours open for most of
// the run and one in another schema open throughout. A follower reads with small limits while
// they write, acknowledges, sometimes restarts from the persisted position and sometimes
// "crashes" before acknowledging. After the writers finish and a final drain, what it
// acknowledged must be exactly what committed: nothing lost, nothing twice. Along the way the
// retention floor must stay below every committed record the follower has not acknowledged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type pg from 'pg';
import { schemaClient } from '../helpers/postgres.js';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { SqlRecordLogReader } from '../../src/record-log/record-follower.js';
import type { LogPosition } from '../../src/record-log/record-log.js';
import { DETECTION_CURSOR } from '../../src/detection/detection-cursor.js';
import { followerFloor } from '../../src/retention/purge-store.js';
import { seededRandom } from '../../src/core/random.js';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { storagePorts } from '../../src/storage/ports/storage-ports.js';

const WRITERS = 5;
const TRANSACTIONS_PER_WRITER = 300;
const SEED = Number(process.env.FOLLOWER_STRESS_SEED ?? Date.now() % 1_000_000);

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const markerOf = (read: { record: string }) => (JSON.parse(read.record) as { marker: string }).marker;

function counts(markers: Iterable<string>): Map<string, number> {
  const result = new Map<string, number>();
  for (const marker of markers) result.set(marker, (result.get(marker) ?? 0) + 1);
  return result;
}

const target = databaseTargets.find((candidate) => candidate.kind === 'postgres')!;

describe('record follower under concurrent writers on postgres', { skip: target.skip }, () => {
  let testDb: TestDatabase;
  let database: Database;
  let tenantId: number;

  before(async () => {
    testDb = await target.create();
    database = await openDatabase(testDb);
    await migrateToLatest(database);
    tenantId = (await createTenant(database.db, { codeName: 'acme', name: 'Acme' })).id;
    // Only the detection cursor bounds the retention floor here.
    await database.db.updateTable('log_cursors').set({ seq: 1e12 }).where('name', '!=', DETECTION_CURSOR).execute();
  });
  after(async () => {
    await database.close();
    await testDb.cleanup();
  });

  const INSERT = `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record)
    SELECT $1, 0, 0, json_build_object('marker', m)::text FROM unnest($2::text[]) AS m`;

  test('every committed record is acknowledged exactly once', async () => {
    const random = seededRandom(SEED);
    const committed: string[] = [];
    // A position from before snapshots were kept, in the middle of a transaction's records:
    // the rest of that transaction is still to be read.
    const before = await database.db.transaction().execute(async (trx) => {
      const written = await sql<{ seq: number; tx_id: string }>`
        INSERT INTO telemetry_records (tenant_id, received_at, event_time, record)
        SELECT ${tenantId}, 0, 0, json_build_object('marker', 'old-' || g)::text FROM generate_series(1, 5) AS g
        RETURNING seq, tx_id::text AS tx_id`.execute(trx);
      return written.rows.sort((a, b) => a.seq - b.seq)[2]!;
    });
    await database.db
      .updateTable('log_cursors')
      .set({ seq: before.seq, tx_id: before.tx_id, seen: null, up_to: null })
      .where('name', '=', DETECTION_CURSOR)
      .execute();
    committed.push('old-4', 'old-5');
    const acknowledged: string[] = [];
    let writersDone = false;

    /** One writer connection: transactions of 0-6 records, some rolled back, committed late. */
    async function writer(index: number): Promise<void> {
      const client = await schemaClient(testDb.databaseUrl);
      try {
        for (let n = 0; n < TRANSACTIONS_PER_WRITER; n++) {
          const kept: string[] = [];
          const batch = (part: string) =>
            Array.from({ length: Math.floor(random() * 4) }, (_, i) => `w${index}-${n}-${part}${i}`);
          await client.query('BEGIN');
          if (random() < 0.1) await client.query('SELECT pg_current_xact_id()'); // an id, maybe no records
          const first = batch('a');
          if (first.length > 0) await client.query(INSERT, [tenantId, first]);
          kept.push(...first);
          if (random() < 0.3) {
            await client.query('SAVEPOINT part');
            const undone = batch('s');
            if (undone.length > 0) await client.query(INSERT, [tenantId, undone]);
            if (random() < 0.5) {
              await client.query('ROLLBACK TO SAVEPOINT part');
            } else {
              await client.query('RELEASE SAVEPOINT part');
              kept.push(...undone);
            }
          }
          await pause(Math.floor(random() * 8));
          const second = batch('b');
          if (second.length > 0) await client.query(INSERT, [tenantId, second]);
          kept.push(...second);
          await pause(Math.floor(random() * 12));
          if (random() < 0.15) {
            await client.query('ROLLBACK');
          } else {
            await client.query('COMMIT');
            committed.push(...kept);
          }
        }
      } finally {
        await client.end();
      }
    }

    /** The committed records visible now that the follower has not acknowledged: their lowest sequence. */
    async function lowestUnacknowledged(done: Set<string>): Promise<number | undefined> {
      const rows = await database.db.selectFrom('telemetry_records').select(['seq', 'record']).execute();
      let lowest: number | undefined;
      for (const row of rows) {
        if (done.has(markerOf(row))) continue;
        lowest = lowest === undefined ? row.seq : Math.min(lowest, row.seq);
      }
      return lowest;
    }

    async function follower(): Promise<{ restarts: number; crashes: number; floorChecks: number }> {
      let reader = new SqlRecordLogReader(database.db, storagePorts(database).logReading);
      let position: LogPosition = await reader.position(DETECTION_CURSOR);
      const stats = { restarts: 0, crashes: 0, floorChecks: 0 };
      const done = new Set<string>(['old-1', 'old-2', 'old-3']); // processed before the old-style position
      for (let idle = 0; idle < 3;) {
        const read = await reader.read(position, 1 + Math.floor(random() * 7));
        const roll = random();
        if (roll < 0.05) {
          // Crash before acknowledging: the chunk is read again from the persisted position.
          stats.crashes++;
          reader = new SqlRecordLogReader(database.db, storagePorts(database).logReading);
          position = await reader.position(DETECTION_CURSOR);
          continue;
        }
        if (read.records.length > 0 || read.to !== position) {
          const from = position;
          await database.db.transaction().execute((trx) => reader.acknowledge(trx, DETECTION_CURSOR, from, read.to));
          acknowledged.push(...read.records.map(markerOf));
          for (const record of read.records) done.add(markerOf(record));
          position = read.to;
        }
        if (roll > 0.9) {
          stats.restarts++;
          reader = new SqlRecordLogReader(database.db, storagePorts(database).logReading);
          position = await reader.position(DETECTION_CURSOR);
          assert.deepEqual(position, read.to, 'the persisted position is the one acknowledged');
        }
        if (roll > 0.97) {
          // Committed records seen before the floor is taken: none unacknowledged may be at or below it.
          const lowest = await lowestUnacknowledged(done);
          const floor = await followerFloor(database.db);
          if (lowest !== undefined)
            assert.ok(floor < lowest, `retention floor ${floor} reaches unread record ${lowest}`);
          stats.floorChecks++;
        }
        if (read.records.length === 0) {
          if (writersDone) idle++;
          else await pause(2);
        }
      }
      return stats;
    }

    // Another application's transaction, holding an id in another schema for the whole run.
    const elsewhere = await schemaClient(testDb.databaseUrl.replace(/schema=[^&]*/, 'schema=public'));
    // One of ours, open for most of the run with records written at its start.
    const longOpen = await schemaClient(testDb.databaseUrl);
    let elsewhereOpen = false;
    try {
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()');
      elsewhereOpen = true;
      await longOpen.query('BEGIN');
      await longOpen.query(INSERT, [tenantId, ['long-1', 'long-2']]);

      const following = follower();
      const writing = Promise.all(Array.from({ length: WRITERS }, (_, index) => writer(index)));
      const commitLongOpen = async (client: pg.Client) => {
        await pause(300);
        await client.query(INSERT, [tenantId, ['long-3']]);
        await client.query('COMMIT');
        committed.push('long-1', 'long-2', 'long-3');
      };
      await Promise.all([writing, commitLongOpen(longOpen)]);
      writersDone = true;
      const stats = await following;

      const lost = [...counts(committed)].filter(([marker]) => !acknowledged.includes(marker));
      const twice = [...counts(acknowledged)].filter(([, n]) => n > 1);
      const stray = acknowledged.filter((marker) => !committed.includes(marker));
      assert.deepEqual(lost, [], `seed ${SEED}: committed records never read`);
      assert.deepEqual(twice, [], `seed ${SEED}: records read more than once`);
      assert.deepEqual(stray, [], `seed ${SEED}: records read that never committed`);
      assert.equal(acknowledged.length, committed.length);
      assert.ok(committed.length > 500, `enough records written (${committed.length})`);
      assert.ok(stats.restarts > 0 && stats.crashes > 0 && stats.floorChecks > 0, JSON.stringify(stats));
      assert.equal(
        await new SqlRecordLogReader(database.db, storagePorts(database).logReading).lag(DETECTION_CURSOR),
        0,
      );
    } finally {
      if (elsewhereOpen) await elsewhere.query('ROLLBACK');
      await elsewhere.end();
      await longOpen.end();
    }
  });
});
