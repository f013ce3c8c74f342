// bench:soak's mixed load on one server, all of it through HTTP as clients send it: records
// offered open loop to the collector (a request starts at its slot whatever the earlier ones
// did; past a cap of requests in flight the slot is skipped and counted as an error), a marker
// record now and then that detection turns into an observation on a case of its own, text and
// field searches, case updates and comments (each answered by a webhook delivery), summaries
// from the mock model, and the retention changes that keep the purger busy. Every request's
// latency and outcome lands in the current window, by kind.
import http from 'node:http';
import { seededRandom } from '../../src/core/random.js';
import { markerRecord, mixRecord } from '../timeliness/mix.js';
import { quantile } from './soak-measure.js';

export const KINDS = ['ingest', 'marker', 'search', 'case_update', 'comment', 'summary', 'retention'] as const;
export type Kind = (typeof KINDS)[number];

interface KindWindow {
  latencies: number[];
  errors: number;
}

export interface WindowLoad {
  kinds: Record<Kind, KindWindow>;
  /** Records the collector acknowledged (201) in this window. */
  acked: number;
  /** Version conflicts of case updates (a marker added an observation first): re-read, not errors. */
  conflicts: number;
}

export interface LoadPlan {
  base: string;
  /** Records per second offered to the collector. */
  rate: number;
  /** Bearer tokens: the tenant under load, and the tenant whose retention shrinks. */
  token: string;
  retentionToken: string;
}

const PER_REQUEST = 200;
const MAX_IN_FLIGHT = 256;
const BODIES = 32;
/** Seconds between the other kinds' requests. */
const EVERY_S = { marker: 10, search: 2, case: 3, summary: 20 } as const;
const QUERIES = [
  { query: 'DescribeInstances' },
  { query: 'garden AND price' },
  { query: 'Firefox' },
  { filters: { source: 'nginx' } },
  { query: 'sshd' },
];

export interface Answer {
  status: number;
  body: string;
}

export class SoakLoad {
  readonly windows: WindowLoad[] = [];
  /** Failures by what they were (kind, status or error, a little of the body), counted. */
  readonly failures = new Map<string, number>();
  ackedTotal = 0;
  private stopped = false;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 300 });
  private readonly running: Promise<void>[] = [];
  private readonly versions = new Map<string, number>();
  private readonly random = seededRandom(36);
  private cases: string[] = [];

  constructor(private readonly plan: LoadPlan) {
    this.nextWindow();
  }

  /** The cases the updates, comments and summaries go to. */
  useCases(cases: string[]): void {
    this.cases = cases;
  }

  get window(): WindowLoad {
    const current = this.windows.at(-1);
    if (!current) throw new Error('no window');
    return current;
  }

  nextWindow(): void {
    const kinds = {} as Record<Kind, KindWindow>;
    for (const kind of KINDS) kinds[kind] = { latencies: [], errors: 0 };
    this.windows.push({ kinds, acked: 0, conflicts: 0 });
  }

  /** Connections the load holds open to the server now: each is a descriptor the server holds too. */
  connections(): number {
    const count = (sockets: NodeJS.ReadOnlyDict<unknown[]>) =>
      Object.values(sockets).reduce((sum, list) => sum + (list?.length ?? 0), 0);
    return count(this.agent.sockets) + count(this.agent.freeSockets);
  }

  /** Starts the load; what was sent before (the setup) is left out of the windows. */
  start(): void {
    this.windows.length = 0;
    this.nextWindow();
    this.running.push(this.ingest());
    let marker = 0;
    this.running.push(this.every(EVERY_S.marker, () => this.marker(marker++)));
    let search = 0;
    this.running.push(this.every(EVERY_S.search, () => this.search(search++)));
    let update = 0;
    this.running.push(this.every(EVERY_S.case, () => this.updateCase(update++)));
    let summary = 0;
    this.running.push(this.every(EVERY_S.summary, () => this.summary(summary++)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.running);
    this.agent.destroy();
  }

  /** One request, timed and counted under `kind`; `ok` says which statuses are a success. */
  async call(
    kind: Kind,
    method: string,
    path: string,
    options: { body?: unknown; raw?: Buffer; host?: string; token?: string; ok?: (status: number) => boolean },
  ): Promise<Answer | undefined> {
    const payload = options.raw ?? (options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body)));
    const started = performance.now();
    try {
      const answer = await this.send(method, path, payload, {
        ...(options.host ? { host: options.host, 'content-type': 'application/x-ndjson' } : {}),
        ...(options.raw || options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.host ? {} : { authorization: `Bearer ${options.token ?? this.plan.token}` }),
      });
      // In the window the answer came in: a slow answer is seen where it ends, never dropped.
      this.window.kinds[kind].latencies.push(performance.now() - started);
      const ok = options.ok ?? ((status: number) => status >= 200 && status < 300);
      if (!ok(answer.status)) this.fail(kind, `${method} ${path}: ${answer.status} ${answer.body.slice(0, 160)}`);
      return answer;
    } catch (error) {
      this.fail(kind, `${method} ${path}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  /** Every failure there was, in or after the windows. */
  errorsTotal(): number {
    return [...this.failures.values()].reduce((sum, count) => sum + count, 0);
  }

  private fail(kind: Kind, what: string): void {
    this.window.kinds[kind].errors++;
    const key = `${kind}: ${what}`;
    // Counted whatever they are; described up to 20 different ones.
    const shown = this.failures.has(key) || this.failures.size < 20 ? key : `${kind}: other failures`;
    this.failures.set(shown, (this.failures.get(shown) ?? 0) + 1);
  }

  private send(
    method: string,
    path: string,
    body: Buffer | undefined,
    headers: Record<string, string>,
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const request = http.request(
        `${this.plan.base}${path}`,
        {
          method,
          agent: this.agent,
          headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
          timeout: 60_000,
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
          response.on('error', reject);
        },
      );
      request.on('timeout', () => request.destroy(new Error('no answer within 60 s')));
      request.on('error', reject);
      request.end(body);
    });
  }

  /** Runs `task` every `seconds` (at once after a call that took longer), until stopped. */
  private async every(seconds: number, task: () => Promise<void>): Promise<void> {
    const started = performance.now();
    for (let slot = 0; !this.stopped; slot++) {
      const wait = started + slot * seconds * 1000 - performance.now();
      if (wait > 0) await this.sleep(wait);
      if (this.isStopped()) break;
      await task();
    }
  }

  /** A method, not the field: the field's value changes while a loop awaits. */
  private isStopped(): boolean {
    return this.stopped;
  }

  /** Sleeps up to `ms`, waking early when the load stops. */
  private async sleep(ms: number): Promise<void> {
    const until = performance.now() + ms;
    while (!this.stopped && performance.now() < until)
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, until - performance.now())));
  }

  private async ingest(): Promise<void> {
    const now = new Date().toISOString();
    const bodies = Array.from({ length: BODIES }, () =>
      Buffer.from(Array.from({ length: PER_REQUEST }, () => JSON.stringify(mixRecord(this.random, now))).join('\n')),
    );
    const intervalMs = (1000 * PER_REQUEST) / this.plan.rate;
    const pending = new Set<Promise<void>>();
    const started = performance.now();
    for (let slot = 0; !this.stopped; slot++) {
      const wait = started + slot * intervalMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (pending.size >= MAX_IN_FLIGHT) {
        this.fail('ingest', 'slot skipped: requests in flight at the cap');
        continue;
      }
      const sent = this.call('ingest', 'POST', '/log_sink', {
        raw: bodies[slot % BODIES],
        host: 'soak-collector.localhost',
      }).then((answer) => {
        if (answer?.status === 201) this.acked(PER_REQUEST);
      });
      pending.add(sent);
      void sent.then(() => pending.delete(sent));
    }
    await Promise.all(pending);
  }

  private acked(records: number): void {
    this.window.acked += records;
    this.ackedTotal += records;
  }

  /**
   * A record detection turns into an observation, on `host` (by default one of four that the
   * load's markers share, apart from the cases the load updates).
   */
  async marker(n: number, host = `soak-edge-${n % 4}`): Promise<void> {
    const record = markerRecord(this.random, `soakmarker${n}`, host);
    const answer = await this.call('marker', 'POST', '/log_sink', {
      raw: Buffer.from(JSON.stringify(record)),
      host: 'soak-collector.localhost',
    });
    if (answer?.status === 201) this.acked(1);
  }

  private async search(n: number): Promise<void> {
    const since = new Date(Date.now() - 5 * 60_000).toISOString();
    const criteria = QUERIES[n % QUERIES.length] ?? {};
    await this.call('search', 'POST', '/v1/telemetry/search', {
      body: { ...criteria, since, limit: 20, order: 'desc' },
    });
  }

  private caseAt(n: number): string {
    const id = this.cases[n % this.cases.length];
    if (!id) throw new Error('no cases to update');
    return id;
  }

  /** Alternately a change of severity and tags, and a comment, on the seeded cases in turn. */
  private async updateCase(n: number): Promise<void> {
    const id = this.caseAt(n >> 1);
    if (n % 2 === 1) {
      await this.call('comment', 'POST', `/v1/cases/${id}/comments`, {
        body: { body: `Soak comment ${n}: checked **web logs**, see \`GET /item\`.` },
      });
      return;
    }
    let version = this.versions.get(id);
    if (version === undefined) {
      const read = await this.call('case_update', 'GET', `/v1/cases/${id}`, {});
      version = read?.status === 200 ? (JSON.parse(read.body) as { version: number }).version : undefined;
      if (version === undefined) return;
    }
    const severity = ['low', 'medium', 'high'][n % 3];
    const answer = await this.call('case_update', 'PATCH', `/v1/cases/${id}`, {
      body: { version, severity, tags: [`soak-${n % 5}`] },
      ok: (status) => status === 200 || status === 409,
    });
    if (answer?.status === 200) this.versions.set(id, (JSON.parse(answer.body) as { version: number }).version);
    else if (answer?.status === 409) {
      this.window.conflicts++;
      this.versions.delete(id);
    }
  }

  private async summary(n: number): Promise<void> {
    await this.call('summary', 'POST', `/v1/cases/${this.caseAt(n)}/summary`, {});
  }

  /** The window's p99 of each kind, ms (undefined: no request of that kind ended in it). */
  static p99(window: WindowLoad): Record<Kind, number | undefined> {
    return Object.fromEntries(
      KINDS.map((kind) => {
        const sorted = [...window.kinds[kind].latencies].sort((a, b) => a - b);
        return [kind, quantile(sorted, 0.99)];
      }),
    ) as Record<Kind, number | undefined>;
  }
}
