// `npm run bench:query`: how fast the case API answers on a large tenant. A fresh SQLite data dir
// (or, with --database postgres://…, a fresh schema there) is migrated and its tenant given
// --cases cases (default 100,000) with their observations, devices, techniques, tags, assignees,
// comments and history, written straight into the database in large transactions — rows shaped
// as grouping and the case workflow write them (title, description, score and search text from
// the same deriveFields). A real server (detection off) then serves it on loopback HTTP, and
// every scenario is requested --requests times, one request at a time: POST /v1/cases with the
// common filters, GET /v1/cases/counts, GET /v1/cases/{id} by id and by number, and GET /healthz
// as the baseline measured in the same run. Every response is checked against the seeded data
// (status, total and total_relation, page size; each filter's first page id for id; the counts).
// The last stdout line is one JSON object {cases, search_p50_ms, search_p99_ms, get_p50_ms,
// get_p99_ms, counts_p50_ms, counts_p99_ms}.
//
// The server runs in a child process (as in bench:api), not in this one: better-sqlite3 runs each
// query synchronously on the server's event loop, so a pathological query would block an
// in-process client as well and no request could time out. Here a request slower than --timeout
// is abandoned, the server restarted, and the scenario reported as timed out.
//
// The parts: query-seed.ts (and query-model.ts, query-sink.ts) seed the data, query-scenarios.ts
// holds the requests and their checks, query-server.ts runs the server, query-timing.ts times the
// requests and query-report.ts prints the table and the last line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { dropSchema, freshSchema } from '../../test/helpers/postgres.js';
import { PAGE, type Seeded } from './query-model.js';
import { seed } from './query-seed.js';
import { scenarios, type Scenario } from './query-scenarios.js';
import { cleanup, runBenchMain, startServer, stopServer } from '../common/query-server.js';
import { MIN_REQUESTS, RequestTimeout, run, WARMUP_REQUESTS, type Figures } from './query-timing.js';
import { loadAverage, report } from './query-report.js';
import { at } from '../common/checked.js';

interface Flags {
  cases: number;
  requests: number;
  /** Seconds one request may take before it is abandoned (and the server restarted). */
  timeout: number;
  /** Seconds per scenario, after which it stops once it has MIN_REQUESTS measured. */
  budget: number;
  /** Run ANALYZE after seeding (the server never does): shows what planner statistics change. */
  analyze: boolean;
  keep: boolean;
  /** postgres://…: the run uses a fresh schema there (dropped afterwards) instead of SQLite. */
  database?: string;
}

const USAGE =
  'usage: bench:query [--cases N] [--requests N] [--timeout S] [--budget S] [--database postgres://…] [--analyze] [--keep]';

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { cases: 100_000, requests: 300, timeout: 10, budget: 30, analyze: false, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--keep' || flag === '--analyze') {
      flags[flag === '--keep' ? 'keep' : 'analyze'] = true;
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || !['--cases', '--requests', '--timeout', '--budget', '--database'].includes(flag ?? ''))
      throw new Error(`unknown or incomplete option ${JSON.stringify(flag)}; ${USAGE}`);
    i++;
    if (flag === '--database') {
      if (!/^postgres(ql)?:\/\//.test(value))
        throw new Error(`--database must be a postgres:// URL (SQLite is the default); ${USAGE}`);
      flags.database = value;
      continue;
    }
    const number = Number(value);
    if (!Number.isInteger(number) || number <= 0)
      throw new Error(`${flag} must be a positive integer; got ${JSON.stringify(value)}`);
    if (flag === '--cases') flags.cases = number;
    else if (flag === '--requests') flags.requests = number;
    else if (flag === '--timeout') flags.timeout = number;
    else flags.budget = number;
  }
  return flags;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  process.stdout.write(
    `case query benchmark: ${flags.cases.toLocaleString('en-US')} cases on ${flags.database ? 'PostgreSQL' : 'SQLite'}, ${flags.requests} sequential requests per scenario (after ${WARMUP_REQUESTS} warm-up; ` +
      `at most ${flags.budget} s once ${MIN_REQUESTS} are done; ${flags.timeout} s timeout), page size ${PAGE}, Node ${process.version}, ` +
      `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, load average ${loadAverage()}\n`,
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-query-'));
  if (flags.keep) process.stdout.write(`  --keep: the data dir ${dataDir} stays after the run\n`);
  else cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  // A throwaway operator password, so the server does not generate and print one.
  process.env.SIGHTLINE_ADMIN_PASSWORD = randomBytes(16).toString('hex');

  const storage = ['--data', dataDir];
  let databaseUrl = '';
  if (flags.database) {
    const { schema, url, baseUrl } = freshSchema(flags.database, 'bench_query');
    databaseUrl = url;
    storage.push('--database', databaseUrl);
    if (flags.keep) process.stdout.write(`  --keep: the schema ${schema} stays after the run\n`);
    else cleanup.push(() => dropSchema(baseUrl, schema));
  }
  const database = await openDatabase(loadConfig({ dataDir, databaseUrl }, {}));
  let seeded: Seeded;
  let size: string;
  try {
    await migrateToLatest(database);
    // PostgreSQL's autovacuum vacuums and analyzes a table this size soon after the load; SQLite never does.
    seeded = await seed(database, flags.cases, Date.now(), flags.analyze || database.kind === 'postgres');
    size =
      database.kind === 'sqlite'
        ? `${(fs.statSync(database.sqlitePath).size / 1024 / 1024).toFixed(0)} MiB`
        : at(
            (
              await sql<{
                size: string;
              }>`SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS size FROM pg_class c WHERE c.relnamespace = ${database.pgSchema}::regnamespace AND c.relkind = 'r'`.execute(
                database.db,
              )
            ).rows,
            0,
          ).size;
  } finally {
    await database.close();
  }
  const statuses = new Map<string, number>();
  for (const model of seeded.cases) statuses.set(model.status, (statuses.get(model.status) ?? 0) + 1);
  process.stdout.write(
    `  seeded in ${seeded.seconds.toFixed(1)} s (database ${size}, ` +
      `${flags.database ? 'then VACUUM (ANALYZE), as autovacuum would' : flags.analyze ? 'then ANALYZE (--analyze; the server never runs it)' : 'no ANALYZE, as the server leaves it'}): ` +
      `${Object.entries(seeded.rows)
        .map(([table, n]) => `${table} ${n.toLocaleString('en-US')}`)
        .join(', ')}\n` +
      `  statuses: ${[...statuses].map(([status, n]) => `${status} ${n.toLocaleString('en-US')}`).join(', ')}; ` +
      `${seeded.users.length} users; a token with all permissions; tenant bench-query\n`,
  );

  let server = await startServer(storage);
  cleanup.push(async () => {
    for (const note of await stopServer(server)) process.stdout.write(`note: ${note}\n`);
  });
  const headers = { Authorization: `Bearer ${seeded.token}` };
  const limits = { timeoutMs: flags.timeout * 1000, budgetS: flags.budget };
  const all = scenarios(seeded);
  // A cold server (JIT, caches) would make the first scenario — the baseline — look slow.
  await run(server.base, headers, at(all, 0), 500, 0, limits);
  const results = new Map<string, Figures>();
  const measure = async (scenario: Scenario): Promise<Figures> => {
    try {
      await run(server.base, headers, scenario, WARMUP_REQUESTS, 0, limits);
      return await run(server.base, headers, scenario, flags.requests, WARMUP_REQUESTS, limits);
    } catch (error) {
      if (!(error instanceof RequestTimeout)) throw error;
      // The server is still inside the query; only a new one can answer the next scenario.
      for (const note of await stopServer(server, 0))
        if (!note.startsWith('the server did not exit')) process.stdout.write(`note: ${note}\n`);
      server = await startServer(storage);
      return (error as RequestTimeout & { result: Figures }).result;
    }
  };
  for (const scenario of all) results.set(scenario.key, await measure(scenario));
  // The baseline again at the end: the spread of the two runs shows how noisy the machine is.
  const baselineAgain = await measure(at(all, 0));
  const { table, summary } = report(all, results, baselineAgain, { cases: flags.cases, timeoutS: flags.timeout });
  process.stdout.write(table);
  for (const note of await stopServer(server)) process.stdout.write(`note: ${note}\n`);
  cleanup.pop();
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

runBenchMain('bench:query', main);
