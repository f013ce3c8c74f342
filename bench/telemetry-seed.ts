// bench:telemetry's seeding: web-service records of ≈500 bytes for several tenants over 30 days,
// written straight into telemetry_records in large transactions (not through HTTP and the
// collector: 10M records through /log_sink would take most of the time budget), then the
// full-text index built in bulk, and every record-log follower's cursor moved to the end, as if
// the server had processed them all. The rows are what the collector stores for such records.
import { performance } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { hex, ipv4, pick, seededRandom, type Random } from '../src/core/random.js';
import type { Database } from '../src/storage/database.js';

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

/**
 * Records in log order: receive times rise evenly over the span, the tenant of each chosen at
 * random (the first tenant gets half, the others share the rest), as a shared collector sees them.
 */
function* plannedRows(plan: SeedPlan): Generator<[number, number, string]> {
  const random = seededRandom(20261126);
  const start = plan.now - plan.days * DAY;
  const step = (plan.days * DAY) / plan.records;
  for (let i = 0; i < plan.records; i++) {
    const receivedAt = Math.floor(start + i * step);
    const tenant =
      random() < 0.5 ? plan.tenantIds[0] : plan.tenantIds[1 + Math.floor(random() * (plan.tenantIds.length - 1))];
    yield [tenant ?? 0, receivedAt, makeRecord(random, receivedAt)];
  }
}

export async function seedTelemetry(database: Database, plan: SeedPlan): Promise<SeedResult> {
  return database.kind === 'sqlite' ? seedSqlite(database.sqlitePath, plan) : seedPostgres(database.pgConfig, plan);
}

function seedSqlite(file: string, plan: SeedPlan): SeedResult {
  const began = performance.now();
  const connection = new SQLite(file);
  // Our own connection, for the load only: no fsync per commit.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = OFF');
  const insert = connection.prepare(
    'INSERT INTO telemetry_records (tenant_id, received_at, event_time, record) VALUES (?, ?, ?, ?)',
  );
  let bytes = 0;
  const rows = plannedRows(plan);
  const batch = connection.transaction((n: number) => {
    for (let i = 0; i < n; i++) {
      const next = rows.next();
      if (next.done) return;
      const [tenant, at, record] = next.value;
      bytes += record.length;
      insert.run(tenant, at, at, record);
    }
  });
  for (let done = 0; done < plan.records; done += 50_000) batch(Math.min(50_000, plan.records - done));
  const loaded = performance.now();
  // The contentless FTS5 table is filled from every record once, in log order.
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

async function seedPostgres(config: pg.PoolConfig, plan: SeedPlan): Promise<SeedResult> {
  const began = performance.now();
  const client = new pg.Client(config);
  await client.connect();
  let bytes = 0;
  try {
    await client.query('SET synchronous_commit = off');
    const rows = plannedRows(plan);
    const insert = async (tenants: number[], times: number[], records: string[]) =>
      client.query(
        `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record)
         SELECT * FROM unnest($1::bigint[], $2::bigint[], $2::bigint[], $3::text[])`,
        [tenants, times, records],
      );
    let pending: Promise<unknown> = Promise.resolve();
    for (let done = 0; done < plan.records;) {
      const tenants: number[] = [];
      const times: number[] = [];
      const records: string[] = [];
      for (let i = 0; i < 5_000 && done < plan.records; i++, done++) {
        const next = rows.next();
        if (next.done) break;
        const [tenant, at, record] = next.value;
        tenants.push(tenant);
        times.push(at);
        records.push(record);
        bytes += record.length;
      }
      // The next batch is built while this one is written.
      await pending;
      pending = insert(tenants, times, records);
    }
    await pending;
  } finally {
    await client.end();
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
        const worker = new pg.Client(config);
        await worker.connect();
        try {
          await worker.query('SET synchronous_commit = off');
          await worker.query(
            `INSERT INTO telemetry_fts (seq, tenant_id, tsv)
             SELECT seq, tenant_id, to_tsvector('simple'::regconfig, left(record, 262144)) FROM telemetry_records
             WHERE seq BETWEEN $1 AND $2`,
            [from, to],
          );
        } finally {
          await worker.end();
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
