// One bench:timeliness run: a fresh server, its tenants and their reading tokens, an offered
// load (open loop, or a closed-loop burst) with markers, and what the run measured.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnSightline, spawnTsx, stopChild, type Child } from '../../test/helpers/processes.js';
import { dropSchema, freshSchema } from '../../test/helpers/postgres.js';
import { active, runLoad, startServer, watchPeakRss } from '../common/ingest-harness.js';
import { busiestThreads, LagWatch, MarkerWatch, quantiles, threadCpu, type Quantiles, type Tenant } from './watch.js';

export interface RunPlan {
  /** PostgreSQL base URL, or undefined for SQLite. */
  postgres?: string;
  /** Records per second offered per tenant code, open loop. */
  offers: Record<string, number>;
  durationS: number;
  /** Instead of the open-loop offer: this many seconds of closed-loop load as fast as it is taken. */
  burstS?: number;
  /** Seconds to keep watching after the offer, for markers not yet seen. */
  drainS: number;
}

export interface RunResult {
  offered_per_s: number;
  accepted_per_s: number;
  ack_p99_ms: number;
  skipped_requests: number;
  /** Per tenant: time from a marker's 201 to its observation, and to a search finding it. */
  ttd: Record<string, Quantiles>;
  searchable: Record<string, Quantiles>;
  /** Markers acknowledged during the offer and after it (a burst's recovery), apart. */
  markers: { tenant: string; ackedAtS: number; detectedS?: number; searchableS?: number }[];
  max_detection_lag: number;
  max_index_lag: number;
  lag_series: string;
  threads: string[];
  peak_rss_mb: number;
  /** Polls that failed, by tenant and kind (the first failure of each). */
  problems: Record<string, string>;
}

interface OfferOutcome {
  tenant: string;
  offered_records: number;
  accepted_records: number;
  skipped: number;
  p99_ms: number;
}

const PER_REQUEST = 200;
/** The servers this benchmark starts serve /metrics to it with this token. */
const METRICS_TOKEN = 'timeliness-bench-metrics';
process.env.SIGHTLINE_METRICS_TOKEN = METRICS_TOKEN;

async function cli(storage: string[], args: string[]): Promise<string> {
  const child = spawnSightline([...args, ...storage]);
  const code = await child.exited;
  if (code !== 0) throw new Error(`sightline ${args.join(' ')} failed: ${child.stderr()}`);
  return child.stdout().trim().split('\n').at(-1) ?? '';
}

/** Before the server starts: it learns its collector addresses at start. */
async function createTenants(storage: string[], codes: string[]): Promise<void> {
  for (const code of codes) await cli(storage, ['tenant', 'create', code]);
}

async function tenantsOf(storage: string[], codes: string[]): Promise<Tenant[]> {
  const tenants: Tenant[] = [];
  for (const code of codes) {
    const token = await cli(storage, ['token', 'create', '--tenant', code, '--name', 'bench', '--permissions', 'all']);
    tenants.push({ code, token });
  }
  return tenants;
}

async function offer(base: string, plan: RunPlan): Promise<OfferOutcome[]> {
  const tenants = Object.entries(plan.offers).flatMap(([code, rate]) => ['--tenant', `${code}:${rate}`]);
  const child: Child = spawnTsx('bench/timeliness/offer.ts', [
    '--url',
    base,
    '--duration',
    String(plan.durationS),
    '--per-request',
    String(PER_REQUEST),
    ...tenants,
  ]);
  active.add(child);
  const code = await child.exited;
  active.delete(child);
  if (code !== 0) throw new Error(`the load offer failed (exit ${code}): ${child.stderr()}`);
  return child
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as OfferOutcome);
}

/** A closed-loop burst on tenant demo (bench:ingest's load), reported like an offer. */
async function burst(base: string, seconds: number): Promise<OfferOutcome[]> {
  const result = await runLoad(`${base}/log_sink`, { connections: 8, duration: seconds });
  return [
    {
      tenant: 'demo',
      offered_records: result.records,
      accepted_records: result.records,
      skipped: 0,
      p99_ms: result.p99_ms,
    },
  ];
}

export async function run(plan: RunPlan): Promise<RunResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-timeliness-'));
  const schema = plan.postgres ? freshSchema(plan.postgres, 'timeliness') : undefined;
  const storage = ['--data', dataDir, ...(schema ? ['--database', schema.url] : [])];
  await createTenants(storage, Object.keys(plan.offers));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(
    'src/cli/run.ts',
    ['serve', ...storage, '--port', String(port), '--log-level', 'warn'],
    port,
    120_000,
  );
  const pid = server.process.pid ?? 0;
  const memory = watchPeakRss(pid);
  try {
    const tenants = await tenantsOf(storage, Object.keys(plan.offers));
    const markers = new MarkerWatch(base, tenants);
    const lag = new LagWatch(base, METRICS_TOKEN);
    const cpuBefore = threadCpu(pid);
    const started = performance.now();
    markers.start();
    const outcomes = await (plan.burstS ? burst(base, plan.burstS) : offer(base, plan));
    const offerS = (performance.now() - started) / 1000;
    const cpuAfter = threadCpu(pid);
    if (plan.burstS) await new Promise((resolve) => setTimeout(resolve, plan.drainS * 1000));
    await markers.finish(plan.drainS);
    lag.stop();
    const sum = (key: 'offered_records' | 'accepted_records') => outcomes.reduce((total, o) => total + o[key], 0);
    const byTenant = (key: 'detectedS' | 'searchableS') =>
      Object.fromEntries(
        tenants.map(({ code }) => [
          code,
          quantiles(markers.markers.filter((m) => m.tenant === code).map((m) => m[key])),
        ]),
      );
    return {
      offered_per_s: Math.round(sum('offered_records') / (plan.burstS ?? plan.durationS)),
      accepted_per_s: Math.round(sum('accepted_records') / (plan.burstS ? offerS : plan.durationS)),
      ack_p99_ms: Math.max(...outcomes.map((o) => o.p99_ms)),
      skipped_requests: outcomes.reduce((total, o) => total + o.skipped, 0),
      ttd: byTenant('detectedS'),
      searchable: byTenant('searchableS'),
      markers: markers.markers.map((m) => ({
        tenant: m.tenant,
        ackedAtS: (m.ackedAt - started) / 1000,
        ...(m.detectedS === undefined ? {} : { detectedS: m.detectedS }),
        ...(m.searchableS === undefined ? {} : { searchableS: m.searchableS }),
      })),
      max_detection_lag: lag.max('detection'),
      max_index_lag: lag.max('index'),
      lag_series: lag.samples
        .filter((sample) => sample.atS % 10 === 0)
        .map((sample) => `${sample.atS}s ${sample.detection}/${sample.index}`)
        .join(', '),
      threads: busiestThreads(cpuBefore, cpuAfter, offerS),
      peak_rss_mb: memory.peakMb() ?? 0,
      problems: Object.fromEntries(markers.problems),
    };
  } finally {
    memory.stop();
    await stopChild(server);
    active.delete(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (schema) await dropSchema(schema.baseUrl, schema.schema);
  }
}
