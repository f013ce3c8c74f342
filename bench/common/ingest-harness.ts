// What the ingestion benchmarks share: starting and stopping servers as child processes,
// running a load generator in its own process and reading its result line, and counting what
// a run stored, straight from the database.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { spawnSightline, spawnTsx, stopChild, waitReady, type Child } from '../../test/helpers/processes.js';
import type { FreshSchema } from '../../test/helpers/postgres.js';

export interface LoadResult {
  records: number;
  bytes: number;
  seconds: number;
  requests: number;
  errors: number;
  retry_later_503: number;
  connection_failures: number;
  statuses: Record<string, number>;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  failure_messages: string[];
  /** The load run before the measured one (--warmup), counted apart. */
  warmup: { seconds: number; requests: number; records: number; max_ms: number };
}

function isLoadResult(value: unknown): value is LoadResult {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return ['records', 'bytes', 'seconds', 'requests', 'errors', 'p50_ms', 'p99_ms'].every(
    (key) => typeof record[key] === 'number',
  );
}

/** Active children, so that an interrupted run still stops its servers. */
export const active = new Set<Child>();

/** What load-generator.ts prints once its first answer has arrived. */
const LOAD_FLOWING = 'load flowing';

export async function runLoad(
  url: string,
  flags: { connections: number; duration: number; rate?: number; bodyKb?: number; warmup?: number },
  authorization?: string,
  onStarted?: (generator: Child) => void,
): Promise<LoadResult> {
  const generator = spawnTsx('bench/common/load-generator.ts', [
    '--url',
    url,
    '--connections',
    String(flags.connections),
    '--duration',
    String(flags.duration),
    ...(flags.rate === undefined ? [] : ['--rate', String(flags.rate)]),
    ...(flags.bodyKb === undefined ? [] : ['--body-kb', String(flags.bodyKb)]),
    ...(flags.warmup === undefined ? [] : ['--warmup', String(flags.warmup)]),
    ...(authorization ? ['--authorization', authorization] : []),
  ]);
  active.add(generator);
  onStarted?.(generator);
  const code = await generator.exited;
  active.delete(generator);
  const lastLine = generator.stdout().trim().split('\n').pop() ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(lastLine);
  } catch {
    parsed = undefined;
  }
  if (code !== 0 || !isLoadResult(parsed))
    throw new Error(`load generator failed (exit ${code}):\n${generator.stderr()}${generator.stdout()}`);
  return parsed;
}

export async function startServer(
  script: string,
  args: string[],
  port: number,
  readyTimeoutMs: number,
): Promise<Child> {
  // The sightline command gets the Node flags its launchers give it (test/helpers/processes.ts).
  const server = script === 'src/cli/run.ts' ? spawnSightline(args) : spawnTsx(script, args);
  active.add(server);
  const url = `http://127.0.0.1:${port}/readyz`;
  try {
    await waitReady(server, url, readyTimeoutMs);
  } catch (error) {
    // The readiness answer names the check that held the server back (database, record writer,
    // write queue); without it a timeout says nothing about why.
    const said = await fetch(url, { signal: AbortSignal.timeout(5_000) })
      .then(async (response) => `${response.status} ${await response.text()}`)
      .catch((failure: unknown) => `no answer (${failure instanceof Error ? failure.message : String(failure)})`);
    await stopServer(server, 'server that never became ready');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n/readyz last answered: ${said}`, {
      cause: error,
    });
  }
  return server;
}

export async function stopServer(server: Child, name: string): Promise<void> {
  const { code, killed } = await stopChild(server);
  active.delete(server);
  if (killed) process.stdout.write(`  note: ${name} did not exit within 10 s of SIGTERM and was killed\n`);
  else if (code !== 0) process.stdout.write(`  note: ${name} exited with code ${code}\n`);
}

export interface Memory {
  hwmMb: number;
  rssMb: number;
}

/** The process's peak resident set so far (VmHWM) and its resident set now, from /proc. */
export function memoryOf(pid: number): Memory | undefined {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // Not Linux, or the process has exited: no figure rather than a wrong one.
    return undefined;
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { hwmMb: Math.round(kb('VmHWM') / 1024), rssMb: Math.round(kb('VmRSS') / 1024) };
}

/** Samples a process's VmHWM until stopped; the last reading is its peak over its whole life. */
export function watchPeakRss(pid: number, everyMs = 200): { peakMb: () => number | undefined; stop: () => void } {
  let peak: number | undefined;
  const sample = () => {
    const memory = memoryOf(pid);
    if (memory) peak = Math.max(peak ?? 0, memory.hwmMb);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return { peakMb: () => peak, stop: () => clearInterval(timer) };
}

/** Longest wait for the shutdown phase's load to start flowing. */
const FLOWING_TIMEOUT_S = 60;

export interface ShutdownResult {
  /** The load running when SIGTERM was sent, counted like the measured run. */
  load: LoadResult;
  /** Seconds from SIGTERM to the process's exit. */
  seconds: number;
  code: number | null;
  /** Whether it had to be killed (no exit within `limitS`). */
  killed: boolean;
}

/**
 * Starts a second load on the server and, `afterS` into it, sends SIGTERM and times the exit:
 * the server must stop taking requests, answer or close those in flight and commit what it
 * acknowledged. Killed after `limitS`. The load's acknowledged records still count as stored.
 */
export async function stopUnderLoad(
  server: Child,
  url: string,
  flags: { connections: number },
  options: { afterS: number; limitS: number; authorization?: string },
): Promise<ShutdownResult> {
  let generator: Child | undefined;
  const load = runLoad(
    url,
    { connections: flags.connections, duration: options.afterS + options.limitS + FLOWING_TIMEOUT_S },
    options.authorization,
    (child) => (generator = child),
  );
  // The generator takes a while to start on a busy machine: the clock starts at its first answer.
  const waitUntil = Date.now() + FLOWING_TIMEOUT_S * 1000;
  while (!generator?.stdout().includes(LOAD_FLOWING) && Date.now() < waitUntil)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, options.afterS * 1000));
  const started = performance.now();
  server.process.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), options.limitS * 1000));
  const outcome = await Promise.race([server.exited, timeout]);
  const seconds = (performance.now() - started) / 1000;
  let killed = false;
  if (outcome === 'timeout') {
    killed = true;
    server.process.kill('SIGKILL');
    await server.exited;
  }
  active.delete(server);
  // The server is gone: the generator stops and reports what was acknowledged before it went.
  generator?.process.kill('SIGTERM');
  return { load: await load, seconds, code: outcome === 'timeout' ? null : outcome, killed };
}

export async function countStored(dataDir: string, postgres: FreshSchema | undefined): Promise<number> {
  const query = (table: string, tenants: string) =>
    `SELECT count(*) AS n FROM ${table} r JOIN ${tenants} t ON t.id = r.tenant_id WHERE t.code_name = 'demo'`;
  if (!postgres) {
    const db = new SQLite(path.join(dataDir, 'sightline.db'), { readonly: true });
    try {
      const row = db.prepare(query('telemetry_records', 'tenants')).get() as { n: number };
      return row.n;
    } finally {
      db.close();
    }
  }
  const { baseUrl, schema } = postgres;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>(query(`${schema}.telemetry_records`, `${schema}.tenants`));
    return Number(result.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * How many records of the log the search index has not reached yet, read from the database
 * while the server runs (SQLite's WAL lets a reader in beside the writer).
 */
export async function followerLag(
  dataDir: string,
  postgres: FreshSchema | undefined,
  follower: 'search_index' | 'detection',
): Promise<number> {
  const query = (records: string, cursors: string) =>
    `SELECT (SELECT coalesce(max(seq), 0) FROM ${records}) - (SELECT seq FROM ${cursors} WHERE name = '${follower}') AS n`;
  if (!postgres) {
    const db = new SQLite(path.join(dataDir, 'sightline.db'), { readonly: true });
    try {
      return (db.prepare(query('telemetry_records', 'log_cursors')).get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: postgres.baseUrl });
  await client.connect();
  try {
    const { schema } = postgres;
    const result = await client.query<{ n: string }>(query(`${schema}.telemetry_records`, `${schema}.log_cursors`));
    return Number(result.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}
