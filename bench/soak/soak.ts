// `npm run bench:soak` (not in CI): whether a server holds steady under hours-like load. For
// --duration (default 30m), on SQLite and PostgreSQL in turn, a fresh server takes a mixed load
// at half its sustained rate (--rate records/s, default 5,000; bench:timeliness measures 10,000):
// collector ingest, text and field searches, case updates and comments, AI summaries from a
// mock model on this machine, webhook deliveries to a local receiver, and the retention purger
// deleting a day of expired records every window. The run is cut into six windows (5 minutes
// each by default); after each it prints the server's resident memory, open file descriptors,
// event-loop delay (its /metrics), the p99 latency of each kind of request and the errors.
// Verdict per database: flat (the last window within 10 % of the second, the first being the
// warm-up, for RSS, open descriptors besides the load's own connections, the event-loop delay
// and each kind's p99 with 20 requests or more a window; times may also grow by 5 ms, the
// machine's noise; the search index's and detection's lag, which may also grow by 2 s of
// records), no error (requests, the server's log, webhook deliveries), nothing lost
// (every record the collector acknowledged is in the database). One JSON line last.
//   --duration 30m|90s|1h  --rate N  --database sqlite|postgres|both  --postgres URL
//   --backlog N (expired records purged per window, default 20,000)
import { runBenchMain } from '../common/query-server.js';
import { KINDS, type Kind } from './soak-load.js';
import { runSoak, type SoakResult, type WindowFigures } from './soak-run.js';
import { change, flat, parseDuration } from './soak-measure.js';

const WINDOWS = 6;
/** A kind's p99 is judged only with this many requests in each window compared. */
const JUDGED_SAMPLES = 20;
const SLACK_MS = 5;

interface Flags {
  durationMs: number;
  rate: number;
  databases: ('sqlite' | 'postgres')[];
  postgres: string;
  backlog: number;
}

function parseFlags(argv: string[]): Flags {
  const flags: Flags = {
    durationMs: 30 * 60_000,
    rate: 5_000,
    databases: ['sqlite', 'postgres'],
    postgres: process.env.SIGHTLINE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    backlog: 20_000,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value = ''] = [argv[i], argv[i + 1]];
    if (flag === '--duration') flags.durationMs = parseDuration(value);
    else if (flag === '--rate' || flag === '--backlog') {
      const number = Number(value);
      if (!Number.isInteger(number) || number <= 0) throw new Error(`${flag} must be a positive integer; got ${value}`);
      if (flag === '--rate') flags.rate = number;
      else flags.backlog = number;
    } else if (flag === '--database') {
      if (value === 'both') flags.databases = ['sqlite', 'postgres'];
      else if (value === 'sqlite' || value === 'postgres') flags.databases = [value];
      else throw new Error(`--database takes sqlite, postgres or both; got ${JSON.stringify(value)}`);
    } else if (flag === '--postgres') flags.postgres = value;
    else throw new Error(`unknown flag ${String(flag)}; see the comment at the top of bench/soak/soak.ts`);
  }
  return flags;
}

interface Verdict {
  flat: boolean;
  noError: boolean;
  nothingLost: boolean;
  notFlat: string[];
}

function judge(result: SoakResult, rate: number): Verdict {
  const second = result.windows[1];
  const last = result.windows.at(-1);
  const notFlat: string[] = [];
  const check = (what: string, read: (w: WindowFigures) => number | undefined, slack = 0) => {
    const [from, to] = [second && read(second), last && read(last)];
    const shown = (value: number | undefined) =>
      value === undefined ? '–' : Math.round(value).toLocaleString('en-US');
    if (!flat(from, to, 0.1, slack)) notFlat.push(`${what} ${shown(from)} → ${shown(to)} (${change(from, to)})`);
  };
  check('RSS MB', (w) => w.rssMb);
  // The load opens more connections while answers are slow: those are the load's, not a leak.
  check("open fds besides the load's connections", (w) =>
    w.fds === undefined ? undefined : w.fds - w.clientConnections,
  );
  check('event-loop p99 ms', (w) => w.loop?.p99Ms, SLACK_MS);
  // Falling behind: what the search index and detection have still to read keeps growing.
  check('search index lag', (w) => w.lag?.index, 2 * rate);
  check('detection lag', (w) => w.lag?.detection, 2 * rate);
  for (const kind of KINDS) {
    if (!second || !last || second.samples[kind] < JUDGED_SAMPLES || last.samples[kind] < JUDGED_SAMPLES) continue;
    check(`${kind} p99 ms`, (w) => w.p99[kind], SLACK_MS);
  }
  const errors = result.errors + result.windows.reduce((sum, w) => sum + w.serverErrors, 0) + result.deliveries.failed;
  return { flat: notFlat.length === 0, noError: errors === 0, nothingLost: result.stored >= result.acked, notFlat };
}

function summaryFigures(name: string, result: SoakResult, verdict: Verdict): Record<string, unknown> {
  const second = result.windows[1];
  const last = result.windows.at(-1);
  const p99 = (w: WindowFigures | undefined) =>
    Object.fromEntries(
      KINDS.map((kind: Kind) => [kind, w?.p99[kind] === undefined ? null : Math.round(w.p99[kind] ?? 0)]),
    );
  return {
    [`${name}_rss_mb`]: result.windows.map((w) => w.rssMb ?? null),
    [`${name}_fds`]: result.windows.map((w) => w.fds ?? null),
    [`${name}_client_connections`]: result.windows.map((w) => w.clientConnections),
    [`${name}_loop_p99_ms`]: result.windows.map((w) => w.loop?.p99Ms ?? null),
    [`${name}_p99_ms_second`]: p99(second),
    [`${name}_p99_ms_last`]: p99(last),
    [`${name}_errors`]: result.errors,
    [`${name}_index_lag`]: result.windows.map((w) => w.lag?.index ?? null),
    [`${name}_detection_lag`]: result.windows.map((w) => w.lag?.detection ?? null),
    [`${name}_acked`]: result.acked,
    [`${name}_stored`]: result.stored,
    [`${name}_webhooks`]: result.deliveries,
    [`${name}_pass`]: verdict.flat && verdict.noError && verdict.nothingLost,
  };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const windowMs = flags.durationMs / WINDOWS;
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(
    `bench:soak: ${flags.durationMs / 60_000} min per database in ${WINDOWS} windows of ${windowMs / 1000} s, ` +
      `${flags.rate.toLocaleString('en-US')} records/s offered, ${new Date().toISOString()}`,
  );
  const figures: Record<string, unknown> = {};
  let pass = true;
  for (const kind of flags.databases) {
    const name = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    say(`${name}:`);
    const result = await runSoak({
      kind,
      postgres: flags.postgres,
      rate: flags.rate,
      windowMs,
      windows: WINDOWS,
      backlogPerWindow: flags.backlog,
      say,
    });
    const verdict = judge(result, flags.rate);
    const d = result.deliveries;
    say(
      `  webhook deliveries: ${d.delivered} delivered, ${d.failed} failed, ${d.pending} pending at the end; ` +
        `records acknowledged ${result.acked.toLocaleString('en-US')}, stored ${result.stored.toLocaleString('en-US')}`,
    );
    for (const failure of result.failures) say(`  failure: ${failure}`);
    for (const line of result.serverLog) say(`  server log: ${line}`);
    say(
      `  verdict: ${verdict.flat ? 'flat' : `not flat (${verdict.notFlat.join('; ')})`}, ` +
        `${verdict.noError ? 'no error' : 'errors'}, ${verdict.nothingLost ? 'nothing lost' : 'records LOST'}` +
        ` (last window against the second: within 10 %, times also within ${SLACK_MS} ms, lags within 2 s of records)`,
    );
    pass &&= verdict.flat && verdict.noError && verdict.nothingLost;
    Object.assign(figures, summaryFigures(kind === 'sqlite' ? 'sqlite' : 'pg', result, verdict));
  }
  say(JSON.stringify({ duration_s: flags.durationMs / 1000, rate: flags.rate, ...figures, pass }));
  if (!pass) process.exitCode = 1;
}

runBenchMain('bench:soak', main);
