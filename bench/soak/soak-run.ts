// One bench:soak run on one database: a fresh database (PostgreSQL: a database of its own,
// dropped after), an expired backlog for tenant demo whose retention shrinks a day per window
// (the purger, every 10 s, has a day of records to delete each time), tenant soak under the
// mixed load, cases that detection opened from marker records, a webhook to the local receiver
// and the mock model as the summary provider. At each window's end: the server's RSS, open
// file descriptors and event-loop delay, and the window's latencies and errors. At the end:
// the acknowledged records counted in the database, and the webhook delivery log read back.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { freePort, spawnSightline, stopChild, type Child } from '../../test/helpers/processes.js';
import { openDatabase } from '../../src/storage/database.js';
import { startServer } from '../common/ingest-harness.js';
import { active, cleanup } from '../common/query-server.js';
import { seedBacklog } from '../retention/retention-setup.js';
import { startModel, startWebhookReceiver } from './soak-fakes.js';
import { SoakLoad, type Kind } from './soak-load.js';
import { openFds, rssMb, scrapeMetrics, type LoopDelay } from './soak-measure.js';

export interface SoakPlan {
  kind: 'sqlite' | 'postgres';
  /** PostgreSQL server to make the run's database on (its maintenance database's URL). */
  postgres: string;
  rate: number;
  windowMs: number;
  windows: number;
  /** Expired records purged per window. */
  backlogPerWindow: number;
  /** Prints a line as the run goes. */
  say: (line: string) => void;
}

export interface WindowFigures {
  rssMb?: number;
  fds?: number;
  /** Of the server's descriptors, this many are the load's own connections to it. */
  clientConnections: number;
  loop?: LoopDelay;
  /** Records the search index and detection had not reached at the window's end. */
  lag?: { index: number; detection: number };
  p99: Record<Kind, number | undefined>;
  samples: Record<Kind, number>;
  errors: number;
  acked: number;
  conflicts: number;
  deliveries: number;
  purged?: number;
  serverErrors: number;
  serverWarnings: number;
}

export interface SoakResult {
  windows: WindowFigures[];
  acked: number;
  stored: number;
  deliveries: { delivered: number; failed: number; pending: number };
  /** Each kind of failure with how often it happened. */
  failures: string[];
  /** Failed requests, in the windows and after the last one until the load stopped. */
  errors: number;
  serverLog: string[];
}

/** The server's own reading of itself, with the bench's token. */
const METRICS_TOKEN = 'soak-bench-metrics-token-0123456789';
process.env.SIGHTLINE_METRICS_TOKEN = METRICS_TOKEN;
const AGE_DAYS = 2;
const MARKER_HOSTS = 8;

async function cli(storage: string[], args: string[]): Promise<string> {
  const child = spawnSightline([...args, ...storage]);
  const code = await child.exited;
  if (code !== 0) throw new Error(`sightline ${args.join(' ')} failed: ${child.stderr()}`);
  return child.stdout().trim().split('\n').at(-1) ?? '';
}

/** Counts the server's log lines at warn and at error or above, keeping the first few. */
function watchLog(server: Child): { errors: number; warnings: number; first: string[] } {
  const seen = { errors: 0, warnings: 0, first: [] as string[] };
  const read = (chunk: string) => {
    for (const line of chunk.split('\n')) {
      const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? (line.trim() ? 40 : 0));
      if (level >= 50) seen.errors++;
      else if (level >= 40) seen.warnings++;
      if (level >= 40 && seen.first.length < 5) seen.first.push(line.slice(0, 300));
    }
  };
  server.process.stdout?.on('data', read);
  server.process.stderr?.on('data', read);
  return seen;
}

async function countStored(kind: SoakPlan['kind'], dataDir: string, url: string): Promise<number> {
  const query = `SELECT count(*) AS n FROM telemetry_records r JOIN tenants t ON t.id = r.tenant_id WHERE t.code_name = 'soak'`;
  if (kind === 'sqlite') {
    const db = new SQLite(path.join(dataDir, 'sightline.db'), { readonly: true });
    try {
      return (db.prepare(query).get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(query)).rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

async function onMaintenance(postgres: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgres });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function runSoak(plan: SoakPlan): Promise<SoakResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-soak-'));
  const dbName = `sightline_soak_${Date.now().toString(36)}_${process.pid}`;
  const dbUrl = plan.kind === 'postgres' ? Object.assign(new URL(plan.postgres), { pathname: `/${dbName}` }).href : '';
  const model = await startModel();
  const receiver = await startWebhookReceiver();
  let server: Child | undefined;
  let tornDown = false;
  const teardown = async () => {
    if (tornDown) return;
    tornDown = true;
    if (server) {
      await stopChild(server);
      active.delete(server);
    }
    await model.close();
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (plan.kind === 'postgres')
      await onMaintenance(plan.postgres, `DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  };
  cleanup.push(teardown);
  try {
    if (plan.kind === 'postgres') await onMaintenance(plan.postgres, `CREATE DATABASE "${dbName}"`);
    const storage = ['--data', dataDir, ...(dbUrl ? ['--database', dbUrl] : [])];
    const database = await openDatabase({ dataDir, databaseUrl: dbUrl });
    try {
      await seedBacklog(database, {
        records: plan.backlogPerWindow * plan.windows,
        days: plan.windows,
        ageDays: AGE_DAYS,
      });
    } finally {
      await database.close();
    }
    await cli(storage, ['tenant', 'create', 'soak']);
    const token = await cli(storage, ['token', 'create', '--tenant', 'soak', '--name', 'soak', '--permissions', 'all']);
    const demoToken = await cli(storage, [
      'token',
      'create',
      '--tenant',
      'demo',
      '--name',
      'soak',
      '--permissions',
      'all',
    ]);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = await startServer(
      'src/cli/run.ts',
      [
        'serve',
        ...storage,
        ...['--port', String(port), '--log-level', 'warn', '--retention-interval', '10s'],
        ...['--summary-provider', 'openai', '--openai-base-url', model.baseUrl, '--openai-model', 'soak-mock'],
        ...['--webhook-allow-loopback', '--webhook-ca-file', receiver.caFile],
      ],
      port,
      300_000,
    );
    active.add(server);
    const pid = server.process.pid ?? 0;
    const log = watchLog(server);

    const load = new SoakLoad({ base, rate: plan.rate, token, retentionToken: demoToken });
    const setup = async (method: string, url: string, body: unknown, bearer = token) => {
      const answer = await load.call('retention', method, url, { body, token: bearer });
      if (!answer || answer.status >= 300)
        throw new Error(`${method} ${url} answered ${answer?.status}: ${answer?.body}`);
      return JSON.parse(answer.body) as Record<string, unknown>;
    };
    const webhook = (
      await setup('POST', '/v1/webhooks', { url: receiver.url, events: ['case.created', 'case.updated'] })
    ).webhook as { id: string };
    const retentionDays = (window: number) => plan.windows + AGE_DAYS + 1 - window;
    await setup('PATCH', '/v1/retention', { telemetry_days: retentionDays(-1) }, demoToken);
    const cases = await openCases(load, plan);
    load.useCases(cases);
    plan.say(`  ${cases.length} cases opened by detection; the load starts`);

    load.start();
    const windows: WindowFigures[] = [];
    const shrinking: Promise<unknown>[] = [];
    let logSeen = { errors: 0, warnings: 0 };
    const started = performance.now();
    for (let window = 0; window < plan.windows; window++) {
      // Windows end on the clock: what is read at an end runs while the next window goes on.
      const wait = started + (window + 1) * plan.windowMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const ended = load.window;
      const resources = {
        rssMb: rssMb(pid),
        fds: openFds(pid),
        clientConnections: load.connections(),
        deliveries: receiver.take(),
      };
      const server = { errors: log.errors - logSeen.errors, warnings: log.warnings - logSeen.warnings };
      logSeen = { errors: log.errors, warnings: log.warnings };
      // Answers to requests sent after the end count in the next window (after the last: nowhere).
      load.nextWindow();
      if (window + 1 < plan.windows) {
        shrinking.push(
          load.call('retention', 'PATCH', '/v1/retention', {
            body: { telemetry_days: retentionDays(window + 1) },
            token: demoToken,
          }),
        );
      }
      const [metrics, retention] = await Promise.all([
        scrapeMetrics(base, METRICS_TOKEN).catch(() => undefined),
        load.call('retention', 'GET', '/v1/retention', { token: demoToken }),
      ]);
      const figures: WindowFigures = {
        ...resources,
        ...(metrics ? { loop: metrics.loop, lag: metrics.lag } : {}),
        p99: SoakLoad.p99(ended),
        samples: Object.fromEntries(
          Object.entries(ended.kinds).map(([kind, k]) => [kind, k.latencies.length]),
        ) as Record<Kind, number>,
        errors: Object.values(ended.kinds).reduce((sum, k) => sum + k.errors, 0),
        acked: ended.acked,
        conflicts: ended.conflicts,
        ...(retention?.status === 200
          ? { purged: (JSON.parse(retention.body) as { purged_records: number }).purged_records }
          : {}),
        serverErrors: server.errors,
        serverWarnings: server.warnings,
      };
      windows.push(figures);
      plan.say(windowLine(window, plan.windowMs, figures, windows[window - 1]?.purged ?? 0));
    }
    await Promise.all(shrinking);
    await load.stop();
    // What the webhooks still owe is sent within seconds; the stored records are all committed.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const deliveries = await deliveryLog(load, webhook.id);
    const stored = await countStored(plan.kind, dataDir, dbUrl);
    return {
      windows,
      acked: load.ackedTotal,
      stored,
      deliveries,
      failures: [...load.failures].map(([what, count]) => `${count}× ${what}`),
      errors: load.errorsTotal(),
      serverLog: log.first,
    };
  } finally {
    await teardown();
  }
}

/** Markers on hosts of their own; detection opens a case for each. Returns the open cases' ids. */
async function openCases(load: SoakLoad, plan: SoakPlan): Promise<string[]> {
  for (let host = 0; host < MARKER_HOSTS; host++) await load.marker(host, `soak-web-${host}`);
  const deadline = Date.now() + 180_000;
  for (;;) {
    const answer = await load.call('case_update', 'POST', '/v1/cases', { body: { limit: 50 } });
    const cases = answer?.status === 200 ? (JSON.parse(answer.body) as { cases: { id: string }[] }).cases : [];
    if (cases.length >= MARKER_HOSTS) return cases.map((item) => item.id);
    if (Date.now() > deadline)
      throw new Error(`detection opened ${cases.length} cases of ${MARKER_HOSTS} within 180 s (${plan.kind})`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** The webhook's deliveries by status, page by page. */
async function deliveryLog(load: SoakLoad, id: string): Promise<SoakResult['deliveries']> {
  const counts = { delivered: 0, failed: 0, pending: 0 };
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${cursor}` : '';
    const answer = await load.call('retention', 'GET', `/v1/webhooks/${id}/deliveries?limit=500${query}`, {});
    if (answer?.status !== 200) throw new Error(`the delivery log answered ${answer?.status}: ${answer?.body}`);
    const page = JSON.parse(answer.body) as {
      deliveries: { status: keyof typeof counts }[];
      next_cursor: string | null;
    };
    for (const delivery of page.deliveries) counts[delivery.status]++;
    cursor = page.next_cursor;
  } while (cursor);
  return counts;
}

const n = (value: number | undefined) => (value === undefined ? '–' : Math.round(value).toLocaleString('en-US'));
const ms = (value: number | undefined) =>
  value === undefined ? '–' : value < 10 ? value.toFixed(1) : String(Math.round(value));

function windowLine(index: number, windowMs: number, f: WindowFigures, purgedBefore: number): string {
  const clock = (at: number) =>
    `${Math.floor(at / 60_000)}:${String(Math.round((at % 60_000) / 1000)).padStart(2, '0')}`;
  const p99 = Object.entries(f.p99)
    .map(([kind, value]) => `${kind} ${ms(value)}`)
    .join(', ');
  return (
    `  window ${index + 1} (${clock(index * windowMs)}–${clock((index + 1) * windowMs)}): RSS ${n(f.rssMb)} MB, ` +
    `${n(f.fds)} open fds (${n(f.clientConnections)} of them the load's connections), event loop p99 ${ms(f.loop?.p99Ms)} ms (max ${ms(f.loop?.maxMs)}), ` +
    `lag: search index ${n(f.lag?.index)}, detection ${n(f.lag?.detection)} records; ` +
    `${n(f.acked)} records taken (${n(f.acked / (windowMs / 1000))}/s), ${n(f.deliveries)} webhooks, ` +
    `${n((f.purged ?? purgedBefore) - purgedBefore)} purged; errors ${f.errors}` +
    (f.serverErrors || f.serverWarnings ? `, server log ${f.serverErrors} errors/${f.serverWarnings} warnings` : '') +
    (f.conflicts ? `, ${f.conflicts} version conflicts` : '') +
    `\n    p99 ms: ${p99}`
  );
}
