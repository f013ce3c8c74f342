// `npm run bench:scale`: the scale-out record path end to end — records/s from the collector
// through NATS JetStream (3 nodes, 3 replicas) to PostgreSQL with one and with two workers,
// publish latency, and how long two workers take to drain a backlog of --backlog records —
// against the single process on PostgreSQL measured in the same run. Detection is off in every
// run, so the figures are the record path's. The last stdout line is one JSON object.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropSchema, freshSchema, type FreshSchema } from '../test/helpers/postgres.js';
import { NatsCluster, natsServerBinary } from '../test/helpers/nats.js';
import { stopChild } from '../test/helpers/processes.js';
import { connect, postRecords, startNode, type NodeProcess } from '../test/helpers/scale.js';
import { openDatabase } from '../src/storage/database.js';
import { createTenant } from '../src/identity/tenant-service.js';

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
const RECORDS = flag('--records', 200_000);
const BACKLOG = flag('--backlog', 1_000_000);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-scale-'));
const nodes: NodeProcess[] = [];
const schemas: FreshSchema[] = [];
let nats: NatsCluster | undefined;

function line(n: number): string {
  return `{"message":"bench record ${n} user=u${n % 97} action=login result=ok","n":${n},"host":"h${n % 13}"}`;
}

/** Sends `count` records over CONNECTIONS concurrent senders; returns request latencies (ms). */
async function send(port: number, count: number, offset = 0): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    for (;;) {
      const chunk = next++;
      const from = chunk * REQUEST_RECORDS;
      if (from >= count) return;
      const lines = Array.from({ length: Math.min(REQUEST_RECORDS, count - from) }, (_v, i) => line(offset + from + i));
      const started = performance.now();
      const status = await postRecords(port, TENANTS[chunk % TENANTS.length] ?? 'alpha', lines);
      if (status !== 201) throw new Error(`collector answered ${status}`);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return latencies;
}

async function storedCount(url: string): Promise<number> {
  const client = await connect(url);
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM telemetry_records');
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

async function waitStored(url: string, count: number): Promise<void> {
  while ((await storedCount(url)) < count) await new Promise((resolve) => setTimeout(resolve, 250));
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.floor(sorted.length * 0.99)] ?? 0) * 10) / 10;
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

async function node(name: string, args: string[]): Promise<NodeProcess> {
  const started = await startNode(name, [...args, '--detection', 'off', '--data', path.join(dir, name)]);
  nodes.push(started);
  return started;
}

/** The embedded single process on PostgreSQL: records/s until every record is stored. */
async function baseline(): Promise<{ recordsPerSecond: number; requestP99Ms: number }> {
  const fresh = schema('bench_scale_base');
  const server = await node('baseline', ['--database', fresh.url]);
  await addTenants(fresh.url);
  const started = performance.now();
  const latencies = await send(server.port, RECORDS);
  await waitStored(fresh.url, RECORDS);
  const seconds = (performance.now() - started) / 1000;
  await stopChild(server.child);
  return { recordsPerSecond: Math.round(RECORDS / seconds), requestP99Ms: p99(latencies) };
}

/** Collector → JetStream → `workers` workers → PostgreSQL: records/s until every record is applied. */
async function scaled(nats: NatsCluster, workers: number, stream: string) {
  const fresh = schema(`bench_scale_w${workers}`);
  const common = ['--queue', nats.urls, '--queue-stream', stream, '--database', fresh.url];
  const api = await node(`api-${stream}`, ['--role', 'api', ...common]);
  await addTenants(fresh.url);
  const collector = await node(`col-${stream}`, ['--role', 'collector', ...common]);
  const started = await Promise.all(
    Array.from({ length: workers }, (_v, i) => node(`w${i}-${stream}`, ['--role', 'worker', ...common])),
  );
  const began = performance.now();
  const latencies = await send(collector.port, RECORDS);
  const publishSeconds = (performance.now() - began) / 1000;
  await waitStored(fresh.url, RECORDS);
  const seconds = (performance.now() - began) / 1000;
  for (const child of [api, collector, ...started]) await stopChild(child.child);
  return {
    recordsPerSecond: Math.round(RECORDS / seconds),
    acceptedPerSecond: Math.round(RECORDS / publishSeconds),
    requestP99Ms: p99(latencies),
  };
}

/** BACKLOG records published with no worker running; then two workers drain them. */
async function drain(nats: NatsCluster) {
  const fresh = schema('bench_scale_drain');
  const common = ['--queue', nats.urls, '--queue-stream', 'BENCH_DRAIN', '--database', fresh.url];
  await node('api-drain', ['--role', 'api', ...common]);
  await addTenants(fresh.url);
  const collector = await node('col-drain', ['--role', 'collector', ...common]);
  const publishStarted = performance.now();
  const latencies = await send(collector.port, BACKLOG);
  const publishSeconds = (performance.now() - publishStarted) / 1000;
  const began = performance.now();
  await Promise.all([0, 1].map((i) => node(`w${i}-drain`, ['--role', 'worker', ...common])));
  await waitStored(fresh.url, BACKLOG);
  return {
    drainSeconds: Math.round((performance.now() - began) / 100) / 10,
    publishedPerSecond: Math.round(BACKLOG / publishSeconds),
    requestP99Ms: p99(latencies),
  };
}

async function main(): Promise<void> {
  const binary = natsServerBinary('bench:scale is');
  if (!binary) throw new Error('bench:scale needs nats-server');
  nats = await NatsCluster.start(binary, dir);
  const base = await baseline();
  console.log(`single process on PostgreSQL: ${base.recordsPerSecond} records/s, request p99 ${base.requestP99Ms} ms`);
  const one = await scaled(nats, 1, 'BENCH_W1');
  console.log(
    `1 worker: ${one.recordsPerSecond} records/s end to end (${one.acceptedPerSecond}/s accepted), request p99 ${one.requestP99Ms} ms`,
  );
  const two = await scaled(nats, 2, 'BENCH_W2');
  console.log(
    `2 workers: ${two.recordsPerSecond} records/s end to end (${two.acceptedPerSecond}/s accepted), request p99 ${two.requestP99Ms} ms`,
  );
  const backlog = await drain(nats);
  console.log(
    `backlog of ${BACKLOG}: published at ${backlog.publishedPerSecond}/s, drained by 2 workers in ${backlog.drainSeconds} s`,
  );
  const cores = os.cpus().length;
  console.log(
    JSON.stringify({
      bench: 'scale',
      cores,
      records: RECORDS,
      request_records: REQUEST_RECORDS,
      baseline_single_process_pg_records_per_s: base.recordsPerSecond,
      one_worker_records_per_s: one.recordsPerSecond,
      two_workers_records_per_s: two.recordsPerSecond,
      one_worker_ratio_to_baseline: Math.round((one.recordsPerSecond / base.recordsPerSecond) * 100) / 100,
      two_workers_ratio_to_one: Math.round((two.recordsPerSecond / one.recordsPerSecond) * 100) / 100,
      collector_accepted_records_per_s: one.acceptedPerSecond,
      publish_request_p99_ms: one.requestP99Ms,
      baseline_request_p99_ms: base.requestP99Ms,
      backlog_records: BACKLOG,
      backlog_publish_records_per_s: backlog.publishedPerSecond,
      backlog_drain_seconds: backlog.drainSeconds,
      backlog_drain_records_per_s: Math.round(BACKLOG / backlog.drainSeconds),
      per_core_two_workers_records_per_s: Math.round(two.recordsPerSecond / cores),
    }),
  );
}

async function cleanup(): Promise<void> {
  await Promise.all(nodes.map((started) => stopChild(started.child, 5_000)));
  await nats?.stop();
  for (const fresh of schemas) await dropSchema(fresh.baseUrl, fresh.schema).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
}

main()
  .then(cleanup)
  .catch(async (error: unknown) => {
    process.stderr.write(`bench:scale failed: ${error instanceof Error ? error.message : String(error)}\n`);
    await cleanup();
    process.exitCode = 1;
  });
