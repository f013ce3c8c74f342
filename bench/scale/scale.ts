// `npm run bench:scale`: the scale-out path end to end — records/s from the collector through
// NATS JetStream (3 nodes, 3 replicas) to PostgreSQL with one and with two workers, publish
// latency, and how long two workers take to drain a backlog of --backlog records — against the
// single process on PostgreSQL measured in the same run. `--detection on` (the default) runs
// the worker's real path: the bundled rules loaded as in production, fed the demo traffic's mix
// of Windows, web and Linux records with attacks woven in; `off` measures the record path alone
// on uniform lines; `both` runs the two one after the other. Beside the wall-clock rates, each
// process's CPU seconds (from /proc) give records per core-second, which hold however busy the
// machine is. The last stdout line is one JSON object.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropSchema, freshSchema, type FreshSchema } from '../../test/helpers/postgres.js';
import { NatsCluster, natsServerBinary } from '../../test/helpers/nats.js';
import { stopChild } from '../../test/helpers/processes.js';
import { connect, postRecords, startNode, type NodeProcess } from '../../test/helpers/scale.js';
import { openDatabase } from '../../src/storage/database.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import {
  benchLine,
  cpuBetween,
  processUse,
  readUse,
  round,
  trafficLines,
  type RecordSource,
} from './scale-resources.js';

const PG = process.env.SIGHTLINE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TENANTS = ['alpha', 'bravo', 'charlie', 'delta'];
const REQUEST_RECORDS = 500;
const CONNECTIONS = 8;

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}
function detectionModes(): boolean[] {
  const at = process.argv.indexOf('--detection');
  const value = at === -1 ? 'on' : process.argv[at + 1];
  if (value === 'on') return [true];
  if (value === 'off') return [false];
  if (value === 'both') return [false, true];
  throw new Error('--detection must be on, off or both');
}
const RECORDS = flag('--records', 200_000);
const BACKLOG = flag('--backlog', 1_000_000);
const MODES = detectionModes();

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-scale-'));
const nodes: NodeProcess[] = [];
const schemas: FreshSchema[] = [];
let nats: NatsCluster | undefined;

/** Sends `count` records over CONNECTIONS concurrent senders; returns request latencies (ms). */
async function send(port: number, count: number, source: RecordSource): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    for (;;) {
      const chunk = next++;
      const from = chunk * REQUEST_RECORDS;
      if (from >= count) return;
      const lines = Array.from({ length: Math.min(REQUEST_RECORDS, count - from) }, (_v, i) => source(from + i));
      const started = performance.now();
      const status = await postRecords(port, TENANTS[chunk % TENANTS.length] ?? 'alpha', lines);
      if (status !== 201) throw new Error(`collector answered ${status}`);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return latencies;
}

async function count(url: string, table: 'telemetry_records' | 'observations'): Promise<number> {
  const client = await connect(url);
  try {
    const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

async function waitStored(url: string, records: number): Promise<void> {
  while ((await count(url, 'telemetry_records')) < records) await new Promise((resolve) => setTimeout(resolve, 250));
}

/** How long the single process's detection may stand still before its figure is given up. */
const DETECTION_STALL_MS = 60_000;

/**
 * The single process detects behind its inserts: until its detection lag is zero. Should it
 * stand still all the same, the reason (the oldest open transaction on the server), not a figure.
 */
async function waitDetected(port: number, url: string): Promise<string | undefined> {
  let lag = -1;
  let moved = Date.now();
  for (;;) {
    const body = (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { detection_lag_records: number };
    if (body.detection_lag_records === 0) return undefined;
    if (body.detection_lag_records !== lag) [lag, moved] = [body.detection_lag_records, Date.now()];
    if (Date.now() - moved > DETECTION_STALL_MS)
      return `detection stood still at a lag of ${lag}: ${await oldestTransaction(url)}`;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function oldestTransaction(url: string): Promise<string> {
  const client = await connect(url);
  try {
    const { rows } = await client.query<{ pid: number; datname: string; state: string; seconds: number }>(
      `SELECT pid, datname, state, extract(epoch FROM now() - xact_start)::int AS seconds FROM pg_stat_activity
        WHERE xact_start IS NOT NULL AND pid <> pg_backend_pid() ORDER BY xact_start LIMIT 1`,
    );
    const row = rows[0];
    return row
      ? `the oldest open transaction is ${row.seconds} s old (pid ${row.pid}, database ${row.datname}, ${row.state})`
      : 'no open transaction found';
  } finally {
    await client.end();
  }
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.floor(sorted.length * 0.99)] ?? 0, 1);
}

function schema(prefix: string): FreshSchema {
  const fresh = freshSchema(PG, prefix);
  schemas.push(fresh);
  return fresh;
}

async function addTenants(url: string): Promise<void> {
  const database = await openDatabase({ databaseUrl: url, dataDir: dir });
  for (const codeName of TENANTS) await createTenant(database.db, { codeName });
  await database.close();
}

async function node(name: string, args: string[], detect: boolean): Promise<NodeProcess> {
  const started = await startNode(name, [
    ...args,
    '--detection',
    detect ? 'on' : 'off',
    '--data',
    path.join(dir, name),
  ]);
  nodes.push(started);
  return started;
}

const pidOf = (started: NodeProcess): number => started.child.process.pid ?? 0;
const load = (): number => round(os.loadavg()[0] ?? 0, 1);
const perCoreSecond = (records: number, cpuSeconds: number): number =>
  cpuSeconds > 0 ? Math.round(records / cpuSeconds) : 0;

/** The embedded single process on PostgreSQL: records/s until every record is stored (and detected). */
async function baseline(detect: boolean, source: RecordSource) {
  const fresh = schema('bench_scale_base');
  const server = await node(`baseline-${detect}`, ['--database', fresh.url], detect);
  await addTenants(fresh.url);
  const before = readUse([pidOf(server)]);
  const started = performance.now();
  const latencies = await send(server.port, RECORDS, source);
  await waitStored(fresh.url, RECORDS);
  const stalled = detect ? await waitDetected(server.port, fresh.url) : undefined;
  if (stalled) console.log(`[detection on] single process on PostgreSQL: no figure, ${stalled}`);
  const seconds = stalled ? Number.NaN : (performance.now() - started) / 1000;
  const cpu = cpuBetween(before, [pidOf(server)]);
  const peakRssMiB = processUse(pidOf(server)).peakRssMiB;
  const observations = await count(fresh.url, 'observations');
  await stopChild(server.child);
  return {
    recordsPerSecond: Math.round(RECORDS / seconds),
    requestP99Ms: p99(latencies),
    processRecordsPerCpuSecond: perCoreSecond(RECORDS, cpu),
    peakRssMiB,
    observations,
    load: load(),
  };
}

/** Collector → JetStream → `workers` workers → PostgreSQL: records/s until every record is applied. */
async function scaled(nats: NatsCluster, workers: number, stream: string, detect: boolean, source: RecordSource) {
  const fresh = schema(`bench_scale_w${workers}`);
  const common = ['--queue', nats.urls, '--queue-stream', stream, '--database', fresh.url];
  const api = await node(`api-${stream}`, ['--role', 'api', ...common], detect);
  await addTenants(fresh.url);
  const collector = await node(`col-${stream}`, ['--role', 'collector', ...common], detect);
  const started = await Promise.all(
    Array.from({ length: workers }, (_v, i) => node(`w${i}-${stream}`, ['--role', 'worker', ...common], detect)),
  );
  const workerPids = started.map(pidOf);
  const before = readUse([pidOf(collector), ...workerPids, ...nats.pids()]);
  const began = performance.now();
  const latencies = await send(collector.port, RECORDS, source);
  const publishSeconds = (performance.now() - began) / 1000;
  const collectorCpu = cpuBetween(before, [pidOf(collector)]);
  await waitStored(fresh.url, RECORDS);
  const seconds = (performance.now() - began) / 1000;
  const workerCpu = cpuBetween(before, workerPids);
  const natsCpu = cpuBetween(before, nats.pids());
  const result = {
    recordsPerSecond: Math.round(RECORDS / seconds),
    acceptedPerSecond: Math.round(RECORDS / publishSeconds),
    requestP99Ms: p99(latencies),
    collectorRecordsPerCpuSecond: perCoreSecond(RECORDS, collectorCpu),
    workerRecordsPerCpuSecond: perCoreSecond(RECORDS, workerCpu),
    natsRecordsPerCpuSecond: perCoreSecond(RECORDS, natsCpu),
    collectorPeakRssMiB: processUse(pidOf(collector)).peakRssMiB,
    workerPeakRssMiB: Math.max(...workerPids.map((pid) => processUse(pid).peakRssMiB)),
    observations: await count(fresh.url, 'observations'),
    load: load(),
  };
  for (const child of [api, collector, ...started]) await stopChild(child.child);
  return result;
}

/** BACKLOG records published with no worker running; then two workers drain them. */
async function drain(nats: NatsCluster, stream: string, detect: boolean, source: RecordSource) {
  const fresh = schema('bench_scale_drain');
  const common = ['--queue', nats.urls, '--queue-stream', stream, '--database', fresh.url];
  const api = await node(`api-${stream}`, ['--role', 'api', ...common], detect);
  await addTenants(fresh.url);
  const collector = await node(`col-${stream}`, ['--role', 'collector', ...common], detect);
  const publishStarted = performance.now();
  const latencies = await send(collector.port, BACKLOG, source);
  const publishSeconds = (performance.now() - publishStarted) / 1000;
  const publishLoad = load();
  const began = performance.now();
  const workers = await Promise.all(
    [0, 1].map((i) => node(`w${i}-${stream}`, ['--role', 'worker', ...common], detect)),
  );
  const before = readUse(workers.map(pidOf));
  await waitStored(fresh.url, BACKLOG);
  const drainSeconds = (performance.now() - began) / 1000;
  const result = {
    drainSeconds: round(drainSeconds, 1),
    drainedPerSecond: Math.round(BACKLOG / drainSeconds),
    publishedPerSecond: Math.round(BACKLOG / publishSeconds),
    requestP99Ms: p99(latencies),
    workerRecordsPerCpuSecond: perCoreSecond(BACKLOG, cpuBetween(before, workers.map(pidOf))),
    workerPeakRssMiB: Math.max(...workers.map((started) => processUse(pidOf(started)).peakRssMiB)),
    collectorPeakRssMiB: processUse(pidOf(collector)).peakRssMiB,
    natsPeakRssMiB: Math.max(...nats.pids().map((pid) => processUse(pid).peakRssMiB)),
    publishLoad,
    load: load(),
  };
  for (const child of [api, collector, ...workers]) await stopChild(child.child);
  return result;
}

async function measure(nats: NatsCluster, detect: boolean) {
  const mode = detect ? 'detection on' : 'detection off';
  const source = detect ? trafficLines(Date.UTC(2026, 10, 1)) : benchLine;
  const tag = detect ? 'ON' : 'OFF';
  const base = await baseline(detect, source);
  console.log(
    `[${mode}] single process on PostgreSQL: ${base.recordsPerSecond} records/s, request p99 ${base.requestP99Ms} ms, ` +
      `${base.processRecordsPerCpuSecond} records per CPU-second of the process, peak RSS ${base.peakRssMiB} MiB, ` +
      `${base.observations} observations (load ${base.load})`,
  );
  const one = await scaled(nats, 1, `BENCH_W1_${tag}`, detect, source);
  const two = await scaled(nats, 2, `BENCH_W2_${tag}`, detect, source);
  for (const [label, run] of [
    ['1 worker', one],
    ['2 workers', two],
  ] as const)
    console.log(
      `[${mode}] ${label}: ${run.recordsPerSecond} records/s end to end (${run.acceptedPerSecond}/s accepted), ` +
        `request p99 ${run.requestP99Ms} ms; per CPU-second: collector ${run.collectorRecordsPerCpuSecond}, ` +
        `workers ${run.workerRecordsPerCpuSecond}, NATS (3 servers) ${run.natsRecordsPerCpuSecond}; peak RSS ` +
        `collector ${run.collectorPeakRssMiB} MiB, worker ${run.workerPeakRssMiB} MiB; ${run.observations} observations (load ${run.load})`,
    );
  const backlog = await drain(nats, `BENCH_DRAIN_${tag}`, detect, source);
  console.log(
    `[${mode}] backlog of ${BACKLOG}: published at ${backlog.publishedPerSecond}/s (p99 ${backlog.requestP99Ms} ms, ` +
      `load ${backlog.publishLoad}), drained by 2 workers in ${backlog.drainSeconds} s (${backlog.drainedPerSecond}/s, ` +
      `${backlog.workerRecordsPerCpuSecond} per worker CPU-second); peak RSS worker ${backlog.workerPeakRssMiB} MiB, ` +
      `NATS server ${backlog.natsPeakRssMiB} MiB (load ${backlog.load})`,
  );
  const cores = os.cpus().length;
  return {
    baseline_single_process_pg_records_per_s: base.recordsPerSecond,
    baseline_request_p99_ms: base.requestP99Ms,
    one_worker_records_per_s: one.recordsPerSecond,
    two_workers_records_per_s: two.recordsPerSecond,
    one_worker_ratio_to_baseline: round(one.recordsPerSecond / base.recordsPerSecond, 2),
    two_workers_ratio_to_one: round(two.recordsPerSecond / one.recordsPerSecond, 2),
    collector_accepted_records_per_s: one.acceptedPerSecond,
    publish_request_p99_ms: one.requestP99Ms,
    backlog_records: BACKLOG,
    backlog_publish_records_per_s: backlog.publishedPerSecond,
    backlog_publish_request_p99_ms: backlog.requestP99Ms,
    backlog_drain_seconds: backlog.drainSeconds,
    backlog_drain_records_per_s: backlog.drainedPerSecond,
    per_core_baseline_records_per_s: Math.round(base.recordsPerSecond / cores),
    per_core_two_workers_records_per_s: Math.round(two.recordsPerSecond / cores),
    baseline_process_records_per_cpu_s: base.processRecordsPerCpuSecond,
    collector_records_per_cpu_s: one.collectorRecordsPerCpuSecond,
    worker_records_per_cpu_s: two.workerRecordsPerCpuSecond,
    drain_worker_records_per_cpu_s: backlog.workerRecordsPerCpuSecond,
    nats_records_per_cpu_s: one.natsRecordsPerCpuSecond,
    peak_rss_mib: {
      baseline: base.peakRssMiB,
      collector: Math.max(one.collectorPeakRssMiB, backlog.collectorPeakRssMiB),
      worker: Math.max(one.workerPeakRssMiB, two.workerPeakRssMiB, backlog.workerPeakRssMiB),
      nats_server: backlog.natsPeakRssMiB,
    },
    observations: { baseline: base.observations, one_worker: one.observations, two_workers: two.observations },
    load_1m: { baseline: base.load, one_worker: one.load, two_workers: two.load, backlog: backlog.load },
  };
}

async function main(): Promise<void> {
  const binary = natsServerBinary('bench:scale is');
  if (!binary) throw new Error('bench:scale needs nats-server');
  nats = await NatsCluster.start(binary, dir);
  const runs: Record<string, Awaited<ReturnType<typeof measure>>> = {};
  for (const detect of MODES) runs[detect ? 'detection_on' : 'detection_off'] = await measure(nats, detect);
  console.log(
    JSON.stringify({
      bench: 'scale',
      cores: os.cpus().length,
      records: RECORDS,
      request_records: REQUEST_RECORDS,
      ...runs,
    }),
  );
}

async function cleanup(): Promise<void> {
  await Promise.all(nodes.map((started) => stopChild(started.child, 5_000)));
  await nats?.stop();
  for (const fresh of schemas) await dropSchema(fresh.baseUrl, fresh.schema).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
}

// Interrupted, it still stops the NATS servers and nodes and drops its schemas.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stderr.write(`bench:scale: ${signal}, cleaning up\n`);
    void cleanup().finally(() => process.exit(130));
  });

main()
  .then(cleanup)
  .catch(async (error: unknown) => {
    process.stderr.write(`bench:scale failed: ${error instanceof Error ? error.message : String(error)}\n`);
    await cleanup();
    process.exitCode = 1;
  });
