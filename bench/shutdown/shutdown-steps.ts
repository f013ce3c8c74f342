// Shutdown under load, step by step: starts `sightline serve` (log level info) on a fresh
// PostgreSQL schema or SQLite, loads it, sends SIGTERM `--after` seconds into the load and prints
// the exit time and the server's own "closed" line (each closing step's milliseconds).
// Usage: node --import tsx bench/shutdown/shutdown-steps.ts [--database postgres://…] [--after S] [--connections N]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/helpers/processes.js';
import { dropSchema, freshSchema } from '../../test/helpers/postgres.js';
import { startServer, stopServer, stopUnderLoad } from '../common/ingest-harness.js';

const argv = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const database = flag('--database', '');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-shutdown-'));
const postgres = database ? freshSchema(database, 'shutdown') : undefined;
const port = await freePort();
const args = ['serve', '--data', dataDir, '--log-level', 'info', '--port', String(port)];
if (postgres) args.push('--database', postgres.url);
const server = await startServer('src/cli/run.ts', args, port, 60_000);
try {
  const result = await stopUnderLoad(
    server,
    `http://127.0.0.1:${port}/log_sink`,
    { connections: Number(flag('--connections', '8')) },
    { afterS: Number(flag('--after', '3')), limitS: 20 },
  );
  const closed = server
    .stdout()
    .split('\n')
    .find((line) => line.includes('"msg":"closed"'));
  const steps = closed ? (JSON.parse(closed) as { steps_ms: unknown }).steps_ms : 'no closed line';
  process.stdout.write(
    `${JSON.stringify({ shutdown_s: Number(result.seconds.toFixed(2)), code: result.code, acknowledged: result.load.records, steps_ms: steps })}\n`,
  );
} finally {
  await stopServer(server, 'Sightline server');
  if (postgres) await dropSchema(postgres.baseUrl, postgres.schema);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
