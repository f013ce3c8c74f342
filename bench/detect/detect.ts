// `npm run bench:detect`: events per second on one core through the compiled Sigma engine
// (logsource routing + literal pre-filter) with the bundled pack, a synthetic pack and any
// `--rules` directories, beside the naive evaluate-every-rule loop on the same events in the same
// run. Both must find the same (event, rule) matches. The last stdout line is one JSON object.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  loadRuleDirectories,
  matchNaively,
  RuleSet,
  type CompiledRule,
  type RejectedRule,
} from '../../src/detection/sigma/index.js';
import { BUNDLED_RULES_DIR } from '../../src/detection/detection-setup.js';
import { createNormaliser, loadPipeline, type StoredRecord } from '../../src/telemetry/normalise/index.js';
import type { NormalisedEvent } from '../../src/telemetry/normalise/event.js';
import { buildCorpus } from './detect-corpus.js';
import { generateRules, type RecordSpec } from './detect-rules.js';
import { seededRandom } from '../../src/core/random.js';
import { at } from '../common/checked.js';

interface Flags {
  duration: number;
  synthetic: number;
  events: number;
  rules: string[];
}

const USAGE = 'usage: bench:detect [--duration S] [--synthetic N] [--events N] [--rules DIR]...';
/** The naive loop is timed for the duration but on no fewer events than this. */
const NAIVE_MIN_EVENTS = 2_000;

function parseFlags(argv: string[]): Flags {
  const flags: Flags = { duration: 5, synthetic: 3000, events: 20_000, rules: [] };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined || !['--duration', '--synthetic', '--events', '--rules'].includes(flag ?? '')) {
      throw new Error(`unknown or incomplete option ${JSON.stringify(flag)}; ${USAGE}`);
    }
    if (flag === '--rules') {
      if (!fs.statSync(value, { throwIfNoEntry: false })?.isDirectory())
        throw new Error(`--rules ${JSON.stringify(value)} is not a directory`);
      flags.rules.push(path.resolve(value));
      continue;
    }
    const number = Number(value);
    const valid =
      flag === '--duration' ? number > 0 : Number.isInteger(number) && number >= (flag === '--synthetic' ? 0 : 1);
    if (!valid)
      throw new Error(
        `${flag} must be ${flag === '--duration' ? 'a positive number of seconds' : flag === '--synthetic' ? 'an integer ≥ 0' : 'a positive integer'}; got ${JSON.stringify(value)}`,
      );
    if (flag === '--duration') flags.duration = number;
    else if (flag === '--synthetic') flags.synthetic = number;
    else flags.events = number;
  }
  return flags;
}

// ---- Rules, matching, timing.

interface Loaded {
  rules: CompiledRule[];
  counts: { bundled: number; synthetic: number; extra: number };
  rejected: { bundled: RejectedRule[]; synthetic: RejectedRule[]; extra: RejectedRule[] };
  seconds: number;
}

/** Compiles every directory in one load (as the server does), then attributes rules by path. */
function loadRules(
  syntheticDir: string | undefined,
  extra: readonly string[],
  placeholders: Readonly<Record<string, readonly string[]>>,
): Loaded {
  const roots = [BUNDLED_RULES_DIR, ...(syntheticDir ? [syntheticDir] : []), ...extra];
  const start = performance.now();
  const compilation = loadRuleDirectories(roots, { placeholders });
  const seconds = (performance.now() - start) / 1000;
  const origin = (file: string): 'bundled' | 'synthetic' | 'extra' => {
    if (syntheticDir && file.startsWith(syntheticDir + path.sep)) return 'synthetic';
    return file.startsWith(BUNDLED_RULES_DIR) ? 'bundled' : 'extra';
  };
  const counts = { bundled: 0, synthetic: 0, extra: 0 };
  for (const rule of compilation.rules) counts[origin(rule.file)]++;
  const rejected = { bundled: [] as RejectedRule[], synthetic: [] as RejectedRule[], extra: [] as RejectedRule[] };
  for (const entry of compilation.rejected) rejected[origin(entry.file)].push(entry);
  return { rules: compilation.rules, counts, rejected, seconds };
}

/** One pass over every event: each match as eventIndex * ruleCount + ruleIndex, sorted. */
function matchKeys(
  events: readonly NormalisedEvent[],
  rules: readonly CompiledRule[],
  match: (event: NormalisedEvent) => CompiledRule[],
): { keys: Float64Array; seconds: number } {
  const index = new Map(rules.map((rule, position) => [rule, position]));
  const keys: number[] = [];
  const start = performance.now();
  for (const [i, event] of events.entries()) {
    for (const rule of match(event)) {
      const position = index.get(rule);
      if (position === undefined)
        throw new Error(`event ${i} matched a rule that is not in the loaded list: ${rule.id} (${rule.file})`);
      keys.push(i * rules.length + position);
    }
  }
  const seconds = (performance.now() - start) / 1000;
  return { keys: Float64Array.from(keys).sort(), seconds };
}

function compareMatches(
  compiled: Float64Array,
  naive: Float64Array,
  rules: readonly CompiledRule[],
  events: readonly NormalisedEvent[],
): string[] {
  const describe = (key: number, side: string) => {
    const event = at(events, Math.floor(key / rules.length));
    const rule = rules[key % rules.length];
    return `  ${side} only: event ${Math.floor(key / rules.length)} (${event.family}, seq ${event.seq}) × rule ${rule?.id ?? '(not in the rule list)'} "${rule?.title ?? ''}" (${rule?.file ?? ''})`;
  };
  const problems: string[] = [];
  let a = 0;
  let b = 0;
  while ((a < compiled.length || b < naive.length) && problems.length < 20) {
    const x = compiled[a] ?? Infinity;
    const y = naive[b] ?? Infinity;
    if (x === y) {
      a++;
      b++;
    } else if (x < y) {
      problems.push(describe(x, 'compiled'));
      a++;
    } else {
      problems.push(describe(y, 'naive'));
      b++;
    }
  }
  return problems;
}

/**
 * CPU seconds this thread has run (Linux: /proc/thread-self/stat, in clock ticks of 10 ms);
 * null elsewhere. Node 20 has no per-thread CPU clock of its own.
 */
function threadCpuSeconds(): number | null {
  const stat = fs.readFileSync('/proc/thread-self/stat', { encoding: 'utf8', flag: 'r' });
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks / 100 : null;
}

const threadClock = fs.existsSync('/proc/thread-self/stat') ? threadCpuSeconds : () => null;

/** Matches events (looping over the corpus) until `seconds` have passed and `minEvents` are done. */
function timeLoop(
  events: readonly NormalisedEvent[],
  match: (event: NormalisedEvent) => CompiledRule[],
  seconds: number,
  minEvents: number,
): { events: number; matches: number; seconds: number; cpuSeconds: number; threadSeconds: number | null } {
  const limit = seconds * 1000;
  const threadStart = threadClock();
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  let done = 0;
  let next = 0;
  let elapsed = 0;
  let matches = 0;
  do {
    for (let k = 0; k < 64; k++) {
      matches += match(at(events, next)).length;
      if (++next === events.length) next = 0;
    }
    done += 64;
    elapsed = performance.now() - start;
  } while (elapsed < limit || done < minEvents);
  const cpu = process.cpuUsage(cpuStart);
  const threadEnd = threadClock();
  const threadSeconds = threadStart === null || threadEnd === null ? null : threadEnd - threadStart;
  return { events: done, matches, seconds: elapsed / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, threadSeconds };
}

const fmt = (value: number) => Math.round(value).toLocaleString('en-US');

/** Every rule that fired on the corpus, most matches first, with its logsource and file. */
function printFired(keys: Float64Array, rules: readonly CompiledRule[]): void {
  const counts = new Map<number, number>();
  for (const key of keys) counts.set(key % rules.length, (counts.get(key % rules.length) ?? 0) + 1);
  process.stdout.write(`rules fired (${counts.size}), matches each:\n`);
  for (const [index, count] of [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])) {
    const rule = at(rules, index);
    const source = Object.values(rule.logsource).filter(Boolean).join('/');
    const file = path.relative(process.cwd(), rule.file);
    process.stdout.write(`  ${String(count).padStart(6)}  ${rule.title} [${source}] ${file}\n`);
  }
}

function printRejected(label: string, list: readonly RejectedRule[]): void {
  if (list.length === 0) return;
  process.stdout.write(`  ${list.length} ${label} rule document(s) rejected:\n`);
  for (const entry of list.slice(0, 20)) process.stdout.write(`    [${entry.construct}] ${entry.message}\n`);
  if (list.length > 20) process.stdout.write(`    … and ${list.length - 20} more\n`);
}

const cleanup: (() => void)[] = [];

function main(): void {
  const flags = parseFlags(process.argv.slice(2));
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  process.stdout.write(
    `detection benchmark: one thread (${cpu}), ${flags.duration} s per timed loop, Node ${process.version}\n`,
  );

  const pipeline = loadPipeline();
  let syntheticDir: string | undefined;
  let triggers: RecordSpec[] = [];
  if (flags.synthetic > 0) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-detect-'));
    cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    syntheticDir = dir;
    const synthetic = generateRules(flags.synthetic, seededRandom(20_261_123));
    for (const rule of synthetic) {
      fs.mkdirSync(path.dirname(path.join(dir, rule.file)), { recursive: true });
      fs.writeFileSync(path.join(dir, rule.file), rule.text);
    }
    triggers = synthetic.map((rule) => rule.trigger);
  }

  const loaded = loadRules(syntheticDir, flags.rules, pipeline.placeholders);
  const { rules, counts, rejected } = loaded;
  const buildStart = performance.now();
  const ruleSet = new RuleSet(rules);
  const buildSeconds = (performance.now() - buildStart) / 1000;
  process.stdout.write(
    `rules: ${fmt(rules.length)} loaded (bundled ${counts.bundled}, synthetic ${counts.synthetic}, extra ${counts.extra}); ` +
      `compiled in ${loaded.seconds.toFixed(2)} s, rule set built in ${(buildSeconds * 1000).toFixed(0)} ms; ` +
      `rejected: bundled ${rejected.bundled.length}, synthetic ${rejected.synthetic.length}, extra ${rejected.extra.length}\n`,
  );
  printRejected('bundled', rejected.bundled);
  printRejected('synthetic', rejected.synthetic);
  printRejected('extra', rejected.extra);
  if (rejected.synthetic.length > 0 || counts.synthetic !== flags.synthetic) {
    throw new Error(
      `the engine compiled ${counts.synthetic} of ${flags.synthetic} synthetic rules; every one must compile`,
    );
  }
  if (rules.length === 0) throw new Error('no rules loaded');

  // Its own seed: the benign records are the same whatever --synthetic says.
  const corpus = buildCorpus(flags.events, seededRandom(20_240_611), triggers);
  const normaliser = createNormaliser(pipeline);
  const normaliseStart = performance.now();
  const events = corpus.records.map((record, index): NormalisedEvent => {
    const stored: StoredRecord = {
      seq: index + 1,
      tenantId: 1,
      receivedAt: Date.now(),
      eventTime: Date.now(),
      record,
      meta: null,
    };
    return normaliser.normalise(stored);
  });
  const normaliseSeconds = (performance.now() - normaliseStart) / 1000;
  const families = new Map<string, number>();
  for (const event of events) families.set(event.family, (families.get(event.family) ?? 0) + 1);
  process.stdout.write(
    `events: ${fmt(events.length)} (${[...families].map(([family, n]) => `${family} ${n}`).join(', ')}), ${corpus.attacks} attack records; ` +
      `normalised once in ${normaliseSeconds.toFixed(2)} s (${fmt(events.length / normaliseSeconds)} records/s, not part of the figures below)\n`,
  );

  // First full pass with both: the correctness check, and the JIT's warm-up.
  const compiledPass = matchKeys(events, rules, (event) => ruleSet.match(event));
  const naivePass = matchKeys(events, rules, (event) => matchNaively(rules, event));
  const problems = compareMatches(compiledPass.keys, naivePass.keys, rules, events);
  if (problems.length > 0) {
    throw new Error(
      `the compiled rule set and the naive loop disagree (${compiledPass.keys.length} vs ${naivePass.keys.length} matches):\n${problems.join('\n')}`,
    );
  }
  const firedRules = new Set(Array.from(compiledPass.keys, (key) => key % rules.length)).size;
  process.stdout.write(
    `check: compiled and naive found the same ${fmt(compiledPass.keys.length)} (event, rule) matches on the first pass: OK ` +
      `(${((compiledPass.keys.length / events.length) * 1000).toFixed(1)} matches per 1000 events, ${firedRules} distinct rules fired; ` +
      `first pass ${fmt(events.length / compiledPass.seconds)} vs ${fmt(events.length / naivePass.seconds)} events/s)\n`,
  );

  printFired(compiledPass.keys, rules);

  // Rates are per CPU-second of this process: one thread does the matching, and V8's helper
  // threads (garbage collection, compilation) are counted with it, so the figure is what one core
  // gives. On a machine shared with other work, wall-clock time measures the scheduler as much as
  // the engine. The matching thread's own CPU time is printed beside it.
  const compiled = timeLoop(events, (event) => ruleSet.match(event), flags.duration, 0);
  const compiledRate = compiled.events / compiled.cpuSeconds;
  const threadRate = (run: { events: number; threadSeconds: number | null }) =>
    run.threadSeconds ? `, ${fmt(run.events / run.threadSeconds)} per CPU-second of the matching thread alone` : '';
  process.stdout.write(
    `compiled (routing + pre-filter): ${fmt(compiledRate)} events per CPU-second of the process (${fmt(compiled.events)} events in ` +
      `${compiled.cpuSeconds.toFixed(2)} CPU-s; ${fmt(compiled.events / compiled.seconds)} per wall-clock second${threadRate(compiled)})\n`,
  );
  const naive = timeLoop(events, (event) => matchNaively(rules, event), flags.duration, NAIVE_MIN_EVENTS);
  const naiveRate = naive.events / naive.cpuSeconds;
  process.stdout.write(
    `naive (every rule's logsource and condition): ${fmt(naiveRate)} events per CPU-second of the process (${fmt(naive.events)} events in ` +
      `${naive.cpuSeconds.toFixed(2)} CPU-s; ${fmt(naive.events / naive.seconds)} per wall-clock second${threadRate(naive)})\n`,
  );
  const ratio = compiledRate / naiveRate;
  const met = compiledRate >= 100_000 && rules.length >= 3000 && ratio >= 30;
  process.stdout.write(
    `ratio: ${ratio.toFixed(1)}× the naive loop; target (≥ 100,000 events per CPU-second with ≥ 3,000 rules, ≥ 30×): ${met ? 'met' : 'not met'}; ` +
      `load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} CPUs\n`,
  );
  process.stdout.write(
    `${JSON.stringify({ rules: rules.length, events_per_s: Math.round(compiledRate), events_per_s_basis: 'process_cpu_second', naive_events_per_s: Math.round(naiveRate), ratio: Number(ratio.toFixed(2)), load_average: Number(os.loadavg()[0]?.toFixed(2)) })}\n`,
  );
}

function runCleanup(): void {
  for (const step of cleanup.splice(0)) step();
}

const interrupt = (signal: NodeJS.Signals) => {
  process.stderr.write(`${signal}: removing the synthetic rules\n`);
  runCleanup();
  process.exit(130);
};
process.on('SIGINT', interrupt);
process.on('SIGTERM', interrupt);

try {
  main();
} catch (error) {
  process.stderr.write(`bench:detect failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  runCleanup();
}
