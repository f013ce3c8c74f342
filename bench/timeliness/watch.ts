// What bench:timeliness watches while a load runs: marker records (one per tenant a second, each
// on a host of its own, sent alone so that its 201 is its own) and, per marker, the time from
// that 201 until its observation is listed by GET /v1/observations and until a full-text search
// finds its token; the server's lag gauges from /metrics once a second; and CPU per thread from
// /proc. The polls are an analyst's screen left open: the observation list four times a second,
// a text search once a second (on SQLite each runs on the server's event loop, as ingest does),
// so the figures carry a resolution of a quarter second and a second.
import fs from 'node:fs';
import http from 'node:http';
import { hex, seededRandom } from '../../src/core/random.js';
import { markerRecord, MARKER_RULE_ID } from './mix.js';

export interface Tenant {
  code: string;
  token: string;
}

interface Marker {
  tenant: string;
  token: string;
  host: string;
  sentAt: number;
  ackedAt: number;
  detectedS?: number;
  searchableS?: number;
}

const OBSERVATION_POLL_MS = 250;
const SEARCH_POLL_MS = 1_000;
/** A search names at most this many outstanding markers (the query language's term limit is 32). */
const SEARCH_BATCH = 30;

export class MarkerWatch {
  readonly markers: Marker[] = [];
  /** The first failed poll per tenant and kind, to say why markers were never seen. */
  readonly problems = new Map<string, string>();
  private readonly random = seededRandom(42);
  private readonly senders: NodeJS.Timeout[] = [];
  private readonly pollers: NodeJS.Timeout[] = [];
  private busy = new Set<string>();
  private sending = 0;

  constructor(
    private readonly base: string,
    private readonly tenants: Tenant[],
  ) {}

  start(): void {
    for (const tenant of this.tenants) {
      this.senders.push(setInterval(() => void this.send(tenant), 1_000));
      const observations = () => this.once(`o:${tenant.code}`, () => this.pollObservations(tenant));
      const search = () => this.once(`s:${tenant.code}`, () => this.pollSearch(tenant));
      this.pollers.push(setInterval(() => void observations(), OBSERVATION_POLL_MS));
      this.pollers.push(setInterval(() => void search(), SEARCH_POLL_MS));
    }
  }

  /** Stops sending markers; keeps polling until every marker is seen or `limitS` passes. */
  async finish(limitS: number): Promise<void> {
    for (const timer of this.senders) clearInterval(timer);
    const until = performance.now() + limitS * 1000;
    const unseen = () => this.markers.some((m) => m.detectedS === undefined || m.searchableS === undefined);
    while (performance.now() < until && (this.sending > 0 || unseen()))
      await new Promise((resolve) => setTimeout(resolve, 200));
    this.stop();
  }

  stop(): void {
    for (const timer of [...this.senders, ...this.pollers]) clearInterval(timer);
  }

  private async once(key: string, run: () => Promise<void>): Promise<void> {
    if (this.busy.has(key)) return;
    this.busy.add(key);
    try {
      await run();
    } catch (error) {
      // A poll that failed is tried again at the next tick; the marker's time keeps running.
      if (!this.problems.has(key)) this.problems.set(key, error instanceof Error ? error.message : String(error));
    } finally {
      this.busy.delete(key);
    }
  }

  private async send(tenant: Tenant): Promise<void> {
    const token = `mk${hex(this.random, 20)}`;
    const host = `marker-${token.slice(2, 12)}`;
    const sentAt = performance.now();
    this.sending++;
    try {
      const status = await post(
        `${this.base}/log_sink`,
        `${tenant.code}-collector.localhost`,
        markerRecord(this.random, token, host),
      );
      if (status === 201) this.markers.push({ tenant: tenant.code, token, host, sentAt, ackedAt: performance.now() });
    } catch {
      // Not acknowledged: not a marker to wait for.
    } finally {
      this.sending--;
    }
  }

  private outstanding(tenant: string, key: 'detectedS' | 'searchableS'): Marker[] {
    return this.markers.filter((marker) => marker.tenant === tenant && marker[key] === undefined);
  }

  private since(markers: Marker[]): string {
    const oldest = Math.min(...markers.map((marker) => marker.sentAt));
    return new Date(Date.now() - (performance.now() - oldest) - 10_000).toISOString();
  }

  private async pollObservations(tenant: Tenant): Promise<void> {
    const waiting = this.outstanding(tenant.code, 'detectedS');
    if (waiting.length === 0) return;
    const query = new URLSearchParams({ rule_id: MARKER_RULE_ID, since: this.since(waiting), limit: '500' });
    const response = await fetch(`${this.base}/v1/observations?${query.toString()}`, {
      headers: { authorization: `Bearer ${tenant.token}` },
      signal: AbortSignal.timeout(30_000),
    });
    if (!response.ok) throw new Error(`GET /v1/observations answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { observations?: { host: string | null }[] };
    const seenAt = performance.now();
    const hosts = new Set((body.observations ?? []).map((observation) => observation.host));
    for (const marker of waiting) if (hosts.has(marker.host)) marker.detectedS = (seenAt - marker.ackedAt) / 1000;
  }

  private async pollSearch(tenant: Tenant): Promise<void> {
    const waiting = this.outstanding(tenant.code, 'searchableS').slice(0, SEARCH_BATCH);
    if (waiting.length === 0) return;
    const response = await fetch(`${this.base}/v1/telemetry/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: waiting.map((marker) => marker.token).join(' OR '),
        since: this.since(waiting),
        limit: 1000,
      }),
      signal: AbortSignal.timeout(300_000),
    });
    if (!response.ok) throw new Error(`search answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { records?: { record: { request?: string } }[] };
    const seenAt = performance.now();
    const found = (body.records ?? []).map((record) => record.record.request ?? '').join(' ');
    for (const marker of waiting)
      if (found.includes(marker.token)) marker.searchableS = (seenAt - marker.ackedAt) / 1000;
  }
}

/** POST with a Host header of our choosing (fetch sends the URL's): the collector routes by it. */
function post(url: string, hostHeader: string, body: unknown): Promise<number> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        timeout: 30_000,
        headers: { host: hostHeader, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
    request.end(text);
  });
}

export interface Quantiles {
  n: number;
  missing: number;
  p50: number | null;
  p99: number | null;
  max: number | null;
}

export function quantiles(values: (number | undefined)[]): Quantiles {
  const seen = values.filter((value): value is number => value !== undefined).sort((a, b) => a - b);
  const at = (q: number) =>
    seen.length ? round(seen[Math.min(seen.length - 1, Math.ceil(q * seen.length) - 1)] ?? 0) : null;
  return { n: values.length, missing: values.length - seen.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

const round = (value: number) => Math.round(value * 100) / 100;

/** The server's lag gauges, once a second. */
export class LagWatch {
  readonly samples: { atS: number; detection: number; index: number }[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly started = performance.now();

  constructor(base: string, metricsToken: string) {
    this.timer = setInterval(() => {
      const headers = { authorization: `Bearer ${metricsToken}` };
      void fetch(`${base}/metrics`, { headers, signal: AbortSignal.timeout(5_000) })
        .then((response) => response.text())
        .then((text) => {
          const gauge = (name: string) =>
            Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
          this.samples.push({
            atS: Math.round((performance.now() - this.started) / 1000),
            detection: gauge('sightline_detection_lag_records'),
            index: gauge('sightline_search_index_lag_records'),
          });
        })
        .catch(() => undefined);
    }, 1_000);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  max(key: 'detection' | 'index'): number {
    return Math.max(0, ...this.samples.map((sample) => sample[key]).filter(Number.isFinite));
  }
}

/** CPU seconds per thread of a process (utime + stime from /proc/PID/task/TID/stat), by name. */
export function threadCpu(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
      const key = `${tid === String(pid) ? 'main' : name}#${tid}`;
      byName.set(key, seconds);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byName;
}

/** The threads that used the most CPU between two readings, as "name: cores". */
export function busiestThreads(before: Map<string, number>, after: Map<string, number>, seconds: number): string[] {
  return [...after]
    .map(([key, cpu]) => [key, (cpu - (before.get(key) ?? 0)) / seconds] as const)
    .filter(([, cores]) => cores >= 0.02)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([key, cores]) => `${key} ${cores.toFixed(2)}`);
}
