// Counts what each tenant's collector hears — requests and records by sender (User-Agent and
// source address), refusals by problem code with the latest example — in memory, and adds them
// to the hourly tables every few seconds. Counting never slows a request: a flush that fails is
// reported and its counts dropped (diagnostics are not telemetry); the number of distinct
// senders counted per interval is bounded, so a flood of made-up User-Agents cannot grow memory.
import type { Db } from '../../storage/database.js';
import {
  addActivity,
  addRejections,
  purgeDiagnostics,
  type ActivityDelta,
  type RejectionDelta,
} from './diagnostics-store.js';
import { BackgroundLoop } from '../../core/background-loop.js';

export const HOUR_MS = 3_600_000;
const FLUSH_MS = 5_000;
/** Distinct senders (or codes) kept per interval; the rest are counted together. */
const MAX_KEYS = 2_000;
const KEEP_MS = 48 * HOUR_MS;
const PURGE_EVERY_MS = 10 * 60_000;
const MAX_USER_AGENT = 200;
const MAX_DETAIL = 500;
const OTHER = '(other senders)';

export class CollectorDiagnostics {
  private activity = new Map<string, ActivityDelta>();
  private rejected = new Map<string, RejectionDelta>();
  private lastPurge = 0;
  private flushing: Promise<void> = Promise.resolve();
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly db: Db,
    private readonly onError: (error: unknown) => void,
  ) {
    this.loop = new BackgroundLoop({
      run: async () => {
        await this.flush();
        return undefined;
      },
      idleMs: FLUSH_MS,
      // A flush reports its own failure and drops the counts: the next one comes as usual.
      backoff: { baseMs: FLUSH_MS, maxMs: FLUSH_MS },
      onError,
    });
  }

  /** Flushes every few seconds, the first time a few seconds from now. */
  start(): void {
    this.loop.start(FLUSH_MS);
  }

  accepted(
    tenantId: number,
    sender: { userAgent: string; address: string; protocol: string },
    records: number,
    now = Date.now(),
  ): void {
    const hour = now - (now % HOUR_MS);
    const { protocol } = sender;
    const keyOf = (agent: string, from: string) =>
      `${tenantId}\u0000${hour}\u0000${protocol}\u0000${agent}\u0000${from}`;
    let userAgent = sender.userAgent.slice(0, MAX_USER_AGENT);
    let address = sender.address;
    if (!this.activity.has(keyOf(userAgent, address)) && this.activity.size >= MAX_KEYS) {
      userAgent = OTHER;
      address = OTHER;
    }
    const key = keyOf(userAgent, address);
    const known = this.activity.get(key);
    if (known) {
      known.requests++;
      known.records += records;
      known.lastSeenAt = now;
    } else
      this.activity.set(key, {
        tenantId,
        hour,
        protocol,
        userAgent,
        sourceAddress: address,
        requests: 1,
        records,
        lastSeenAt: now,
      });
  }

  refused(
    tenantId: number,
    sender: { userAgent: string; address: string },
    problem: { code: string; detail: string },
    now = Date.now(),
  ): void {
    const hour = now - (now % HOUR_MS);
    const key = `${tenantId}\u0000${hour}\u0000${problem.code}`;
    const known = this.rejected.get(key);
    const example = {
      lastAt: now,
      lastSourceAddress: sender.address,
      lastUserAgent: sender.userAgent.slice(0, MAX_USER_AGENT),
      lastDetail: problem.detail.slice(0, MAX_DETAIL),
    };
    if (known) Object.assign(known, example, { count: known.count + 1 });
    else if (this.rejected.size < MAX_KEYS)
      this.rejected.set(key, { tenantId, hour, code: problem.code, count: 1, ...example });
  }

  /** Adds what was counted to the tables (one flush at a time). */
  flush(now = Date.now()): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const activity = [...this.activity.values()];
      const rejected = [...this.rejected.values()];
      this.activity = new Map();
      this.rejected = new Map();
      const purge = now - this.lastPurge > PURGE_EVERY_MS;
      if (activity.length === 0 && rejected.length === 0 && !purge) return;
      if (purge) this.lastPurge = now;
      try {
        // One transaction: on SQLite one wait for the write lock (off the event loop,
        // sqlite-dialect.ts) and one commit, not one of each per statement.
        await this.db.transaction().execute(async (trx) => {
          if (activity.length > 0) await addActivity(trx, activity);
          if (rejected.length > 0) await addRejections(trx, rejected);
          if (purge) await purgeDiagnostics(trx, now - KEEP_MS);
        });
      } catch (error) {
        this.onError(error);
      }
    });
    return this.flushing;
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.flush();
  }
}
