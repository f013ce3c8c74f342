// Ingest cost in CPU, not wall clock (which says little on a shared machine): starts `sightline
// serve` on a fresh PostgreSQL schema, runs the ingest load, and reports the CPU seconds the
// server process (all its threads) and its PostgreSQL backends spent per 1,000 records accepted,
// read from /proc at the load's start and end (PostgreSQL must run on this host; short-lived
// parallel workers are not counted).
// Usage: node --import tsx bench/ingest/ingest-cpu.ts --database postgres://… [--duration S] [--connections N]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../test/helpers/processes.js';
import { dropSchema, freshSchema } from '../../test/helpers/postgres.js';
import { runLoad, startServer, stopServer } from '../common/ingest-harness.js';

const argv = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const database = flag('--database', '');
if (!database) throw new Error('--database postgres://… is required');

const TICK_S = 0.01; // USER_HZ on Linux
function cpuS(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_S;
  } catch {
    return 0; // gone
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-cpu-'));
const postgres = freshSchema(database, 'cpu');
const port = await freePort();
const args = ['serve', '--data', dataDir, '--log-level', 'warn', '--port', String(port), '--database', postgres.url];
const server = await startServer('src/cli/run.ts', args, port, 60_000);
const admin = new pg.Client({ connectionString: postgres.baseUrl });
await admin.connect();
try {
  const serverPid = server.process.pid ?? 0;
  // The server's backends: every connection to this database but ours (one bench at a time).
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
  );
  const backends = rows.map((row) => row.pid);
  const sum = () => backends.reduce((total, pid) => total + cpuS(pid), 0);
  const each = new Map(backends.map((pid) => [pid, cpuS(pid)]));
  const before = { server: cpuS(serverPid), pg: sum() };
  const result = await runLoad(`http://127.0.0.1:${port}/log_sink`, {
    connections: Number(flag('--connections', '8')),
    duration: Number(flag('--duration', '10')),
  });
  const serverS = cpuS(serverPid) - before.server;
  const pgS = sum() - before.pg;
  // Which backend did what: its CPU over the load and the start of its last statement.
  const last = await admin.query<{ pid: number; query: string }>(
    `SELECT pid, left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS query FROM pg_stat_activity WHERE pid = ANY($1)`,
    [backends],
  );
  const byBackend = last.rows
    .map((row) => ({ cpu_s: Number((cpuS(row.pid) - (each.get(row.pid) ?? 0)).toFixed(2)), query: row.query }))
    .sort((a, b) => b.cpu_s - a.cpu_s);
  const per1k = (seconds: number) => Number(((seconds / result.records) * 1000).toFixed(4));
  process.stdout.write(
    `${JSON.stringify({
      records: result.records,
      records_per_s: Math.round(result.records / result.seconds),
      server_cpu_s: Number(serverS.toFixed(2)),
      postgres_cpu_s: Number(pgS.toFixed(2)),
      backends: backends.length,
      server_cpu_ms_per_1k: per1k(serverS * 1000),
      postgres_cpu_ms_per_1k: per1k(pgS * 1000),
      records_per_cpu_s: Math.round(result.records / (serverS + pgS)),
      by_backend: byBackend,
    })}\n`,
  );
} finally {
  await admin.end();
  await stopServer(server, 'Sightline server');
  await dropSchema(postgres.baseUrl, postgres.schema);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
