// Dropping an expired day partition on PostgreSQL while another session reads the record log:
// detaching needs an exclusive lock on the whole log and every insert queues behind it while it
// waits, so the wait is short and retried, and a day that stays busy is left for the next pass
// instead of failing it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type pg from 'pg';
import { databaseTargets, type TestDatabase } from '../../test/helpers/databases.js';
import { schemaClient } from '../../test/helpers/postgres.js';
import { openDatabase, type Database } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import {
  dayPartitionName,
  listTablePartitions,
  tablePartitionUpkeep,
  utcDayStart,
  type UpkeepPass,
} from './table-partitions.js';
import { DAY_MS } from './retention-rules.js';

const postgres = databaseTargets.find((target) => target.kind === 'postgres');

/** A session reading the record log in a transaction it keeps open until released. */
async function reader(url: string): Promise<{ client: pg.Client; release: () => Promise<void> }> {
  const client = await schemaClient(url);
  await client.query('BEGIN');
  await client.query('SELECT count(*) FROM telemetry_records');
  return {
    client,
    release: async () => {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

describe('day partitions dropped under a concurrent reader', { skip: postgres?.skip ?? 'no PostgreSQL target' }, () => {
  let testDb: TestDatabase;
  let database: Database;
  let tenantId: number;
  before(async () => {
    if (!postgres) throw new Error('no PostgreSQL target');
    testDb = await postgres.create();
    database = await openDatabase({ dataDir: testDb.dataDir, databaseUrl: testDb.databaseUrl });
    await migrateToLatest(database);
    await sql`INSERT INTO tenants (code_name, name, created_at) VALUES ('acme', 'Acme', ${Date.now()})`.execute(
      database.db,
    );
    tenantId = (await database.db.selectFrom('tenants').select('id').executeTakeFirstOrThrow()).id;
  });
  after(async () => {
    await database.close();
    await testDb.cleanup();
  });

  /**
   * `count` records received `days` from now (their day's partition exists ahead), indexed and
   * past every follower; and a pass whose cutoff expires that day and none after it.
   */
  async function expiredDay(count: number, days: number): Promise<UpkeepPass> {
    const { db } = database;
    const at = Date.now() + days * DAY_MS;
    await sql`INSERT INTO telemetry_records (tenant_id, received_at, event_time, record)
      SELECT ${tenantId}, ${at}, ${at}, '{"n":' || g || '}' FROM generate_series(1, ${count}) g`.execute(db);
    await sql`INSERT INTO telemetry_fts (seq, tenant_id, tsv)
      SELECT seq, tenant_id, to_tsvector('simple', record) FROM telemetry_records
      ON CONFLICT DO NOTHING`.execute(db);
    await sql`UPDATE log_cursors SET seq = (SELECT max(seq) FROM telemetry_records), tx_id = pg_current_xact_id()::text`.execute(
      db,
    );
    const cutoff = utcDayStart(at) + DAY_MS;
    return { now: cutoff + 7 * DAY_MS, cutoffs: new Map([[tenantId, cutoff]]), held: new Set() };
  }

  const dayName = (days: number) => dayPartitionName(utcDayStart(Date.now() + days * DAY_MS));
  const partitionNames = async () => (await listTablePartitions(database.db)).map((partition) => partition.name);

  test('a reader holding the log for longer than one wait: inserts keep going, the day goes once it ends', async () => {
    const pass = await expiredDay(300, 0);
    const blocker = await reader(testDb.databaseUrl);
    const writer = await schemaClient(testDb.databaseUrl);
    try {
      const upkeep = tablePartitionUpkeep(database.db)(pass);
      // Once a partition change waits for its lock, an insert (into a day that has not expired).
      const deadline = Date.now() + 10_000;
      for (;;) {
        const waiting = await writer.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%PARTITION%'`,
        );
        if (waiting.rowCount || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const started = performance.now();
      await writer.query(
        `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record) VALUES ($1, $2, $2, '{"late":true}')`,
        [tenantId, Date.now() + 6 * DAY_MS],
      );
      const insertMs = performance.now() - started;
      // Longer than a single lock wait, shorter than the retries together.
      setTimeout(() => void blocker.release(), 2_500);
      const result = await upkeep;
      assert.ok(insertMs < 1_000, `the insert waited ${insertMs.toFixed(0)} ms behind the detach`);
      assert.deepEqual(result.busy, []);
      assert.equal(result.dropped.get(tenantId), 300);
      assert.ok(!(await partitionNames()).includes(dayName(0)), 'the expired day’s partition is gone');
    } finally {
      await writer.end();
    }
  });

  test('a day whose lock stays busy is left for the next pass, which drops it', async () => {
    const pass = await expiredDay(40, 1);
    const blocker = await reader(testDb.databaseUrl);
    let released = false;
    try {
      const first = await tablePartitionUpkeep(database.db, { attempts: 2, retryMs: 50 })(pass);
      assert.ok(first.busy.includes(dayName(1)), JSON.stringify(first.busy));
      assert.equal(first.dropped.get(tenantId) ?? 0, 0);
      assert.ok((await partitionNames()).includes(dayName(1)));
      await blocker.release();
      released = true;
      const second = await tablePartitionUpkeep(database.db, { attempts: 2, retryMs: 50 })(pass);
      assert.deepEqual(second.busy, []);
      assert.equal(second.dropped.get(tenantId), 40);
      assert.ok(!(await partitionNames()).includes(dayName(1)));
    } finally {
      if (!released) await blocker.release();
    }
  });

  test('a record that commits into an expired day while its drop waits for the lock keeps the day', async () => {
    const pass = await expiredDay(30, 2);
    // The days ahead of the pass made first, so that the drop is the only change to wait.
    await tablePartitionUpkeep(database.db)({ ...pass, cutoffs: new Map() });
    // An import of old records: its transaction is running when the day is checked.
    const importer = await schemaClient(testDb.databaseUrl);
    try {
      await importer.query('BEGIN');
      await importer.query(
        `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record) VALUES ($1, $2, $2, '{"imported":true}')`,
        [tenantId, Date.now() + 2 * DAY_MS],
      );
      const upkeep = tablePartitionUpkeep(database.db, { attempts: 40, retryMs: 25 })(pass);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const waiting = await sql`SELECT 1 FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE '%DETACH PARTITION%'`.execute(database.db);

        if (waiting.rows.length > 0) break;
        if (Date.now() > deadline) throw new Error('the drop never waited for the importer’s lock');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await importer.query('COMMIT');
      const result = await upkeep;
      assert.equal(result.dropped.get(tenantId) ?? 0, 0, 'nothing dropped');
      assert.ok((await partitionNames()).includes(dayName(2)), 'the day stays for a later pass');
      const imported = await sql<{ n: number }>`SELECT count(*)::int AS n FROM telemetry_records
        WHERE record = '{"imported":true}'`.execute(database.db);
      assert.equal(imported.rows[0]?.n, 1, 'the imported record is there for the followers');
    } finally {
      await importer.end();
    }
  });
});
