// bench:query's timing: a scenario's requests one at a time against the server, each checked,
// with a timeout that abandons a request the server does not answer; and the figures (p50, p99,
// max, req/s) of the latencies.
import { performance } from 'node:perf_hooks';
import type { Scenario } from './query-scenarios.js';
import { at } from '../common/checked.js';

export const WARMUP_REQUESTS = 10;
export const MIN_REQUESTS = 20;

export interface Figures {
  requests: number;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** A request was abandoned after --timeout; it counts as taking exactly that long (a lower bound). */
  timed_out: boolean;
  latencies: number[];
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return at(sorted, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1));
}

export function figures(latencies: number[], seconds: number, timedOut: boolean): Figures {
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    requests_per_s: latencies.length / seconds,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    max_ms: sorted[sorted.length - 1] ?? Number.NaN,
    timed_out: timedOut,
    latencies,
  };
}

export class RequestTimeout extends Error {}

/**
 * Up to `count` requests, one at a time (fewer once `budgetS` has passed and MIN_REQUESTS are
 * done); the latency runs from sending to the last byte of the body. A request slower than
 * `timeoutMs` ends the scenario.
 */
export async function run(
  base: string,
  headers: Record<string, string>,
  scenario: Scenario,
  count: number,
  offset: number,
  limits: { timeoutMs: number; budgetS: number },
): Promise<Figures> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    if (i >= MIN_REQUESTS && performance.now() - started > limits.budgetS * 1000) break;
    const request = scenario.request(offset + i);
    const init: RequestInit = {
      method: request.method,
      headers: request.body !== undefined ? { ...headers, 'Content-Type': 'application/json' } : headers,
      signal: AbortSignal.timeout(limits.timeoutMs),
    };
    if (request.body !== undefined) init.body = request.body;
    const t0 = performance.now();
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${base}${request.path}`, init);
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        latencies.push(limits.timeoutMs);
        const result = figures(latencies, (performance.now() - started) / 1000, true);
        throw Object.assign(new RequestTimeout(`${scenario.label}: no answer within ${limits.timeoutMs} ms`), {
          result,
        });
      }
      throw error;
    }
    latencies.push(performance.now() - t0);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const problem = request.check(status, body);
    if (problem)
      throw new Error(
        `${scenario.label}: ${problem}; ${request.method} ${request.path} ${request.body ?? ''} answered ${text.slice(0, 300)}`,
      );
  }
  return figures(latencies, (performance.now() - started) / 1000, false);
}
