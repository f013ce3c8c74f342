// `npm run bench:telemetry`: telemetry reads at scale. On SQLite (a fresh data dir under the OS
// temp dir), and with --only postgres or --both on PostgreSQL (a fresh database), --records records (default 10M, ≈500 bytes
// each, four tenants, 30 days) are stored in-process by ingest's own steps, the collector's parser
// and the record-log writer's INSERT, with the search index built in bulk (telemetry-seed.ts says
// why not through HTTP), and a real server (detection off) answers, one request at a time:
//   search    a one-day range + `http.status:503`, newest first, 100 a page, at random days
//   fulltext  a word in one record in 400, over the whole span, newest first
//   histogram the one-day search's counts per bucket
//   export    NDJSON oldest first and newest first, as fast as this client reads
// plus disk bytes per record and the server's peak RSS. Every answer is checked (status, that
// the records match). The last line is one JSON object: the worse of the databases run for
// each figure (search_p99_ms, fulltext_p99_ms, histogram_p99_ms, export_records_per_s,
// peak_rss_mb, bytes_per_record) and each database's own figures.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { createToken } from '../../src/identity/tokens/token-service.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { cliActor } from '../../src/identity/principal.js';
import pg from 'pg';
import { cleanup, runBenchMain, runCleanup, startServer, stopServer, type Server } from '../common/query-server.js';
import { DAY, RARE_WORD, seedTelemetry } from './telemetry-seed.js';

interface Flags {
  records: number;
  requests: number;
  exportRecords: number;
  databases: ('sqlite' | 'postgres')[];
  postgresUrl: string;
}

const USAGE =
  'usage: bench:telemetry [--records N] [--requests N] [--export N] [--only sqlite|postgres | --both] [--database postgres://…]\n  (--database names a server and a database to connect to; the run creates and drops one of its own there)';

function parseFlags(argv: string[]): Flags {
  const flags: Flags = {
    records: 10_000_000,
    requests: 200,
    exportRecords: 500_000,
    // Both at 10M do not fit one run's time budget on a 2-core machine: PostgreSQL on request.
    databases: ['sqlite'],
    postgresUrl: process.env.SIGHTLINE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--both') {
      flags.databases = ['sqlite', 'postgres'];
      i--;
      continue;
    }
    if (value === undefined) throw new Error(`option ${flag} needs a value; ${USAGE}`);
    if (flag === '--only') {
      if (value !== 'sqlite' && value !== 'postgres') throw new Error(`--only takes sqlite or postgres; ${USAGE}`);
      flags.databases = [value];
    } else if (flag === '--database') flags.postgresUrl = value;
    else {
      const number = Number(value);
      if (!Number.isInteger(number) || number <= 0) throw new Error(`${flag} must be a positive integer; ${USAGE}`);
      if (flag === '--records') flags.records = number;
      else if (flag === '--requests') flags.requests = number;
      else if (flag === '--export') flags.exportRecords = number;
      else throw new Error(`unknown option ${flag}; ${USAGE}`);
    }
  }
  return flags;
}

const DAYS = 30;
const TENANTS = 4;

interface Figures {
  records: number;
  seed_s: number;
  index_s: number;
  bytes_per_record: number;
  record_bytes: number;
  search_p50_ms: number;
  search_p99_ms: number;
  fulltext_p50_ms: number;
  fulltext_p99_ms: number;
  histogram_p99_ms: number;
  export_asc_records_per_s: number;
  export_desc_records_per_s: number;
  peak_rss_mb: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

async function post(server: Server, token: string, route: string, body: unknown): Promise<Response> {
  return fetch(`${server.base}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Latencies of `requests` calls (after 5 warm-ups), each answer checked. */
async function timed(
  requests: number,
  call: (i: number) => Promise<Response>,
  check: (body: unknown) => string | undefined,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = -5; i < requests; i++) {
    const began = performance.now();
    const response = await call(i);
    const body: unknown = await response.json();
    const took = performance.now() - began;
    if (response.status !== 200) throw new Error(`answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
    const problem = check(body);
    if (problem) throw new Error(problem);
    if (i >= 0) times.push(took);
  }
  return times.sort((a, b) => a - b);
}

/** Peak resident memory of the server process (VmHWM), MiB. */
function peakRss(server: Server): number {
  const status = fs.readFileSync(`/proc/${server.child.process.pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function diskBytes(database: Database): Promise<number> {
  if (database.kind === 'sqlite') {
    const dir = path.dirname(database.sqlitePath);
    return fs
      .readdirSync(dir)
      .filter((name) => name.startsWith(path.basename(database.sqlitePath)))
      .reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);
  }
  // Every table of the schema (the log's day partitions among them), with indexes and TOAST.
  const result = await sql<{
    bytes: string;
  }>`SELECT sum(pg_total_relation_size(c.oid))::text AS bytes FROM pg_class c WHERE c.relnamespace = ${database.pgSchema}::regnamespace AND c.relkind = 'r'`.execute(
    database.db,
  );
  return Number(result.rows[0]?.bytes ?? 0);
}

/** A database of its own on the server `url` names, dropped when the run ends. */
async function freshDatabase(url: string): Promise<string> {
  const name = `sightline_bench_telemetry_${randomBytes(4).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  cleanup.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  return fresh.toString();
}

async function runOne(kind: 'sqlite' | 'postgres', flags: Flags): Promise<Figures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-telemetry-'));
  cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const storage = ['--data', dataDir];
  let databaseUrl = '';
  if (kind === 'postgres') {
    databaseUrl = await freshDatabase(flags.postgresUrl);
    storage.push('--database', databaseUrl);
  }
  const now = Date.now();
  const database = await openDatabase(loadConfig({ dataDir, databaseUrl }, {}));
  let token: string;
  let seed: Awaited<ReturnType<typeof seedTelemetry>>;
  let bytes: number;
  try {
    await migrateToLatest(database);
    const tenantIds: number[] = [];
    for (let t = 0; t < TENANTS; t++)
      tenantIds.push((await createTenant(database.db, { codeName: `bench-t${t}`, name: `Tenant ${t}` })).id);
    const created = await createToken(database.db, {
      tenantId: tenantIds[0] ?? 0,
      name: 'bench-telemetry',
      permissions: [...allPermissions],
      expiresAt: null,
      creator: { actor: cliActor, userId: null, permissions: new Set(allPermissions), expiresAt: null },
      lifetime: { defaultMs: DAY, maxMs: null },
    });
    token = created.value;
    seed = await seedTelemetry(database, { records: flags.records, tenantIds, days: DAYS, now });
    bytes = await diskBytes(database);
  } finally {
    await database.close();
  }
  process.stdout.write(
    `  ${kind}: seeded ${flags.records.toLocaleString('en-US')} records (${(seed.bytes / flags.records).toFixed(0)} B of JSON each) in-process (collector parser, record-log writer's INSERT) in ${seed.seconds.rows.toFixed(0)} s, full-text index built in ${seed.seconds.index.toFixed(0)} s; ${(bytes / 1024 / 1024).toFixed(0)} MiB on disk\n`,
  );

  const server = await startServer(storage);
  cleanup.push(async () => {
    for (const note of await stopServer(server)) process.stdout.write(`note: ${note}\n`);
  });
  const dayStart = (i: number) => now - DAYS * DAY + (((i + 5) * 7919) % (DAYS - 1)) * DAY;
  const search = await timed(
    flags.requests,
    (i) =>
      post(server, token, '/v1/telemetry/search', {
        since: new Date(dayStart(i)).toISOString(),
        until: new Date(dayStart(i) + DAY).toISOString(),
        query: 'http.status:503',
        order: 'desc',
        limit: 100,
      }),
    (body) => {
      const page = body as { records: { record: { http: { status: number } } }[]; next_cursor: string | null };
      const records = page.records;
      if (records.length !== 100 && page.next_cursor !== null)
        return `search answered ${records.length} records and a next page`;
      return records.every((r) => r.record.http.status === 503) ? undefined : 'search answered a non-matching record';
    },
  );
  const fulltext = await timed(
    flags.requests,
    () => post(server, token, '/v1/telemetry/search', { query: RARE_WORD, order: 'desc', limit: 100 }),
    (body) => {
      const records = (body as { records: { record: { message: string } }[] }).records;
      if (records.length === 0) return 'full-text search found nothing';
      return records.every((r) => r.record.message.includes(RARE_WORD))
        ? undefined
        : 'full text: a record without the word';
    },
  );
  const histogram = await timed(
    Math.min(flags.requests, 50),
    (i) =>
      post(server, token, '/v1/telemetry/histogram', {
        since: new Date(dayStart(i)).toISOString(),
        until: new Date(dayStart(i) + DAY).toISOString(),
        query: 'http.status:503',
        buckets: 48,
      }),
    (body) => ((body as { total: number }).total > 0 ? undefined : 'the histogram counted nothing'),
  );
  const exportRate = async (order: 'asc' | 'desc') => {
    const began = performance.now();
    const response = await post(server, token, '/v1/telemetry/export', { order, max_records: flags.exportRecords });
    if (response.status !== 200 || !response.body) throw new Error(`export answered ${response.status}`);
    let lines = 0;
    // indexOf, not a loop over every byte: that cost this client more CPU than the server spent
    // on the export, on the same two cores.
    for await (const chunk of response.body) {
      const bytes = chunk as Uint8Array;
      for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) lines++;
    }
    const expected = Math.min(flags.exportRecords, Math.floor(flags.records / 4));
    if (lines < expected) throw new Error(`export ${order} streamed ${lines} records, expected at least ${expected}`);
    return lines / ((performance.now() - began) / 1000);
  };
  const exportAsc = await exportRate('asc');
  const exportDesc = await exportRate('desc');
  const rss = peakRss(server);
  for (const note of await stopServer(server)) process.stdout.write(`note: ${note}\n`);
  cleanup.pop();
  await runCleanup();
  return {
    records: flags.records,
    seed_s: round(seed.seconds.rows),
    index_s: round(seed.seconds.index),
    bytes_per_record: Math.round(bytes / flags.records),
    record_bytes: Math.round(seed.bytes / flags.records),
    search_p50_ms: round(percentile(search, 50)),
    search_p99_ms: round(percentile(search, 99)),
    fulltext_p50_ms: round(percentile(fulltext, 50)),
    fulltext_p99_ms: round(percentile(fulltext, 99)),
    histogram_p99_ms: round(percentile(histogram, 99)),
    export_asc_records_per_s: Math.round(exportAsc),
    export_desc_records_per_s: Math.round(exportDesc),
    peak_rss_mb: round(rss),
  };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  process.stdout.write(
    `telemetry benchmark: ${flags.records.toLocaleString('en-US')} records, ${TENANTS} tenants, ${DAYS} days, on ${flags.databases.join(' and ')}; ` +
      `${flags.requests} sequential requests per search scenario; seeding runs in-process, not through HTTP: the collector's parser and the record-log writer's INSERT, the search index built in bulk with the indexer's content; ` +
      `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, load average ${os.loadavg()[0]?.toFixed(1)}\n`,
  );
  // A throwaway operator password, so the server does not generate and print one.
  process.env.SIGHTLINE_ADMIN_PASSWORD = randomBytes(16).toString('hex');
  const results: Partial<Record<'sqlite' | 'postgres', Figures>> = {};
  for (const kind of flags.databases) {
    const figures = await runOne(kind, flags);
    results[kind] = figures;
    process.stdout.write(
      `  ${kind}: search p50 ${figures.search_p50_ms} ms p99 ${figures.search_p99_ms} ms; full text p50 ${figures.fulltext_p50_ms} ms p99 ${figures.fulltext_p99_ms} ms; ` +
        `histogram p99 ${figures.histogram_p99_ms} ms; export ${figures.export_asc_records_per_s} records/s oldest first, ${figures.export_desc_records_per_s} newest first; ` +
        `${figures.bytes_per_record} B on disk per record (${figures.record_bytes} B of JSON); server peak RSS ${figures.peak_rss_mb} MiB\n`,
    );
  }
  const all = Object.values(results);
  const worst = (key: keyof Figures, pick: (...values: number[]) => number) => pick(...all.map((f) => f[key]));
  const summary = {
    records: flags.records,
    search_p99_ms: worst('search_p99_ms', Math.max),
    fulltext_p99_ms: worst('fulltext_p99_ms', Math.max),
    histogram_p99_ms: worst('histogram_p99_ms', Math.max),
    export_records_per_s: Math.min(
      worst('export_asc_records_per_s', Math.min),
      worst('export_desc_records_per_s', Math.min),
    ),
    peak_rss_mb: worst('peak_rss_mb', Math.max),
    bytes_per_record: worst('bytes_per_record', Math.max),
    seeded_through: 'in-process: collector parser, record-log writer INSERT, bulk search index build',
    ...results,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

runBenchMain('bench:telemetry', main);
