// bench:query's report: the table of scenarios (matching cases, requests, req/s, p50, p99, max,
// ratio to the baseline), the pooled searches and gets, whether the target was met, and the
// one-line JSON summary that ends the output.
import os from 'node:os';
import { figures, type Figures } from './query-timing.js';
import type { Scenario } from './query-scenarios.js';
import { at, present } from '../common/checked.js';

export const TARGET_P99_MS = 20;

const pad = (text: string, width: number) => text.padEnd(width);
const num = (value: number, width: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }).padStart(width);
const round2 = (value: number) => Number(value.toFixed(2));

/** A latency; `≥` marks a lower bound (the scenario had a request abandoned at the timeout). */
const ms = (value: number, lowerBound: boolean) => ` ${lowerBound ? '≥' : ''}${num(value, 0, 2)}`.padStart(10);

function row(label: string, result: Figures, baselineRps: number, matching: string, baseline = false): string {
  const flag = result.timed_out ? '  TIMED OUT' : !baseline && result.p99_ms > TARGET_P99_MS ? '  > target' : '';
  const rps = num(result.requests_per_s, 8, result.requests_per_s < 10 ? 1 : 0);
  return `${pad(label, 46)}${matching.padStart(9)}${num(result.requests, 6)}${rps}${ms(result.p50_ms, result.timed_out)}${ms(result.p99_ms, result.timed_out)}${ms(result.max_ms, result.timed_out)}${num(result.requests_per_s / baselineRps, 8, 3)}${flag}\n`;
}

/** The 1-minute load average beside the CPU count: other work on the machine shows in the latencies. */
export const loadAverage = () => at(os.loadavg(), 0).toFixed(1);

/** The summary the last line of the output holds, as one JSON object. */
export interface QuerySummary {
  cases: number;
  search_p50_ms: number;
  search_p99_ms: number;
  get_p50_ms: number;
  get_p99_ms: number;
  counts_p50_ms: number;
  counts_p99_ms: number;
}

/**
 * The table of every scenario's figures (`baselineAgain`: the baseline's second run, at the
 * end) and the summary of the run; `timeoutS` explains timed-out scenarios.
 */
export function report(
  all: Scenario[],
  results: Map<string, Figures>,
  baselineAgain: Figures,
  run: { cases: number; timeoutS: number },
): { table: string; summary: QuerySummary } {
  const figuresOf = (key: string) => present(results.get(key), `the figures of ${key}`);
  const baselineFirst = figuresOf('healthz');
  const baselineRps = (baselineFirst.requests_per_s + baselineAgain.requests_per_s) / 2;
  let table =
    `\n${pad('scenario (POST /v1/cases, limit 50, unless GET)', 46)}${'matching'.padStart(9)}${'n'.padStart(6)}${'req/s'.padStart(8)}` +
    `${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'max ms'.padStart(10)}${'ratio'.padStart(8)}\n`;
  for (const scenario of all) {
    const totals = scenario.totals ? [...scenario.totals] : [];
    const matching =
      totals.length === 0
        ? scenario.group === 'search'
          ? '?'
          : ''
        : totals.length === 1
          ? at(totals, 0).toLocaleString('en-US')
          : `~${Math.round(totals.reduce((a, b) => a + b, 0) / totals.length).toLocaleString('en-US')}`;
    table += row(scenario.label, figuresOf(scenario.key), baselineRps, matching, scenario.group === 'baseline');
  }
  table += row('GET /healthz again (baseline, 2nd run)', baselineAgain, baselineRps, '', true);
  const pooled = (group: Scenario['group']) => {
    const members = all.filter((scenario) => scenario.group === group).map((scenario) => figuresOf(scenario.key));
    return figures(
      members.flatMap((result) => result.latencies),
      1,
      members.some((result) => result.timed_out),
    );
  };
  const searchAll = pooled('search');
  const getAll = pooled('get');
  const counts = figuresOf('counts');
  const pooledRow = (label: string, result: Figures) =>
    `${pad(label, 46)}${''.padStart(9)}${num(result.requests, 6)}${''.padStart(8)}${ms(result.p50_ms, result.timed_out)}${ms(result.p99_ms, result.timed_out)}${ms(result.max_ms, result.timed_out)}\n`;
  const over = all
    .filter((scenario) => scenario.group !== 'baseline' && figuresOf(scenario.key).p99_ms > TARGET_P99_MS)
    .map((scenario) => scenario.key);
  const timedOut = all.filter((scenario) => figuresOf(scenario.key).timed_out).map((scenario) => scenario.key);
  table +=
    pooledRow('all searches pooled', searchAll) +
    pooledRow('all GETs pooled', getAll) +
    `matching: cases the filter matches (the response's total; ~ the mean over the rotating values). n: requests measured. ` +
    `ratio: req/s over the mean of the two baseline runs (${Math.round(baselineRps).toLocaleString('en-US')} req/s; they differ by ` +
    `${((Math.abs(baselineFirst.requests_per_s - baselineAgain.requests_per_s) / baselineRps) * 100).toFixed(1)} %)\n` +
    (timedOut.length > 0
      ? `timed out: ${timedOut.join(', ')} — a request got no answer within ${run.timeoutS} s, the server was restarted and the scenario's ` +
        `remaining requests skipped (? : no total seen); the abandoned request counts as ${run.timeoutS} s, so figures including it are lower bounds (≥)\n`
      : '') +
    `load average at the end ${loadAverage()} on ${os.cpus().length} CPUs (client, server and anything else running share them)\n` +
    `check: every answered request was 200 with the total, total_relation and page size of the seeded data, each filter's first page in the expected order, the counts, ` +
    `each case with its observations, devices and comments: OK\n` +
    `target (p99 ≤ ${TARGET_P99_MS} ms for every search and get): ${over.length === 0 ? 'met' : `not met (${over.join(', ')})`}\n`;
  return {
    table,
    summary: {
      cases: run.cases,
      search_p50_ms: round2(searchAll.p50_ms),
      search_p99_ms: round2(searchAll.p99_ms),
      get_p50_ms: round2(getAll.p50_ms),
      get_p99_ms: round2(getAll.p99_ms),
      counts_p50_ms: round2(counts.p50_ms),
      counts_p99_ms: round2(counts.p99_ms),
    },
  };
}
