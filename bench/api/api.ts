// `npm run bench:api`: what authentication and the /v1 frame cost per request. A real server
// is driven by autocannon through several /v1 calls and compared with GET /healthz (no auth, no
// database) measured in the same run. Every response's status is checked; the last stdout line
// is one JSON object of results.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { freePort, spawnSightline, stopChild, waitReady, type Child } from '../../test/helpers/processes.js';
import { dropSchema, freshSchema } from '../../test/helpers/postgres.js';
import { makeBody } from '../common/records.js';
import { seededRandom } from '../../src/core/random.js';
import { at, present } from '../common/checked.js';
import { scenarios, type Scenario } from './api-scenarios.js';

interface Flags {
  duration: number;
  connections: number;
  database?: string;
}

interface Figures {
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  responses: number;
}

const WARMUP_S = 1;
const SEED_RECORDS = 5_000;
/** The failed-attempt limit is capped at 100,000 per window; over the shortest window (1 s) it is
 * never reached, so the bad-token scenario measures the 401 path rather than the 429 lock-out. */
const LIMITER_ARGS = ['--auth-max-failures', '100000', '--auth-failure-window', '1s'];

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { duration: 10, connections: 16 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined || !['--duration', '--connections', '--database'].includes(flag ?? '')) {
      throw new Error(
        `unknown or incomplete option ${JSON.stringify(flag)}; usage: bench:api [--duration N] [--connections N] [--database URL]`,
      );
    }
    i++;
    if (flag === '--database') flags.database = value;
    else {
      const number = Number(value);
      if (!Number.isInteger(number) || number <= 0)
        throw new Error(`${flag} must be a positive integer; got ${JSON.stringify(value)}`);
      if (flag === '--duration') flags.duration = number;
      else flags.connections = number;
    }
  }
  return flags;
}

/** Active children and temp resources, so that an interrupted run still cleans up. */
const active = new Set<Child>();
const cleanup: (() => void | Promise<void>)[] = [];

async function runCleanup(): Promise<void> {
  for (const step of cleanup.splice(0).reverse()) {
    try {
      await step();
    } catch (error) {
      process.stderr.write(`cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

/** Data dir and (for PostgreSQL) a fresh schema; returns the storage arguments for serve and the CLI. */
function prepareStorage(flags: Flags): string[] {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-api-'));
  cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const args = ['--data', dataDir];
  if (flags.database) {
    const { schema, url, baseUrl } = freshSchema(flags.database, 'bench_api');
    args.push('--database', url);
    cleanup.push(() => dropSchema(baseUrl, schema));
  }
  return args;
}

async function createToken(storageArgs: string[]): Promise<string> {
  const cli = spawnSightline([
    'token',
    'create',
    ...storageArgs,
    '--tenant',
    'demo',
    '--name',
    'bench',
    '--permissions',
    'all',
  ]);
  active.add(cli);
  const code = await cli.exited;
  active.delete(cli);
  const value = cli.stdout().trim();
  if (code !== 0 || !value.startsWith('slt_'))
    throw new Error(`token create failed (exit ${code}):\n${cli.stderr()}${cli.stdout()}`);
  return value;
}

/** Posts synthetic NDJSON to the collector (tenant demo, the default for Host 127.0.0.1). */
async function seedRecords(base: string): Promise<number> {
  const random = seededRandom(20240611);
  let stored = 0;
  while (stored < SEED_RECORDS) {
    const { body, records } = makeBody(random, 128 * 1024);
    const response = await fetch(`${base}/log_sink`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-ndjson' },
      body,
    });
    const text = await response.text();
    if (response.status !== 201)
      throw new Error(`seeding /log_sink answered ${response.status}: ${text.slice(0, 300)}`);
    const accepted = (JSON.parse(text) as { accepted?: unknown }).accepted;
    if (accepted !== records) throw new Error(`seeding /log_sink accepted ${String(accepted)} of ${records} records`);
    stored += records;
  }
  return stored;
}

/** Waits until the background search indexer has caught up, so it does not run during the load. */
async function waitIndexed(base: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lag = Number.NaN;
  while (Date.now() < deadline) {
    const headers = { authorization: `Bearer ${process.env.SIGHTLINE_METRICS_TOKEN ?? ''}` };
    const text = await (await fetch(`${base}/metrics`, { headers })).text();
    lag = Number(/^sightline_search_index_lag_records (\S+)$/m.exec(text)?.[1]);
    if (Number.isNaN(lag)) throw new Error('/metrics has no sightline_search_index_lag_records gauge');
    if (lag === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the search index still lags ${lag} records after ${timeoutMs} ms`);
}

async function preflight(base: string, scenario: Scenario): Promise<void> {
  const init: RequestInit = { method: scenario.method, headers: scenario.headers };
  if (scenario.body !== undefined) init.body = scenario.body;
  const response = await fetch(`${base}${scenario.path}`, init);
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  const problem =
    response.status !== scenario.expect
      ? `status ${response.status}, expected ${scenario.expect}`
      : scenario.check(body);
  if (problem) throw new Error(`${scenario.label}: ${problem}; body ${text.slice(0, 300)}`);
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return at(sorted, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1));
}

/**
 * One autocannon run. Latencies are taken from every response (autocannon's own histogram has
 * 1 ms resolution and skips non-2xx), and any status other than the expected one is fatal.
 */
function load(base: string, scenario: Scenario, seconds: number, connections: number): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const options: autocannon.Options = {
      url: `${base}${scenario.path}`,
      method: scenario.method,
      headers: scenario.headers,
      connections,
      duration: seconds,
    };
    if (scenario.body !== undefined) options.body = scenario.body;
    const instance = autocannon(options, (error: unknown, result: autocannon.Result) => {
      if (error) {
        reject(error instanceof Error ? error : new Error(`autocannon failed: ${JSON.stringify(error)}`));
        return;
      }
      const statuses = Object.fromEntries(
        Object.entries(result.statusCodeStats ?? {}).map(([status, stats]) => [status, stats.count ?? 0]),
      );
      const responses = Object.values(statuses).reduce((sum, count) => sum + count, 0);
      const unexpected = responses - (statuses[String(scenario.expect)] ?? 0);
      if (responses === 0 || unexpected > 0 || result.errors > 0 || result.timeouts > 0) {
        reject(
          new Error(
            `${scenario.label}: expected every response to be ${scenario.expect}; got statuses ${JSON.stringify(statuses)}, ` +
              `${result.errors} connection errors, ${result.timeouts} timeouts`,
          ),
        );
        return;
      }
      const sorted = Float64Array.from(latencies).sort();
      resolve({
        requests_per_s: Math.round(responses / result.duration),
        p50_ms: Number(percentile(sorted, 50).toFixed(2)),
        p99_ms: Number(percentile(sorted, 99).toFixed(2)),
        responses,
      });
    });
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
}

async function measure(base: string, scenario: Scenario, flags: Flags): Promise<Figures> {
  await load(base, scenario, WARMUP_S, flags.connections);
  return load(base, scenario, flags.duration, flags.connections);
}

const pad = (text: string, width: number) => text.padEnd(width);
const num = (value: number, width: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).padStart(width);

function row(label: string, figures: Figures, baselineRps: number): string {
  return `${pad(label, 44)}${num(figures.requests_per_s, 9)}${num(figures.p50_ms, 10, 2)}${num(figures.p99_ms, 10, 2)}${num(figures.requests_per_s / baselineRps, 10, 2)}\n`;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const store = flags.database ? `PostgreSQL (${flags.database.replace(/:[^:@/]*@/, ':***@')})` : 'SQLite';
  process.stdout.write(
    `API benchmark: ${flags.duration} s per scenario after a ${WARMUP_S} s warm-up, ${flags.connections} connections, store ${store}\n` +
      `  server started with ${LIMITER_ARGS.join(' ')} so that bad tokens keep getting 401, not the 429 lock-out\n` +
      `  (the default allows 10 failures per address); the limiter still counts each attempt\n`,
  );
  const storageArgs = prepareStorage(flags);
  // A throwaway operator password, so the server does not print a generated one into the results.
  process.env.SIGHTLINE_ADMIN_PASSWORD = randomBytes(16).toString('hex');
  // The server (a child process) inherits it; the bench reads /metrics with it.
  process.env.SIGHTLINE_METRICS_TOKEN = randomBytes(24).toString('hex');
  const port = await freePort();
  const server = spawnSightline([
    'serve',
    ...storageArgs,
    '--port',
    String(port),
    '--log-level',
    'warn',
    ...LIMITER_ARGS,
  ]);
  active.add(server);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitReady(server, `${base}/readyz`, 60_000);
    const token = await createToken(storageArgs);
    const seeded = await seedRecords(base);
    await waitIndexed(base, 60_000);
    process.stdout.write(
      `  seeded ${seeded.toLocaleString('en-US')} records for tenant demo (search index caught up); token created with the CLI\n`,
    );

    const all = scenarios(token);
    for (const scenario of all) await preflight(base, scenario);
    const results = new Map<string, Figures>();
    for (const scenario of all) results.set(scenario.key, await measure(base, scenario, flags));
    // The baseline again at the end: the spread of the two runs shows how noisy the machine is.
    const baselineAgain = await measure(base, at(all, 0), flags);
    const figuresOf = (key: string) => present(results.get(key), `the figures of ${key}`);
    const baselineFirst = figuresOf('healthz');
    const baselineRps = (baselineFirst.requests_per_s + baselineAgain.requests_per_s) / 2;

    process.stdout.write(
      `\n${pad('scenario', 44)}${'req/s'.padStart(9)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'ratio'.padStart(10)}\n`,
    );
    for (const scenario of all) process.stdout.write(row(scenario.label, figuresOf(scenario.key), baselineRps));
    process.stdout.write(row('GET /healthz again (baseline, 2nd run)', baselineAgain, baselineRps));
    process.stdout.write(
      `ratio: req/s over the mean of the two baseline runs (${Math.round(baselineRps).toLocaleString('en-US')} req/s; ` +
        `they differ by ${((Math.abs(baselineFirst.requests_per_s - baselineAgain.requests_per_s) / baselineRps) * 100).toFixed(1)} %)\n` +
        `check: every response had the expected status (200; 401 for no credentials and the unknown token), no connection errors: OK\n`,
    );
    const log = `${server.stderr()}${server.stdout()}`.trim();
    if (log) {
      const lines = log.split('\n');
      process.stdout.write(
        `server logged ${lines.length} line(s) at warn or above; first: ${lines.slice(0, 5).join('\n    ')}\n`,
      );
    }
    const scenarioFigures = Object.fromEntries(
      all.map((scenario) => {
        const figures = figuresOf(scenario.key);
        return [scenario.key, { ...figures, ratio: Number((figures.requests_per_s / baselineRps).toFixed(3)) }];
      }),
    );
    process.stdout.write(
      `${JSON.stringify({
        store: flags.database ? 'postgres' : 'sqlite',
        duration_s: flags.duration,
        connections: flags.connections,
        baseline_requests_per_s: Math.round(baselineRps),
        baseline_runs_requests_per_s: [baselineFirst.requests_per_s, baselineAgain.requests_per_s],
        scenarios: scenarioFigures,
      })}\n`,
    );
  } finally {
    const { code, killed } = await stopChild(server);
    active.delete(server);
    if (killed) process.stdout.write('note: the server did not exit within 10 s of SIGTERM and was killed\n');
    else if (code !== 0) process.stdout.write(`note: the server exited with code ${code}\n`);
    await runCleanup();
  }
}

let interrupted = false;
const interrupt = (signal: NodeJS.Signals) => {
  if (interrupted) return;
  interrupted = true;
  process.stderr.write(`${signal}: stopping the server and removing temporary data\n`);
  void Promise.all([...active].map((child) => stopChild(child, 2_000)))
    .then(runCleanup)
    .finally(() => process.exit(130));
};
process.on('SIGINT', interrupt);
process.on('SIGTERM', interrupt);

main().catch(async (error: unknown) => {
  process.stderr.write(`bench:api failed: ${error instanceof Error ? error.message : String(error)}\n`);
  await Promise.all([...active].map((child) => stopChild(child)));
  await runCleanup();
  process.exitCode = 1;
});
