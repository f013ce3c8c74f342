// `npm run bench:overload`: what the collector does at ten times the rate it can sustain. It
// measures the sustainable rate first (closed-loop senders, as bench:ingest), then offers ten
// times that rate open-loop (a request every 1/rate seconds whatever the answers), and watches
// the server's memory (VmHWM, the peak resident set, and VmRSS) the whole time and after. It
// checks that every overloaded sender read its 503 (no connection failure), that the server
// logged the overload as counts rather than a line per request, and that every acknowledged
// record was stored. The last stdout line is one JSON object of results.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnTsx, stopChild, type Child } from '../../test/helpers/processes.js';
import { dropSchema, freshSchema } from '../../test/helpers/postgres.js';
import {
  active,
  countStored,
  memoryOf,
  runLoad,
  startServer,
  stopServer,
  type Memory,
} from '../common/ingest-harness.js';

interface Flags {
  duration: number;
  factor: number;
  database?: string;
}

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { duration: 20, factor: 10 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--database' && value) flags.database = value;
    else if ((flag === '--duration' || flag === '--factor') && value && Number(value) > 0)
      flags[flag === '--duration' ? 'duration' : 'factor'] = Number(value);
    else throw new Error(`usage: bench:overload [--duration S] [--factor N] [--database URL]; got ${String(flag)}`);
  }
  return flags;
}

interface Generated {
  requests: number;
  skipped_at_cap: number;
  sending_s: number;
  total_s: number;
  accepted_records: number;
  records_per_body: number;
  statuses: Record<string, number>;
  connection_failures: Record<string, number>;
}

async function overload(url: string, rate: number, durationS: number): Promise<Generated> {
  const generator: Child = spawnTsx('bench/overload/overload-generator.ts', [
    '--url',
    url,
    '--rate',
    rate.toFixed(2),
    '--duration',
    String(durationS),
    '--max-in-flight',
    '2000',
  ]);
  active.add(generator);
  const code = await generator.exited;
  active.delete(generator);
  const last = generator.stdout().trim().split('\n').pop() ?? '';
  if (code !== 0 || !last.startsWith('{'))
    throw new Error(`overload generator failed (exit ${code}):\n${generator.stderr()}${generator.stdout()}`);
  return JSON.parse(last) as Generated;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-overload-'));
  const postgres = flags.database ? freshSchema(flags.database, 'overload') : undefined;
  const args = ['serve', '--data', dataDir, '--log-level', 'info'];
  if (postgres) args.push('--database', postgres.url);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/log_sink`;
  const server = await startServer('src/cli/run.ts', [...args, '--port', String(port)], port, 60_000);
  const pid = server.process.pid;
  if (pid === undefined) throw new Error('the server has no pid');
  const samples: Memory[] = [];
  const sampler = setInterval(() => {
    const memory = memoryOf(pid);
    if (memory) samples.push(memory);
  }, 250);
  try {
    process.stdout.write(`overload benchmark: store ${postgres ? 'PostgreSQL' : 'SQLite'}, ×${flags.factor}\n`);
    const sustained = await runLoad(url, { connections: 8, duration: 8 });
    const recordsPerS = sustained.records / sustained.seconds;
    const idle = memoryOf(pid);
    process.stdout.write(
      `sustainable: ${Math.round(recordsPerS).toLocaleString('en-US')} records/s (8 closed-loop senders), ` +
        `server RSS ${idle?.rssMb ?? '?'} MB\n`,
    );
    // The overload rate in requests/s: the generator's bodies hold ~2,000 records of ~500 B.
    const offered = await overload(url, (flags.factor * recordsPerS) / 2_000, flags.duration);
    const peakDuring = Math.max(...samples.map((sample) => sample.hwmMb));
    await sleep(15_000);
    const after = memoryOf(pid);
    const failures = Object.values(offered.connection_failures).reduce((sum, n) => sum + n, 0);
    const log = `${server.stdout()}${server.stderr()}`;
    const logLines = log.split('\n').filter((line) => line.includes('"level"')).length;
    await stopServer(server, 'Sightline server');
    const stored = await countStored(dataDir, postgres);
    const acknowledged = sustained.records + offered.accepted_records;
    process.stdout.write(
      `offered ${offered.requests} requests at ${(offered.requests / offered.sending_s).toFixed(1)}/s ` +
        `(${(((offered.requests / offered.sending_s) * offered.records_per_body) / recordsPerS).toFixed(1)}× sustainable) for ${offered.sending_s} s; ` +
        `answers ${JSON.stringify(offered.statuses)}; connection failures ${JSON.stringify(offered.connection_failures)}\n` +
        `server memory: peak (VmHWM) ${peakDuring} MB, RSS 15 s after the load ${after?.rssMb ?? '?'} MB\n` +
        `server log: ${logLines} line(s)\n` +
        `check: ${stored.toLocaleString('en-US')} records stored, ${acknowledged.toLocaleString('en-US')} acknowledged: ` +
        `${stored >= acknowledged ? 'OK' : 'FAIL, acknowledged records are missing'}\n`,
    );
    process.stdout.write(
      `${JSON.stringify({
        sustainable_records_per_s: Math.round(recordsPerS),
        offered_factor: Number(
          (((offered.requests / offered.sending_s) * offered.records_per_body) / recordsPerS).toFixed(1),
        ),
        peak_rss_mb: peakDuring,
        rss_after_mb: after?.rssMb ?? null,
        answered_503: offered.statuses['503'] ?? 0,
        connection_failures: failures,
        log_lines: logLines,
        acknowledged,
        stored,
      })}\n`,
    );
    if (stored < acknowledged) process.exitCode = 1;
  } finally {
    clearInterval(sampler);
    await Promise.all([...active].map((child) => stopChild(child)));
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (postgres) await dropSchema(postgres.baseUrl, postgres.schema);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:overload failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
