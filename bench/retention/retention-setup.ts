// What `bench:retention` sets up and reads beside the server: the expired backlog it purges,
// and the purge's progress read straight from the database while the server runs.
// SQLite: the backlog's records in one bulk insert, their search index entries in another, then
// the index merged as a long-running index would be (a bulk build leaves dozens of unmerged
// segments, and the first write after it merged them all at once under the write lock).
// PostgreSQL: the records spread over past days, each day in its own day partition made by the
// purger's own table partition code, so the purge drops whole day partitions as in production.
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import type { Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createDays, listTablePartitions, utcDayStart } from '../../src/retention/table-partitions.js';
import type { FreshSchema } from '../../test/helpers/postgres.js';

const DAY = 86_400_000;
const CHUNK = 50_000;

export interface Backlog {
  records: number;
  /** The backlog is received over this many days, ending `ageDays` ago. */
  days: number;
  ageDays: number;
}

/** N old records for tenant demo, indexed and past every follower of the log. */
export async function seedBacklog(database: Database, backlog: Backlog): Promise<void> {
  const { db } = database;
  await migrateToLatest(database);
  await sql`INSERT INTO tenants (code_name, name, created_at) VALUES ('demo', 'Demo', ${Date.now()})`.execute(db);
  const tenant = await db.selectFrom('tenants').select('id').where('code_name', '=', 'demo').executeTakeFirstOrThrow();
  const first = utcDayStart(Date.now() - (backlog.ageDays + backlog.days) * DAY);
  // Receive times spread evenly over the days, in sequence order.
  const step = Math.max(1, Math.floor((backlog.days * DAY) / backlog.records));
  if (database.kind === 'postgres') await dayPartitions(database, first, backlog.days);
  const record = `'{"message":"archived event ' || g || '","level":"info","service":"checkout","user":"u-' || (g % 977) || '"}'`;
  for (let done = 0; done < backlog.records; done += CHUNK) {
    const n = Math.min(CHUNK, backlog.records - done);
    const at = `${first} + g * ${step}`;
    const rows =
      database.kind === 'sqlite'
        ? `WITH RECURSIVE s(g) AS (SELECT ${done + 1} UNION ALL SELECT g + 1 FROM s WHERE g < ${done + n})
           INSERT INTO telemetry_records (tenant_id, received_at, event_time, record) SELECT ${tenant.id}, ${at}, ${at}, ${record} FROM s`
        : `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record)
           SELECT ${tenant.id}, ${at}, ${at}, ${record} FROM generate_series(${done + 1}, ${done + n}) g`;
    await sql.raw(rows).execute(db);
  }
  if (database.kind === 'sqlite') {
    await sql`INSERT INTO telemetry_fts (rowid, record) SELECT seq, record FROM telemetry_records`.execute(db);
    await sql`INSERT INTO telemetry_fts (telemetry_fts) VALUES ('optimize')`.execute(db);
  } else {
    await sql`INSERT INTO telemetry_fts (seq, tenant_id, tsv) SELECT seq, tenant_id, to_tsvector('simple', record) FROM telemetry_records`.execute(
      db,
    );
    await sql`ANALYZE`.execute(db);
  }
  const end = await db
    .selectFrom('telemetry_records')
    .select((eb) => eb.fn.max<number>('seq').as('seq'))
    .executeTakeFirstOrThrow();
  await db.updateTable('log_cursors').set({ seq: end.seq }).execute();
  if (database.kind === 'postgres') await sql`UPDATE log_cursors SET tx_id = pg_current_xact_id()::text`.execute(db);
}

/**
 * A fresh schema's partition for records stored before partitioning covers every past day (it
 * is empty: nothing was stored before); it gives way to real day partitions for the backlog.
 */
async function dayPartitions(database: Database, first: number, days: number): Promise<void> {
  const { db } = database;
  for (const partition of await listTablePartitions(db)) {
    if (partition.isDefault || partition.from > first) continue;
    const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.id(partition.name)}`.execute(db);
    if (rows.rows[0]?.n !== 0) throw new Error(`partition ${partition.name} is not empty: use a fresh schema`);
    await sql`DROP TABLE ${sql.id(partition.name)}`.execute(db);
  }
  await createDays(db, first, days + 1);
}

export interface PurgeProgress {
  /** When this was read, ms. */
  at: number;
  purged: number;
  /** The log's last sequence: what ingest has stored so far. */
  logEnd: number;
  /** When the purger last counted records purged, ms. */
  lastPurgeAt: number | null;
  /** When the purger last measured the tenant's usage (the end of a pass), ms. */
  measuredAt: number | null;
}

/** Tenant demo's purge count and last usage measurement, read beside the running server. */
export async function purgeProgress(dataDir: string, postgres: FreshSchema | undefined): Promise<PurgeProgress> {
  const query = (schema: string) =>
    `SELECT r.purged_records AS purged, r.last_purge_at AS last_purge_at, r.measured_at AS measured_at,
       (SELECT coalesce(max(seq), 0) FROM ${schema}telemetry_records) AS log_end
     FROM ${schema}tenant_retention r JOIN ${schema}tenants t ON t.id = r.tenant_id WHERE t.code_name = 'demo'`;
  interface Row {
    purged: number | string;
    log_end: number | string;
    last_purge_at: number | string | null;
    measured_at: number | string | null;
  }
  const time = (value: number | string | null | undefined) =>
    value === null || value === undefined ? null : Number(value);
  const parse = (row: Row | undefined): PurgeProgress => ({
    at: Date.now(),
    purged: Number(row?.purged ?? 0),
    logEnd: Number(row?.log_end ?? 0),
    lastPurgeAt: time(row?.last_purge_at),
    measuredAt: time(row?.measured_at),
  });
  if (!postgres) {
    const db = new SQLite(path.join(dataDir, 'sightline.db'), { readonly: true });
    try {
      return parse(db.prepare(query('')).get() as Row | undefined);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: postgres.baseUrl });
  await client.connect();
  try {
    return parse((await client.query<Row>(query(`${postgres.schema}.`))).rows[0]);
  } finally {
    await client.end();
  }
}
