// What bench:soak reads about the server process, and the arithmetic of its verdict: resident
// memory and open file descriptors from /proc, the main thread's event-loop delay from the
// server's /metrics (Node's own histogram, sampled every 10 ms, so an idle loop reads about
// 10 ms; the server resets it at each scrape, so one scrape per window is that window's),
// latency quantiles, and whether a figure stayed flat.
import fs from 'node:fs';
import http from 'node:http';

/** Resident memory now (VmRSS), MB; undefined once the process is gone or off Linux. */
export function rssMb(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** Open file descriptors of the process: the entries of /proc/<pid>/fd. */
export function openFds(pid: number): number | undefined {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}

export interface LoopDelay {
  p99Ms: number;
  maxMs: number;
}

export interface Scraped {
  /** The main thread's event-loop delay since the previous scrape. */
  loop: LoopDelay;
  /** Records the search index and detection have not reached yet. */
  lag: { index: number; detection: number };
}

/** What the server says of itself on /metrics (Prometheus text). */
export async function scrapeMetrics(base: string, token: string): Promise<Scraped | undefined> {
  const text = await new Promise<string>((resolve, reject) => {
    const request = http.get(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve(response.statusCode === 200 ? body : ''));
    });
    request.setTimeout(30_000, () => request.destroy(new Error('/metrics did not answer within 30 s')));
    request.on('error', reject);
  });
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  const p99 = value('sightline_nodejs_eventloop_lag_p99_seconds');
  const max = value('sightline_nodejs_eventloop_lag_max_seconds');
  if (!Number.isFinite(p99) || !Number.isFinite(max)) return undefined;
  return {
    loop: { p99Ms: round(p99 * 1000), maxMs: round(max * 1000) },
    lag: { index: value('sightline_search_index_lag_records'), detection: value('sightline_detection_lag_records') },
  };
}

export const round = (n: number, digits = 1) => Number(n.toFixed(digits));

export function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * Flat: the last window is no more than `tolerance` above the second (the first warms up). A
 * time may also grow by `slackMs`: a 3 ms p99 becoming 4 ms is the machine's noise, not a trend.
 */
export function flat(second: number | undefined, last: number | undefined, tolerance = 0.1, slack = 0): boolean {
  if (second === undefined || last === undefined) return false;
  return last <= second * (1 + tolerance) || last - second <= slack;
}

/** Percent change from `from` to `to`, signed, for the report. */
export function change(from: number | undefined, to: number | undefined): string {
  if (from === undefined || to === undefined) return '–';
  if (from === 0) return to === 0 ? '±0 %' : 'from 0';
  const percent = ((to - from) / from) * 100;
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(1)} %`;
}

/** `--duration`: 30m, 90s, 1h or plain seconds. */
export function parseDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(value.trim());
  if (!match) throw new Error(`--duration takes a time such as 30m, 90s or 1h; got ${JSON.stringify(value)}`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000 }[match[2] ?? 's'] ?? 1_000;
  const ms = Number(match[1]) * unit;
  if (ms < 60_000) throw new Error('--duration must be at least 1m: six windows of 10 s');
  return ms;
}
