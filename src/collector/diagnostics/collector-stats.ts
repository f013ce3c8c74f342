// What a tenant's collector received in the last 24 hours, hour by hour, for Settings ›
// Collector. An hour's count cannot change once the hour is over (receive times are the
// server's clock) and its records are committed, so finished hours are counted once and kept;
// each request counts only the current hour afresh. A busy tenant thus costs one hour of index
// entries per request rather than a day's.
import type { Database } from '../../storage/database.js';
import { countPerBucket, lastReceivedAt, timeConditions } from '../../telemetry/telemetry-store.js';

export const BUCKET_MS = 3_600_000;
export const BUCKETS = 24;
/**
 * How long after an hour ends its count is taken as final. A record is stamped on receipt and
 * committed moments later (group commit); one still waiting in a stalled commit queue after
 * this long is left out of that hour's cached count, which a statistic can afford.
 */
export const SETTLE_MS = 60_000;

export interface ReceivedStats {
  since: string;
  until: string;
  bucket_seconds: number;
  buckets: { start: string; records: number }[];
  total_records: number;
  last_received_at: string | null;
}

/** Final hourly counts per tenant, kept for the 24-hour window (per process). */
export class HourlyCountCache {
  private readonly tenants = new Map<number, Map<number, number>>();

  get(tenantId: number, start: number): number | undefined {
    return this.tenants.get(tenantId)?.get(start);
  }

  set(tenantId: number, start: number, records: number): void {
    let hours = this.tenants.get(tenantId);
    if (!hours) this.tenants.set(tenantId, (hours = new Map<number, number>()));
    hours.set(start, records);
  }

  /** Forgets hours that left the window. */
  prune(tenantId: number, oldest: number): void {
    const hours = this.tenants.get(tenantId);
    if (!hours) return;
    for (const start of hours.keys()) if (start < oldest) hours.delete(start);
  }
}

export async function receivedStats(
  database: Database,
  tenantId: number,
  cache: HourlyCountCache,
  now = Date.now(),
): Promise<ReceivedStats> {
  const { db } = database;
  const current = Math.floor(now / BUCKET_MS) * BUCKET_MS;
  const since = current - (BUCKETS - 1) * BUCKET_MS;
  const starts = Array.from({ length: BUCKETS }, (_, i) => since + i * BUCKET_MS);
  const isFinal = (start: number) => start + BUCKET_MS + SETTLE_MS <= now;
  cache.prune(tenantId, since);

  // One query for the hours not known yet: from the first of them to now.
  const firstUnknown = starts.find((start) => !isFinal(start) || cache.get(tenantId, start) === undefined) ?? current;
  // The same count per bucket as a search's histogram, with no criteria: index entries only.
  const grid = { origin: firstUnknown, width: BUCKET_MS, count: (current - firstUnknown) / BUCKET_MS + 1 };
  const counted = await countPerBucket(db, tenantId, timeConditions({ since: firstUnknown, until: now + 1 }), grid);
  const buckets = starts.map((start) => {
    const records =
      start >= firstUnknown ? (counted.get((start - firstUnknown) / BUCKET_MS) ?? 0) : cache.get(tenantId, start);
    // Every hour before the first unknown one is final and cached: that is how it was chosen.
    if (records === undefined) throw new Error(`receivedStats: the hour at ${start} is neither counted nor cached`);
    if (start >= firstUnknown && isFinal(start)) cache.set(tenantId, start, records);
    return { start: new Date(start).toISOString(), records };
  });
  const last = await lastReceivedAt(db, tenantId);
  return {
    since: new Date(since).toISOString(),
    until: new Date(now).toISOString(),
    bucket_seconds: BUCKET_MS / 1000,
    buckets,
    total_records: buckets.reduce((sum, bucket) => sum + bucket.records, 0),
    last_received_at: last === null ? null : new Date(last).toISOString(),
  };
}
