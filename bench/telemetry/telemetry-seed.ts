// bench:telemetry's seeding: web-service records of ≈500 bytes for several tenants over 30 days,
// stored in-process through the same steps as ingest rather than through HTTP (10M records
// through /log_sink would take most of the time budget): each chunk is NDJSON parsed by the
// collector's parser (record text, event time, meta), the rows are written with the record-log
// writer's INSERT, then the search index is filled with what the indexer stores for each record
// (SQLite: the record text in the FTS5 table, built in one pass; PostgreSQL: the indexer's
// tsvector expression), and every follower's cursor moves to the end, as if the server had
// processed them all. PostgreSQL gets one table partition per day of the span, as a server running
// for a month has.
import { performance } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import { hex, ipv4, pick, seededRandom, type Random } from '../../src/core/random.js';
import type { Database } from '../../src/storage/database.js';
import { parseBody } from '../../src/collector/intake/parse.js';
import { insertRecords } from '../../src/storage/postgres/record-insert.js';
import type { RecordBatch } from '../../src/record-log/record-log.js';
import { createDays, listTablePartitions } from '../../src/retention/table-partitions.js';

export const DAY = 86_400_000;
/** Words that occur in about one record in 400: the full-text scenario's needle. */
export const RARE_WORD = 'quarantined';

const services = ['checkout', 'payments', 'search', 'catalog', 'auth', 'shipping'];
const namespaces = ['prod', 'prod', 'prod', 'staging', 'dev'];
const methods = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE'];
const agents = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'curl/8.5.0',
  'okhttp/4.12.0',
];
const outcomes = ['completed', 'completed', 'completed', 'retried', 'timed out upstream', 'rejected by policy'];

/** One record as a forwarder sends it, and its receive time. */
export function makeRecord(random: Random, receivedAt: number): string {
  const status = random() < 0.02 ? 503 : random() < 0.05 ? 404 : random() < 0.03 ? 500 : 200;
  const service = pick(random, services);
  const path = `/api/${service}/${Math.floor(random() * 5000)}`;
  const user = `u-${Math.floor(random() * 20000)}`;
  const rare = random() < 1 / 400 ? ` ${RARE_WORD}` : '';
  return JSON.stringify({
    timestamp: new Date(receivedAt - Math.floor(random() * 2000)).toISOString(),
    host: `${service}-${Math.floor(random() * 40)}`,
    service,
    level: status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info',
    message: `${pick(random, methods)} ${path} ${pick(random, outcomes)}${rare} in ${Math.floor(random() * 900)} ms for ${user}`,
    http: {
      method: pick(random, methods),
      status,
      path,
      bytes: Math.floor(random() * 50_000),
      duration_ms: Math.floor(random() * 900),
    },
    kubernetes: { namespace: pick(random, namespaces), pod: `${service}-${hex(random, 9)}-${hex(random, 5)}` },
    user: { id: user },
    trace_id: hex(random, 32),
    client: { ip: ipv4(random), user_agent: pick(random, agents) },
  });
}

export interface SeedPlan {
  records: number;
  tenantIds: number[];
  days: number;
  now: number;
}

export interface SeedResult {
  seconds: { rows: number; index: number; total: number };
  bytes: number;
}

/** Receive times step by one millisecond or more: a batch is one request of one tenant. */
const RECORDS_PER_REQUEST = 50;

/**
 * Requests in log order, as a shared collector sees them: receive times rise evenly over the
 * span, each request of one tenant chosen at random (the first gets half, the others share the
 * rest), its body parsed by the collector's parser.
 */
function* plannedBatches(plan: SeedPlan): Generator<RecordBatch> {
  const random = seededRandom(20261126);
  const start = plan.now - plan.days * DAY;
  const step = (plan.days * DAY) / plan.records;
  for (let i = 0; i < plan.records; i += RECORDS_PER_REQUEST) {
    const receivedAt = Math.floor(start + i * step);
    const tenant =
      random() < 0.5 ? plan.tenantIds[0] : plan.tenantIds[1 + Math.floor(random() * (plan.tenantIds.length - 1))];
    const lines: string[] = [];
    for (let j = i; j < Math.min(plan.records, i + RECORDS_PER_REQUEST); j++)
      lines.push(makeRecord(random, receivedAt));
    const parsed = parseBody(Buffer.from(lines.join('\n')), { maxRecordBytes: 1 << 20 });
    yield {
      tenantId: tenant ?? 0,
      receivedAt,
      records: parsed.records,
      eventTimes: parsed.eventTimes,
      metas: parsed.metas,
    };
  }
}

/** Batches grouped into commits of about `records` records. */
function* commits(plan: SeedPlan, records: number): Generator<RecordBatch[]> {
  let group: RecordBatch[] = [];
  let size = 0;
  for (const batch of plannedBatches(plan)) {
    group.push(batch);
    size += batch.records.length;
    if (size >= records) {
      yield group;
      group = [];
      size = 0;
    }
  }
  if (group.length > 0) yield group;
}

export async function seedTelemetry(database: Database, plan: SeedPlan): Promise<SeedResult> {
  if (database.kind === 'sqlite') return seedSqlite(database.sqlitePath, plan);
  await dayPartitions(database.db, plan);
  return seedPostgres(database.pgConfig, plan);
}

const ROWS_PER_INSERT = 64;

function seedSqlite(file: string, plan: SeedPlan): SeedResult {
  const began = performance.now();
  const connection = new SQLite(file);
  // Our own connection, for the load only: no fsync per commit.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = OFF');
  // The record-log writer's statements (storage/sqlite/record-writer-thread.ts).
  const columns = 'INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta) VALUES ';
  const insertOne = connection.prepare(`${columns}(?, ?, ?, ?, ?)`);
  const insertMany = connection.prepare(
    `${columns}${Array.from({ length: ROWS_PER_INSERT }, () => '(?, ?, ?, ?, ?)').join(', ')}`,
  );
  let bytes = 0;
  const write = connection.transaction((batches: RecordBatch[]) => {
    const values: unknown[] = [];
    for (const { tenantId, receivedAt, records, eventTimes, metas } of batches) {
      for (const [i, record] of records.entries()) {
        const eventTime = eventTimes[i] ?? Number.NaN;
        bytes += record.length;
        values.push(tenantId, receivedAt, Number.isNaN(eventTime) ? receivedAt : eventTime, record, metas[i] ?? null);
        if (values.length === ROWS_PER_INSERT * 5) {
          insertMany.run(values);
          values.length = 0;
        }
      }
    }
    for (let i = 0; i < values.length; i += 5) insertOne.run(values.slice(i, i + 5));
  });
  for (const group of commits(plan, 50_000)) write(group);
  const loaded = performance.now();
  // The indexer adds (seq, record text) per record to the contentless FTS5 table; one INSERT … SELECT
  // in log order does the same for all at once.
  connection.exec('INSERT INTO telemetry_fts (rowid, record) SELECT seq, record FROM telemetry_records ORDER BY seq');
  connection.exec('UPDATE log_cursors SET seq = (SELECT max(seq) FROM telemetry_records)');
  connection.pragma('wal_checkpoint(TRUNCATE)');
  connection.close();
  const indexed = performance.now();
  return {
    seconds: { rows: (loaded - began) / 1000, index: (indexed - loaded) / 1000, total: (indexed - began) / 1000 },
    bytes,
  };
}

/**
 * A fresh schema's log has the migration's catch-all partition for everything before today
 * (empty here) and days from today on; a server that has run for the span has a partition per
 * day instead, which upkeep made ahead of time.
 */
async function dayPartitions(db: Database['db'], plan: SeedPlan): Promise<void> {
  const start = plan.now - plan.days * DAY;
  for (const partition of await listTablePartitions(db)) {
    if (partition.isDefault || partition.from !== -Infinity) continue;
    const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.id(partition.name)}`.execute(db);
    if ((rows.rows[0]?.n ?? 0) > 0) throw new Error(`partition ${partition.name} is not empty: not a fresh schema`);
    await sql`ALTER TABLE telemetry_records DETACH PARTITION ${sql.id(partition.name)}`.execute(db);
    await sql`DROP TABLE ${sql.id(partition.name)}`.execute(db);
  }
  await createDays(db, start, plan.days + 2);
}

async function seedPostgres(config: pg.PoolConfig, plan: SeedPlan): Promise<SeedResult> {
  const began = performance.now();
  // One connection, no wait for the WAL flush per commit: a load, not acknowledged ingest.
  const options = [config.options, '-c synchronous_commit=off'].filter(Boolean).join(' ');
  const pool = new pg.Pool({ ...config, max: 1, options });
  let bytes = 0;
  try {
    let pending: Promise<unknown> = Promise.resolve();
    // The record-log writer's statement; the next group is parsed while this one is written.
    for (const group of commits(plan, 5_000)) {
      for (const batch of group) for (const record of batch.records) bytes += record.length;
      await pending;
      pending = insertRecords(pool, group);
    }
    await pending;
  } finally {
    await pool.end();
  }
  const loaded = performance.now();
  await indexPostgres(config);
  const indexed = performance.now();
  return {
    seconds: { rows: (loaded - began) / 1000, index: (indexed - loaded) / 1000, total: (indexed - began) / 1000 },
    bytes,
  };
}
/**
 * The tsvectors in two halves on two connections (the machine's two cores), with the GIN index
 * built once afterwards rather than entry by entry; then VACUUM (ANALYZE), as autovacuum would.
 */
async function indexPostgres(config: pg.PoolConfig): Promise<void> {
  const admin = new pg.Client(config);
  await admin.connect();
  try {
    const { rows } = await admin.query<{ low: string; high: string }>(
      'SELECT min(seq)::text AS low, max(seq)::text AS high FROM telemetry_records',
    );
    const low = Number(rows[0]?.low ?? 0);
    const high = Number(rows[0]?.high ?? 0);
    await admin.query('DROP INDEX telemetry_fts_tsv');
    const middle = Math.floor((low + high) / 2);
    await Promise.all(
      [
        [low, middle],
        [middle + 1, high],
      ].map(async ([from, to]) => {
        const client = new pg.Client(config);
        await client.connect();
        try {
          await client.query('SET synchronous_commit = off');
          await client.query(
            `INSERT INTO telemetry_fts (seq, tenant_id, tsv)
             SELECT seq, tenant_id, to_tsvector('simple'::regconfig, left(record, 262144)) FROM telemetry_records
             WHERE seq BETWEEN $1 AND $2`,
            [from, to],
          );
        } finally {
          await client.end();
        }
      }),
    );
    await admin.query(`SET maintenance_work_mem = '512MB'`);
    await admin.query('CREATE INDEX telemetry_fts_tsv ON telemetry_fts USING GIN (tsv)');
    // Every follower of the log (search index, detection, normalisation…) has processed it all.
    await admin.query(
      `UPDATE log_cursors SET seq = $1, tx_id = CASE WHEN tx_id IS NULL THEN NULL ELSE (SELECT max(tx_id)::text FROM telemetry_records) END`,
      [high],
    );
    await admin.query('VACUUM (ANALYZE) telemetry_records');
    await admin.query('VACUUM (ANALYZE) telemetry_fts');
  } finally {
    await admin.end();
  }
}
