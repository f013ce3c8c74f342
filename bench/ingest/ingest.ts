// `npm run bench:ingest`: durable ingestion throughput of the collector against a no-storage
// baseline measured in the same run on the same machine, then a check that Sightline really
// stored every record it acknowledged. The last stdout line is one JSON object of results.
// With --require-ingest-key on, the tenant requires a collector ingest key and every request
// sends one, to compare with a run without.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnSightline, stopChild } from '../../test/helpers/processes.js';
import { dropSchema, freshSchema } from '../../test/helpers/postgres.js';
import {
  active,
  countStored,
  runLoad,
  followerLag,
  startServer,
  stopServer,
  stopUnderLoad,
  watchPeakRss,
  type LoadResult,
  type ShutdownResult,
} from '../common/ingest-harness.js';

/** SIGTERM is sent this far into a second load, and the exit must come within SHUTDOWN_LIMIT_S. */
const SHUTDOWN_AFTER_S = 3;
const SHUTDOWN_LIMIT_S = 10;

interface Flags {
  duration: number;
  /** Seconds of the same load before each measured one (baseline and Sightline), reported apart. */
  warmup: number;
  connections: number;
  database?: string;
  requireIngestKey: boolean;
}

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { duration: 10, warmup: 1, connections: 8, requireIngestKey: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (
      value === undefined ||
      !['--duration', '--warmup', '--connections', '--database', '--require-ingest-key'].includes(flag ?? '')
    ) {
      throw new Error(
        `unknown or incomplete option ${JSON.stringify(flag)}; usage: bench:ingest [--duration N] [--warmup N] [--connections N] [--database URL] [--require-ingest-key on|off]`,
      );
    }
    i++;
    if (flag === '--database') flags.database = value;
    else if (flag === '--require-ingest-key') {
      if (value !== 'on' && value !== 'off') throw new Error(`--require-ingest-key must be on or off; got ${value}`);
      flags.requireIngestKey = value === 'on';
    } else if (flag === '--warmup') {
      const number = Number(value);
      if (!Number.isInteger(number) || number < 0)
        throw new Error(`--warmup must be a whole number of seconds; got ${JSON.stringify(value)}`);
      flags.warmup = number;
    } else {
      const number = Number(value);
      if (!Number.isInteger(number) || number <= 0)
        throw new Error(`${flag} must be a positive integer; got ${JSON.stringify(value)}`);
      if (flag === '--duration') flags.duration = number;
      else flags.connections = number;
    }
  }
  return flags;
}

function report(name: string, result: LoadResult): void {
  const perS = result.records / result.seconds;
  const mbPerS = result.bytes / 1e6 / result.seconds;
  process.stdout.write(
    `${name}\n` +
      `  ${Math.round(perS).toLocaleString('en-US')} records/s   ${mbPerS.toFixed(2)} MB/s   ` +
      `p50 ${result.p50_ms} ms   p99 ${result.p99_ms} ms   max ${result.max_ms} ms\n` +
      `  ${result.requests} requests in ${result.seconds} s, ${result.records.toLocaleString('en-US')} records accepted, ` +
      `${result.errors} errors (503 retry-later: ${result.retry_later_503}, connection failures: ${result.connection_failures})\n` +
      `  statuses ${JSON.stringify(result.statuses)}${result.failure_messages.length ? `; failures: ${result.failure_messages.join(' | ')}` : ''}\n` +
      (result.warmup.seconds > 0
        ? `  before it, ${result.warmup.seconds} s of the same load to warm up (not in the figures above): ` +
          `${result.warmup.requests} requests, ${result.warmup.records.toLocaleString('en-US')} records, slowest ${result.warmup.max_ms} ms\n`
        : ''),
  );
}

async function baseline(flags: Flags): Promise<LoadResult> {
  const port = await freePort();
  const server = await startServer('bench/ingest/baseline-server.ts', ['--port', String(port)], port, 30_000);
  try {
    return await runLoad(`http://127.0.0.1:${port}/log_sink`, flags);
  } finally {
    await stopServer(server, 'baseline server');
  }
}

/** Temp resources of the Sightline run, so an interrupt can remove them too. */
const cleanup: (() => void | Promise<void>)[] = [];

interface SightlineRun {
  result: LoadResult;
  shutdown: ShutdownResult;
  stored: number;
  peakRssMb: number | undefined;
  serverLog: string;
  /** Records the search index had not reached when the measured load ended. */
  indexLag: number;
  detectionLag: number;
}

async function sightline(flags: Flags): Promise<SightlineRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-'));
  cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const args = ['src/cli/run.ts', 'serve', '--data', dataDir, '--log-level', 'warn'];
  // A fresh schema per run: numbers from a table already holding earlier runs would not compare.
  const postgres = flags.database ? freshSchema(flags.database, 'bench') : undefined;
  if (postgres) {
    args.push('--database', postgres.url);
    cleanup.push(() => dropSchema(postgres.baseUrl, postgres.schema));
  }
  const port = await freePort();
  const [command = '', ...rest] = args;
  const server = await startServer(command, [...rest, '--port', String(port)], port, 60_000);
  const memory = server.process.pid === undefined ? undefined : watchPeakRss(server.process.pid);
  let result: LoadResult;
  let shutdown: ShutdownResult;
  let indexLag: number;
  let detectionLag: number;
  try {
    const key = flags.requireIngestKey ? await requireIngestKey(dataDir, postgres?.url) : undefined;
    const authorization = key && `Bearer ${key}`;
    const url = `http://127.0.0.1:${port}/log_sink`;
    result = await runLoad(url, flags, authorization);
    indexLag = await followerLag(dataDir, postgres, 'search_index');
    detectionLag = await followerLag(dataDir, postgres, 'detection');
    // Shutdown under full load: a second load, SIGTERM part-way through it.
    shutdown = await stopUnderLoad(server, url, flags, {
      afterS: SHUTDOWN_AFTER_S,
      limitS: SHUTDOWN_LIMIT_S,
      ...(authorization ? { authorization } : {}),
    });
  } finally {
    memory?.stop();
    await stopServer(server, 'Sightline server');
  }
  const stored = await countStored(dataDir, postgres);
  const serverLog = `${server.stderr()}${server.stdout()}`.trim();
  return { result, shutdown, stored, peakRssMb: memory?.peakMb(), serverLog, indexLag, detectionLag };
}

/** Creates an ingest key for tenant demo and requires it, with the CLI; returns the key. */
async function requireIngestKey(dataDir: string, databaseUrl: string | undefined): Promise<string> {
  const storage = ['--data', dataDir, ...(databaseUrl ? ['--database', databaseUrl] : [])];
  const cli = async (args: string[]) => {
    const child = spawnSightline([...args, ...storage]);
    const code = await child.exited;
    if (code !== 0) throw new Error(`sightline ${args.join(' ')} failed: ${child.stderr()}`);
    return child.stdout().trim();
  };
  const key = await cli(['ingest-key', 'create', '--tenant', 'demo', '--name', 'bench']);
  await cli(['tenant', 'set', 'demo', '--require-ingest-key', 'on']);
  return key;
}

async function runCleanup(): Promise<void> {
  for (const step of cleanup.splice(0).reverse()) {
    try {
      await step();
    } catch (error) {
      process.stderr.write(`cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const store = flags.database ? `PostgreSQL (${flags.database.replace(/:[^:@/]*@/, ':***@')})` : 'SQLite';
  process.stdout.write(
    `ingest benchmark: ${flags.duration} s per run, ${flags.connections} connections, ~1 MB NDJSON bodies, store ${store}${flags.requireIngestKey ? ', ingest key required and sent' : ''}\n`,
  );

  const base = await baseline(flags);
  report('baseline (node:http + parseBody, nothing stored)', base);
  try {
    const { result, shutdown, stored, peakRssMb, serverLog, indexLag, detectionLag } = await sightline(flags);
    report(`Sightline (${store}, 201 after durable commit)`, result);
    process.stdout.write(
      `  search index: ${indexLag.toLocaleString('en-US')} records behind the log when the load ended ` +
        `(${result.records > 0 ? Math.round((100 * indexLag) / result.records) : 0}% of those accepted; it catches up once the burst ends)\n` +
        `  detection: ${detectionLag.toLocaleString('en-US')} records behind (it rests while records arrive and catches up after the burst)\n`,
    );
    const shutdownS = Number(shutdown.seconds.toFixed(2));
    process.stdout.write(
      `shutdown: SIGTERM ${SHUTDOWN_AFTER_S} s into a second load of ${flags.connections} connections; ` +
        (shutdown.killed
          ? `no exit within ${SHUTDOWN_LIMIT_S} s, killed\n`
          : `exited in ${shutdownS} s with code ${shutdown.code}\n`) +
        `  ${shutdown.load.records.toLocaleString('en-US')} records acknowledged during that load; ` +
        `statuses ${JSON.stringify(shutdown.load.statuses)}, ${shutdown.load.connection_failures} requests refused or cut once it stopped\n`,
    );
    process.stdout.write(`server memory: peak RSS (VmHWM) ${peakRssMb ?? '?'} MB\n`);
    if (serverLog) {
      const lines = serverLog.split('\n');
      process.stdout.write(
        `  server logged ${lines.length} line(s) at warn or above; first: ${lines.slice(0, 5).join('\n    ')}\n`,
      );
    }
    const acknowledged = result.warmup.records + result.records + shutdown.load.records;
    const verified = stored >= acknowledged;
    process.stdout.write(
      `  check: ${stored.toLocaleString('en-US')} records stored for tenant demo, ${acknowledged.toLocaleString('en-US')} acknowledged (warm-up and both loads): ${verified ? 'OK' : 'FAIL, acknowledged records are missing'}\n`,
    );
    if (base.records === 0) throw new Error('the baseline accepted no records; the ratio is meaningless');
    const recordsPerS = result.records / result.seconds;
    const baselinePerS = base.records / base.seconds;
    process.stdout.write(
      `${JSON.stringify({
        records_per_s: Math.round(recordsPerS),
        mb_per_s: Number((result.bytes / 1e6 / result.seconds).toFixed(2)),
        p50_ms: result.p50_ms,
        p99_ms: result.p99_ms,
        baseline_records_per_s: Math.round(baselinePerS),
        ratio: Number((recordsPerS / baselinePerS).toFixed(3)),
        peak_rss_mb: peakRssMb ?? null,
        index_lag_records: indexLag,
        detection_lag_records: detectionLag,
        shutdown_s: shutdown.killed ? null : shutdownS,
        warmup_s: flags.warmup,
        warmup_max_ms: result.warmup.max_ms,
      })}\n`,
    );
    if (!verified || shutdown.killed) process.exitCode = 1;
  } finally {
    await runCleanup();
  }
}

let interrupted = false;
const interrupt = (signal: NodeJS.Signals) => {
  if (interrupted) return;
  interrupted = true;
  process.stderr.write(`${signal}: stopping servers and removing temporary data\n`);
  void Promise.all([...active].map((child) => stopChild(child, 2_000)))
    .then(runCleanup)
    .finally(() => process.exit(130));
};
process.on('SIGINT', interrupt);
process.on('SIGTERM', interrupt);

main().catch(async (error: unknown) => {
  process.stderr.write(`bench:ingest failed: ${error instanceof Error ? error.message : String(error)}\n`);
  await Promise.all([...active].map((child) => stopChild(child)));
  await runCleanup();
  process.exitCode = 1;
});
