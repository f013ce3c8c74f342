// What the ingestion benchmarks share: starting and stopping servers as child processes,
// running a load generator in its own process and reading its result line, and counting what
// a run stored, straight from the database.
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { spawnTsx, stopChild, waitReady, type Child } from '../test/helpers/processes.js';
import type { FreshSchema } from '../test/helpers/postgres.js';

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

export async function runLoad(
  url: string,
  flags: { connections: number; duration: number },
  authorization?: string,
): Promise<LoadResult> {
  const generator = spawnTsx('bench/load-generator.ts', [
    '--url',
    url,
    '--connections',
    String(flags.connections),
    '--duration',
    String(flags.duration),
    ...(authorization ? ['--authorization', authorization] : []),
  ]);
  active.add(generator);
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
  const server = spawnTsx(script, args);
  active.add(server);
  await waitReady(server, `http://127.0.0.1:${port}/readyz`, readyTimeoutMs);
  return server;
}

export async function stopServer(server: Child, name: string): Promise<void> {
  const { code, killed } = await stopChild(server);
  active.delete(server);
  if (killed) process.stdout.write(`  note: ${name} did not exit within 10 s of SIGTERM and was killed\n`);
  else if (code !== 0) process.stdout.write(`  note: ${name} exited with code ${code}\n`);
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
