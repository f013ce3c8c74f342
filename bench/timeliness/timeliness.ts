// `npm run bench:timeliness`: how long from a log line's 201 until an analyst can see what it
// means. A fresh server per step; a realistic mix offered open loop at a ladder of rates, each
// for --duration seconds, with one SQL injection marker a second on a host of its own. Per
// marker: 201 → observation listed by the API (time to detect) and 201 → found by a full-text
// search (searchable). The sustained rate is the highest one at which detection p99 ≤ 2 s,
// searchable p99 ≤ 5 s and the 201's p99 ≤ 100 ms all hold, with every offered record taken.
// Then, on SQLite: a 10 s burst at bench:ingest's rate (closed loop) and a noisy neighbour
// (one tenant offering ten times its share beside three sending 2,000/s). One JSON line last.
//   --rates 10000,20000,… (SQLite)  --pg-rates …  --duration S  --database URL  --no-postgres
//   --only ladder|burst|noisy  --all (every rate of the ladder, not only up to the first miss)
import { runBenchMain } from '../common/query-server.js';
import { run, type RunResult } from './run.js';

interface Flags {
  rates: number[];
  pgRates: number[];
  durationS: number;
  postgres?: string;
  only?: string;
  /** Climb every rate of the ladder, not only up to the first that does not hold. */
  all: boolean;
}

const TTD_TARGET_S = 2;
const SEARCHABLE_TARGET_S = 5;
const ACK_TARGET_MS = 100;
const QUIET_RATE = 2_000;

function parseFlags(argv: string[]): Flags {
  const flags: Flags = {
    rates: [10_000, 20_000, 30_000, 40_000],
    pgRates: [10_000, 20_000],
    durationS: 60,
    all: false,
    postgres: process.env.SIGHTLINE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  };
  const list = (value: string) =>
    value
      .split(',')
      .map(Number)
      .filter((n) => n > 0);
  for (let i = 0; i < argv.length; i++) {
    const [flag, value = ''] = [argv[i], argv[i + 1]];
    if (flag === '--no-postgres' || flag === '--all') {
      if (flag === '--all') flags.all = true;
      else delete flags.postgres;
      continue;
    }
    i++;
    if (flag === '--rates') flags.rates = list(value);
    else if (flag === '--pg-rates') flags.pgRates = list(value);
    else if (flag === '--duration') flags.durationS = Number(value);
    else if (flag === '--database') flags.postgres = value;
    else if (flag === '--only') flags.only = value;
    else throw new Error(`unknown flag ${String(flag)}; see the comment at the top of bench/timeliness/timeliness.ts`);
  }
  return flags;
}

const all = (result: RunResult, key: 'ttd' | 'searchable', q: 'p99' | 'max'): number | null => {
  const values = Object.values(result[key]);
  if (values.some((each) => each.missing > 0 || each[q] === null)) return null;
  return Math.max(...values.map((each) => each[q] ?? 0));
};

function holds(result: RunResult): boolean {
  const ttd = all(result, 'ttd', 'p99');
  const searchable = all(result, 'searchable', 'p99');
  return (
    ttd !== null &&
    searchable !== null &&
    ttd <= TTD_TARGET_S &&
    searchable <= SEARCHABLE_TARGET_S &&
    result.ack_p99_ms <= ACK_TARGET_MS &&
    result.skipped_requests === 0 &&
    result.accepted_per_s >= 0.97 * result.offered_per_s
  );
}

function print(label: string, result: RunResult): void {
  const show = (q: Record<string, { p50: number | null; p99: number | null; max: number | null; missing: number }>) =>
    Object.entries(q)
      .map(
        ([tenant, x]) =>
          `${tenant} ${x.p50 ?? '–'}/${x.p99 ?? '–'}/${x.max ?? '–'} s${x.missing ? ` (${x.missing} never seen)` : ''}`,
      )
      .join('; ');
  process.stdout.write(
    `${label}: offered ${result.offered_per_s.toLocaleString('en-US')}/s, taken ${result.accepted_per_s.toLocaleString('en-US')}/s, ` +
      `201 p99 ${result.ack_p99_ms} ms${result.skipped_requests ? `, ${result.skipped_requests} requests skipped at the in-flight cap` : ''}\n` +
      `  time to detect p50/p99/max: ${show(result.ttd)}\n` +
      `  searchable p50/p99/max:     ${show(result.searchable)}\n` +
      `  lag max: detection ${result.max_detection_lag.toLocaleString('en-US')}, search index ${result.max_index_lag.toLocaleString('en-US')} records; ` +
      `every 10 s (detection/index): ${result.lag_series}\n` +
      `  CPU per thread (cores): ${result.threads.join(', ')}; peak RSS ${result.peak_rss_mb} MB\n` +
      Object.entries(result.problems)
        .map(([poll, problem]) => `  poll ${poll} failed: ${problem.slice(0, 200)}\n`)
        .join('') +
      `  ${holds(result) ? 'holds' : 'does not hold'} (detect p99 ≤ ${TTD_TARGET_S} s, searchable p99 ≤ ${SEARCHABLE_TARGET_S} s, 201 p99 ≤ ${ACK_TARGET_MS} ms, all taken)\n`,
  );
}

/** Climbs the ladder until a rate does not hold; returns the highest that did and its run. */
async function ladder(rates: number[], durationS: number, climbAll: boolean, postgres?: string) {
  let best: { rate: number; result: RunResult } | undefined;
  let first: RunResult | undefined;
  for (const rate of rates) {
    const result = await run({ ...(postgres ? { postgres } : {}), offers: { demo: rate }, durationS, drainS: 30 });
    first ??= result;
    print(`${postgres ? 'PostgreSQL' : 'SQLite'} ${rate.toLocaleString('en-US')}/s`, result);
    if (!holds(result)) {
      if (climbAll) continue;
      break;
    }
    if (!best || rate > best.rate) best = { rate, result };
  }
  return { best, first };
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const figures: Record<string, number | null> = {};
  let peak = 0;
  const should = (phase: string) => flags.only === undefined || flags.only === phase;
  process.stdout.write(
    `bench:timeliness: ${flags.durationS} s per step, markers 1/s per tenant, ${new Date().toISOString()}\n`,
  );
  if (should('ladder')) {
    const sqlite = await ladder(flags.rates, flags.durationS, flags.all);
    const at = sqlite.best?.result ?? sqlite.first;
    figures.sustained_records_per_s = sqlite.best?.rate ?? 0;
    figures.ttd_p99_s = at ? all(at, 'ttd', 'p99') : null;
    figures.searchable_p99_s = at ? all(at, 'searchable', 'p99') : null;
    figures.ack_p99_ms = at?.ack_p99_ms ?? null;
    peak = Math.max(peak, at?.peak_rss_mb ?? 0);
    if (flags.postgres) {
      const pg = await ladder(flags.pgRates, flags.durationS, flags.all, flags.postgres);
      const pgAt = pg.best?.result ?? pg.first;
      figures.pg_sustained_records_per_s = pg.best?.rate ?? 0;
      figures.pg_ttd_p99_s = pgAt ? all(pgAt, 'ttd', 'p99') : null;
      figures.pg_searchable_p99_s = pgAt ? all(pgAt, 'searchable', 'p99') : null;
    }
  }
  if (should('burst')) {
    const burstS = 10;
    const result = await run({ offers: { demo: 1 }, durationS: burstS, burstS, drainS: 30 });
    print(`SQLite burst of ${burstS} s at bench:ingest's rate, then 30 s`, result);
    const during = result.markers.filter((m) => m.ackedAtS <= burstS);
    const recovered = result.markers.filter((m) => m.ackedAtS >= burstS + 30);
    const worst = (list: typeof during) =>
      list.some((m) => m.detectedS === undefined) ? null : Math.max(0, ...list.map((m) => m.detectedS ?? 0));
    figures.burst_ttd_p99_s = worst(during);
    figures.burst_records_per_s = result.accepted_per_s;
    figures.burst_recovered_ttd_max_s = recovered.length ? worst(recovered) : null;
    process.stdout.write(
      `  markers of the burst: worst time to detect ${figures.burst_ttd_p99_s ?? 'never'} s; 30 s after it: ${figures.burst_recovered_ttd_max_s ?? '–'} s\n`,
    );
    peak = Math.max(peak, result.peak_rss_mb);
  }
  if (should('noisy')) {
    const offers = { demo: 10 * QUIET_RATE, quiet1: QUIET_RATE, quiet2: QUIET_RATE, quiet3: QUIET_RATE };
    const result = await run({ offers, durationS: flags.durationS, drainS: 30 });
    print('SQLite noisy neighbour (demo at 10× the share of quiet1–3)', result);
    const quiet = Object.entries(result.ttd).filter(([tenant]) => tenant !== 'demo');
    figures.quiet_tenant_ttd_p99_s = quiet.some(([, q]) => q.missing > 0)
      ? null
      : Math.max(...quiet.map(([, q]) => q.p99 ?? 0));
    peak = Math.max(peak, result.peak_rss_mb);
  }
  figures.peak_rss_mb = peak;
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

runBenchMain('bench:timeliness', main);
