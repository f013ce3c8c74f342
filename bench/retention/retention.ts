// `npm run bench:retention`: ingest throughput while the background purger deletes a whole
// backlog of expired records, against the same server's throughput without a purge, measured
// in the same run. Setup writes N records (default 1,000,000) for tenant demo, received over
// 20 days ending 40 days ago, already indexed and processed, while its retention is 90 days
// (bench/retention/retention-setup.ts; on PostgreSQL each of those days is a day partition of its own).
// What an operator needs to know is whether a sustained ingest rate holds while a large
// backlog is purged, so the load is a steady offered rate (--rate records/s, default 5,000),
// kept up without a break: for --baseline-seconds without a purge; then, from the retention
// change (set to 7 days with the CLI, 3 s into the load) until the purger has deleted the
// whole backlog and finished its pass; then again without a purge. Before each phase the search
// index catches up, so all three start from the same state. Posts that fell behind their slot
// are sent as soon as a connection is free, as a buffering forwarder would: a stall shows as a
// low window followed by a high one, and the phase's rate counts what was stored in the end.
// Ingest is read from the database every second (the log's last sequence), so each phase's
// rate is records stored per second over exactly that phase (the purge phase: from the
// retention change to the first sample after the pass ended), and its 10 s windows
// (--duration) show the worst stretch. The offered rate only means something if the server
// sustains it without a purge: each phase reports how far behind the search index was at its
// end (past 1M behind on SQLite, writes slow to the indexing rate). One closed-loop window
// first warms the server up and shows its burst rate, counted nowhere. On PostgreSQL
// (--database URL) the run uses a schema of its own, dropped at the end. The last stdout line
// is one JSON object of results.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnSightline } from '../../test/helpers/processes.js';
import { dropSchema, freshSchema, type FreshSchema } from '../../test/helpers/postgres.js';
import { openDatabase } from '../../src/storage/database.js';
import { followerLag, runLoad, startServer, stopServer, watchPeakRss } from '../common/ingest-harness.js';
import { purgeProgress, seedBacklog, type PurgeProgress } from './retention-setup.js';

interface Flags {
  records: number;
  rate: number;
  duration: number;
  connections: number;
  baselineSeconds: number;
  minutes: number;
  database?: string;
}

const NUMBERS = ['--records', '--rate', '--duration', '--connections', '--baseline-seconds', '--max-minutes'] as const;

function parseFlags(argv: string[]): Flags {
  const flags: Flags = {
    records: 1_000_000,
    rate: 5_000,
    duration: 10,
    connections: 8,
    baselineSeconds: 60,
    minutes: 30,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined || ![...NUMBERS, '--database'].includes(flag ?? ''))
      throw new Error(
        `unknown or incomplete option ${JSON.stringify(flag)}; usage: bench:retention [--records N] [--rate R] ` +
          '[--duration S] [--connections N] [--baseline-seconds S] [--max-minutes M] [--database URL]',
      );
    if (flag === '--database') {
      flags.database = value;
      continue;
    }
    const number = Number(value);
    if (!Number.isInteger(number) || number <= 0) throw new Error(`${flag} must be a positive integer; got ${value}`);
    if (flag === '--records') flags.records = number;
    else if (flag === '--rate') flags.rate = number;
    else if (flag === '--duration') flags.duration = number;
    else if (flag === '--connections') flags.connections = number;
    else if (flag === '--baseline-seconds') flags.baselineSeconds = number;
    else flags.minutes = number;
  }
  return flags;
}

async function cli(storage: string[], args: string[]): Promise<string> {
  const child = spawnSightline([...args, ...storage]);
  const code = await child.exited;
  if (code !== 0) throw new Error(`sightline ${args.join(' ')} failed: ${child.stderr()}`);
  return child.stdout().trim();
}

/** Records stored per second between two samples. */
const stored = (from: PurgeProgress, to: PurgeProgress) =>
  ((to.logEnd - from.logEnd) * 1000) / Math.max(1, to.at - from.at);

/** The stretch's samples cut into windows of about `seconds`: each window's stored records per second. */
function windowRates(samples: PurgeProgress[], seconds: number): number[] {
  const rates: number[] = [];
  let from = samples[0];
  for (const sample of samples) {
    if (!from || sample.at - from.at < seconds * 1000) continue;
    rates.push(stored(from, sample));
    from = sample;
  }
  return rates;
}

const whole = (n: number) => Math.round(n).toLocaleString('en-US');
const load1 = () => Number(os.loadavg()[0]?.toFixed(2));

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-retention-'));
  const postgres: FreshSchema | undefined = flags.database ? freshSchema(flags.database, 'bench') : undefined;
  const storage = ['--data', dataDir, ...(postgres ? ['--database', postgres.url] : [])];
  const store = postgres ? 'PostgreSQL' : 'SQLite';
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(
    `retention benchmark: ${store}, ${whole(flags.records)} expired records, a steady ${whole(flags.rate)} records/s ` +
      `offered over ${flags.connections} connections; load average ${load1()}`,
  );
  try {
    const database = await openDatabase({ dataDir, databaseUrl: postgres?.url ?? '' });
    try {
      const started = performance.now();
      await seedBacklog(database, { records: flags.records, days: 20, ageDays: 40 });
      say(`  seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } finally {
      await database.close();
    }
    await cli(storage, ['retention', 'set', '--tenant', 'demo', '--days', '90']);
    const port = await freePort();
    const serverStarted = performance.now();
    const server = await startServer(
      'src/cli/run.ts',
      ['serve', ...storage, '--port', String(port), '--log-level', 'warn', '--retention-interval', '10s'].concat([
        '--detection',
        'off',
      ]),
      port,
      120_000,
    );
    say(`  server ready in ${((performance.now() - serverStarted) / 1000).toFixed(1)} s`);
    const memory = server.process.pid === undefined ? undefined : watchPeakRss(server.process.pid);
    const url = `http://127.0.0.1:${port}/log_sink`;
    // The purge's progress and the log's end, sampled every second for the whole run.
    const initial = await purgeProgress(dataDir, postgres);
    const samples: PurgeProgress[] = [initial];
    const latest = (): PurgeProgress => samples.at(-1) ?? initial;
    const sampling = { on: true };
    const sampler = (async () => {
      while (sampling.on) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        samples.push(await purgeProgress(dataDir, postgres));
      }
    })();
    try {
      const settled = async () => {
        const deadline = performance.now() + 600_000;
        while ((await followerLag(dataDir, postgres, 'search_index')) > 0 && performance.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 250));
      };
      const warmUp = await runLoad(url, { duration: flags.duration, connections: flags.connections });
      say(
        `  warm-up, closed loop (as fast as the server answers): ${whole(warmUp.records / warmUp.seconds)} records/s (not counted)`,
      );
      /**
       * A phase of steady load, the search index caught up first. `started` runs once the load
       * flows; `until` (checked every 250 ms) ends it early.
       */
      const phase = async (seconds: number, hooks: { started?: () => void; until?: () => boolean } = {}) => {
        const settling = performance.now();
        await settled();
        const settleSeconds = (performance.now() - settling) / 1000;
        const first = samples.length;
        const result = await runLoad(
          url,
          // Smaller posts than the closed-loop window's 1 MB, so that a second holds several.
          { duration: seconds, connections: flags.connections, rate: flags.rate, bodyKb: 128 },
          undefined,
          (generator) => {
            hooks.started?.();
            const { until } = hooks;
            if (!until) return;
            const check = setInterval(() => {
              if (!until()) return;
              clearInterval(check);
              generator.process.kill('SIGTERM');
            }, 250);
            void generator.exited.finally(() => clearInterval(check));
          },
        );
        // The samples while the load ran, less its first and last second (starting, stopping).
        const during = samples.slice(first + 1, -1);
        const lag = await followerLag(dataDir, postgres, 'search_index');
        return { result, during, lag, settleSeconds };
      };
      const steady = (during: PurgeProgress[]) => {
        const [from, to] = [during[0], during[during.length - 1]];
        return from && to ? stored(from, to) : 0;
      };

      const before = await phase(flags.baselineSeconds);
      say(
        `  without purge: ${whole(steady(before.during))} records/s stored over ${flags.baselineSeconds} s ` +
          `(${before.result.errors} errors; search index ${whole(before.lag)} behind at the end; load ${load1()})`,
      );
      // Until the backlog is gone and the pass that deleted it has finished (on SQLite that
      // includes reclaiming the search index's deleted entries).
      const done = (sample: PurgeProgress) =>
        sample.purged >= flags.records && (sample.measuredAt ?? 0) >= (sample.lastPurgeAt ?? Infinity);
      const reporter = setInterval(() => {
        const recent = samples.slice(-11);
        const [from, to] = [recent[0], recent[recent.length - 1]];
        if (from && to)
          say(
            `    ${whole(to.purged)} purged; ingest ${whole(stored(from, to))} records/s over the last 10 s (load ${load1()})`,
          );
      }, 30_000);
      // The retention changes once the load flows, so no record is purged before it does; the
      // load goes on a few seconds past the end of the pass.
      let purgeStart = Date.now();
      let retentionSet: Promise<unknown> = Promise.resolve();
      const during = await phase(flags.minutes * 60, {
        started: () => {
          retentionSet = new Promise((resolve) => setTimeout(resolve, 3000))
            .then(() => cli(storage, ['retention', 'set', '--tenant', 'demo', '--days', '7']))
            .then(() => (purgeStart = Date.now()));
        },
        until: () => {
          const end = samples.findIndex(done);
          return end >= 0 && samples.length > end + 3;
        },
      }).finally(() => clearInterval(reporter));
      await retentionSet;
      const end = during.during.findIndex(done);
      if (end < 0) throw new Error(`the purge did not finish within ${flags.minutes} minutes`);
      // From the retention change (up to one --retention-interval, 10 s, before the pass starts:
      // on PostgreSQL a day's derived rows go before its records are counted) to the first
      // sample after the pass ended.
      const changed = during.during.findIndex((sample) => sample.at >= purgeStart);
      const purging = during.during.slice(Math.max(0, changed - 1), end + 1);
      const purgeSeconds = ((latest().measuredAt ?? Date.now()) - purgeStart) / 1000;
      const purged = latest().purged;
      const after = await phase(flags.baselineSeconds);
      say(
        `  without purge, after: ${whole(steady(after.during))} records/s (search index ${whole(after.lag)} behind at the end, ` +
          `after ${after.settleSeconds.toFixed(0)} s catching up from the purge phase; load ${load1()})`,
      );
      const without = (steady(before.during) + steady(after.during)) / 2;
      const withPurge = steady(purging);
      const ratio = withPurge / without;
      const ratios = windowRates(purging, flags.duration).map((r) => r / without);
      const peak = memory?.peakMb();
      say(
        `  offered ${whole(flags.rate)} records/s throughout; without purge ${whole(without)} records/s stored (mean of before and after)\n` +
          `  during the purge: ${whole(withPurge)} records/s stored over ${purging.length - 1} s; ${flags.duration} s windows ` +
          `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×; ${during.result.errors} errors; ` +
          `search index ${whole(during.lag)} behind at the end; p99 ${during.result.p99_ms} ms (without: ` +
          `${before.result.p99_ms}, ${after.result.p99_ms} ms)\n` +
          `  purge: ${whole(purged)} records in ${purgeSeconds.toFixed(0)} s (${whole(purged / purgeSeconds)} records/s), ` +
          `from the retention change to the end of the pass\n` +
          `  ratio ${ratio.toFixed(3)} (target ≥ 0.8): ${ratio >= 0.8 ? 'OK' : 'BELOW TARGET'}; server peak RSS ${peak ?? '?'} MB`,
      );
      say(
        JSON.stringify({
          store: store.toLowerCase(),
          offered_records_per_s: flags.rate,
          burst_records_per_s: Math.round(warmUp.records / warmUp.seconds),
          purged,
          purge_seconds: Math.round(purgeSeconds),
          purge_records_per_s: Math.round(purged / purgeSeconds),
          ingest_records_per_s_without_purge: Math.round(without),
          ingest_records_per_s_before: Math.round(steady(before.during)),
          ingest_records_per_s_after: Math.round(steady(after.during)),
          ingest_records_per_s_during_purge: Math.round(withPurge),
          ratio: Number(ratio.toFixed(3)),
          window_ratios: ratios.map((r) => Number(r.toFixed(3))),
          errors: before.result.errors + during.result.errors + after.result.errors,
          p99_ms: { before: before.result.p99_ms, during: during.result.p99_ms, after: after.result.p99_ms },
          index_lag_at_end: { before: before.lag, during: during.lag, after: after.lag },
          index_catch_up_after_purge_s: Math.round(after.settleSeconds),
          peak_rss_mb: peak ?? null,
          load_average_1m: load1(),
        }),
      );
    } finally {
      sampling.on = false;
      await sampler;
      memory?.stop();
      await stopServer(server, 'Sightline server');
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (postgres) await dropSchema(postgres.baseUrl, postgres.schema);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:retention failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
