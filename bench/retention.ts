// `npm run bench:retention`: ingest throughput while the background purger deletes a whole
// backlog of expired records, against the same server's throughput without a purge, measured
// in the same run. Setup writes N records (default 1,000,000) for tenant demo, received over
// 20 days ending 40 days ago, already indexed and processed, while its retention is 90 days
// (bench/retention-setup.ts; on PostgreSQL each of those days is a day partition of its own).
// Then: one warm-up window, not counted; ingest windows of D seconds without a purge; set the retention to 7 days with the CLI;
// ingest windows back to back while the purge runs, until the purger has deleted the whole
// backlog and finished its pass; then windows without a purge again. Every window starts once
// the search index has caught up with the log, so all are measured from the same state; the
// baseline is every window before and after the purge. The purge's progress is read from the
// database every second, so the report says how much of it happened during the windows and how
// much between them. On PostgreSQL (--database URL) the run uses a schema of its own, dropped at
// the end. The last stdout line is one JSON object of results.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnTsx } from '../test/helpers/processes.js';
import { dropSchema, freshSchema, type FreshSchema } from '../test/helpers/postgres.js';
import { openDatabase } from '../src/storage/database.js';
import {
  runLoad,
  searchIndexLag,
  startServer,
  stopServer,
  watchPeakRss,
  type LoadResult,
} from './ingest-harness.js';
import { purgeProgress, seedBacklog } from './retention-setup.js';

interface Flags {
  records: number;
  duration: number;
  connections: number;
  baseline: number;
  minutes: number;
  database?: string;
}

const NUMBERS = ['--records', '--duration', '--connections', '--baseline-windows', '--max-minutes'] as const;

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { records: 1_000_000, duration: 10, connections: 8, baseline: 2, minutes: 30 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined || ![...NUMBERS, '--database'].includes(flag ?? ''))
      throw new Error(
        `unknown or incomplete option ${JSON.stringify(flag)}; usage: bench:retention [--records N] [--duration S] ` +
          '[--connections N] [--baseline-windows N] [--max-minutes M] [--database URL]',
      );
    if (flag === '--database') {
      flags.database = value;
      continue;
    }
    const number = Number(value);
    if (!Number.isInteger(number) || number <= 0) throw new Error(`${flag} must be a positive integer; got ${value}`);
    if (flag === '--records') flags.records = number;
    else if (flag === '--duration') flags.duration = number;
    else if (flag === '--connections') flags.connections = number;
    else if (flag === '--baseline-windows') flags.baseline = number;
    else flags.minutes = number;
  }
  return flags;
}

async function cli(storage: string[], args: string[]): Promise<string> {
  const child = spawnTsx('src/cli/run.ts', [...args, ...storage]);
  const code = await child.exited;
  if (code !== 0) throw new Error(`sightline ${args.join(' ')} failed: ${child.stderr()}`);
  return child.stdout().trim();
}

interface Window {
  load: LoadResult;
  /** Records the purger deleted while this window's load ran. */
  purged: number;
}

const rate = (load: LoadResult) => load.records / load.seconds;
const perSecond = (windows: Window[]) =>
  windows.reduce((sum, w) => sum + w.load.records, 0) / windows.reduce((sum, w) => sum + w.load.seconds, 0);
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
    `retention benchmark: ${store}, ${whole(flags.records)} expired records, ${flags.connections} connections, ` +
      `${flags.duration} s windows; load average ${load1()}`,
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
    const server = await startServer(
      'src/cli/run.ts',
      ['serve', ...storage, '--port', String(port), '--log-level', 'warn', '--retention-interval', '10s'].concat([
        '--detection',
        'off',
      ]),
      port,
      120_000,
    );
    const memory = server.process.pid === undefined ? undefined : watchPeakRss(server.process.pid);
    const url = `http://127.0.0.1:${port}/log_sink`;
    const load = { duration: flags.duration, connections: flags.connections };
    // The purge's progress, sampled every second for the whole run.
    let progress = await purgeProgress(dataDir, postgres);
    const sampling = { on: true };
    const sampler = (async () => {
      while (sampling.on) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        progress = await purgeProgress(dataDir, postgres);
      }
    })();
    try {
      // Indexing waits while a burst lasts and catches up after it (README: Full text), so each
      // window, with or without a purge, starts with the search index caught up: otherwise the
      // windows after the first pay for the index work the first one deferred.
      const settled = async () => {
        const deadline = performance.now() + 300_000;
        while ((await searchIndexLag(dataDir, postgres)) > 0 && performance.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 250));
      };
      const window = async (): Promise<Window> => {
        await settled();
        const before = progress.purged;
        const result = await runLoad(url, load);
        progress = await purgeProgress(dataDir, postgres);
        return { load: result, purged: progress.purged - before };
      };
      // A freshly started server is slower for its first seconds (compilation, caches): one
      // window warms it up, counted nowhere.
      const warmUp = await window();
      say(`  warm-up window: ${whole(rate(warmUp.load))} records/s (not counted)`);
      const baseline: Window[] = [];
      for (let i = 0; i < flags.baseline; i++) {
        const w = await window();
        baseline.push(w);
        say(`  without purge, window ${baseline.length}: ${whole(rate(w.load))} records/s (load ${load1()})`);
      }
      const before = perSecond(baseline);

      await cli(storage, ['retention', 'set', '--tenant', 'demo', '--days', '7']);
      const purgeStart = Date.now();
      const during: Window[] = [];
      // Until the backlog is gone and the pass that deleted it has finished (on SQLite that
      // includes reclaiming the search index's deleted entries).
      const done = () =>
        progress.purged >= flags.records && (progress.measuredAt ?? 0) >= (progress.lastPurgeAt ?? Infinity);
      while (!done()) {
        const w = await window();
        during.push(w);
        say(
          `  during purge, window ${during.length}: ${whole(rate(w.load))} records/s, ${(rate(w.load) / before).toFixed(2)}× ` +
            `the windows before; ${whole(w.purged)} purged in it, ${whole(progress.purged)} in all (load ${load1()})`,
        );
        if ((Date.now() - purgeStart) / 60_000 > flags.minutes)
          throw new Error(`the purge did not finish within ${flags.minutes} minutes`);
      }
      // From the retention change to the end of the purger's pass, not rounded up to windows.
      const purgeSeconds = ((progress.measuredAt ?? Date.now()) - purgeStart) / 1000;
      const purged = progress.purged;
      for (let i = 0; i < flags.baseline; i++) {
        const w = await window();
        baseline.push(w);
        say(`  without purge, after: ${whole(rate(w.load))} records/s (load ${load1()})`);
      }
      const without = perSecond(baseline);
      const withPurge = perSecond(during);
      const ratio = withPurge / without;
      const ratios = during.map((w) => rate(w.load) / without);
      const inWindows = during.reduce((sum, w) => sum + w.purged, 0);
      const peak = memory?.peakMb();
      say(
        `  without purge: ${whole(without)} records/s over ${baseline.length} windows (${whole(before)} before, ` +
          `${whole(perSecond(baseline.slice(flags.baseline)))} after)\n` +
          `  during purge: ${whole(withPurge)} records/s over ${during.length} windows; per window ` +
          `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×\n` +
          `  purge: ${whole(purged)} records in ${purgeSeconds.toFixed(0)} s (${whole(purged / purgeSeconds)} records/s), ` +
          `${whole(inWindows)} of them while a window's load ran\n` +
          `  ratio ${ratio.toFixed(3)} (target ≥ 0.8): ${ratio >= 0.8 ? 'OK' : 'BELOW TARGET'}; server peak RSS ${peak ?? '?'} MB`,
      );
      say(
        JSON.stringify({
          store: store.toLowerCase(),
          purged,
          purge_seconds: Math.round(purgeSeconds),
          purge_records_per_s: Math.round(purged / purgeSeconds),
          purged_during_windows: inWindows,
          ingest_records_per_s_without_purge: Math.round(without),
          ingest_records_per_s_during_purge: Math.round(withPurge),
          ratio: Number(ratio.toFixed(3)),
          window_ratios: ratios.map((r) => Number(r.toFixed(3))),
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
