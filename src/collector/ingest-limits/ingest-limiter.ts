// The collector's per-tenant ingest limits, on the hot path: token buckets in memory, one for
// records and one for decoded bytes per limited tenant. Each bucket holds the full burst and
// refills at the tenant's rate divided by the live collector nodes (Loki's "global" strategy):
// with a load balancer spreading requests, the nodes together accept about the tenant's rate,
// while a single request up to the burst still fits on whichever node it lands.
import { AppError } from '../../core/errors.js';

export interface IngestLimits {
  recordsPerSecond: number | null;
  recordsBurst: number | null;
  bytesPerSecond: number | null;
  bytesBurst: number | null;
}

export type LimitName = 'records_per_second' | 'bytes_per_second';

class TokenBucket {
  tokens: number;
  private at: number;

  constructor(
    readonly rate: number,
    readonly burst: number,
    now: number,
    tokens = burst,
  ) {
    this.tokens = Math.min(tokens, burst);
    this.at = now;
  }

  refill(now: number, nodes: number): void {
    const elapsed = Math.max(0, now - this.at) / 1000;
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.rate) / nodes);
    this.at = now;
  }

  /** Whole seconds until `needed` tokens are in the bucket (at least 1). */
  secondsUntil(needed: number, nodes: number): number {
    return Math.max(1, Math.ceil(((needed - this.tokens) * nodes) / this.rate));
  }
}

interface Limited {
  limits: IngestLimits;
  records: TokenBucket | undefined;
  bytes: TokenBucket | undefined;
}

const sameLimits = (a: IngestLimits, b: IngestLimits) =>
  a.recordsPerSecond === b.recordsPerSecond &&
  a.recordsBurst === b.recordsBurst &&
  a.bytesPerSecond === b.bytesPerSecond &&
  a.bytesBurst === b.bytesBurst;

function bucketFor(rate: number | null, burst: number | null, now: number, old?: TokenBucket) {
  if (rate === null) return undefined;
  return new TokenBucket(rate, burst ?? rate, now, old?.tokens);
}

export class IngestLimiter {
  private readonly tenants = new Map<number, Limited>();
  private nodes = 1;

  /** The live collector nodes sharing each tenant's rate (1: this process alone). */
  get nodeCount(): number {
    return this.nodes;
  }

  setNodeCount(nodes: number): void {
    this.nodes = Math.max(1, nodes);
  }

  /** A tenant's limits from now on (undefined: none); an unchanged limit keeps what its bucket holds. */
  setLimits(tenantId: number, limits: IngestLimits | undefined, now = Date.now()): void {
    const current = this.tenants.get(tenantId);
    if (!limits || (limits.recordsPerSecond === null && limits.bytesPerSecond === null)) {
      this.tenants.delete(tenantId);
      return;
    }
    if (current && sameLimits(current.limits, limits)) return;
    this.tenants.set(tenantId, {
      limits,
      records: bucketFor(limits.recordsPerSecond, limits.recordsBurst, now, current?.records),
      bytes: bucketFor(limits.bytesPerSecond, limits.bytesBurst, now, current?.bytes),
    });
  }

  /** Every tenant's limits, as loaded: tenants missing from `all` have none. */
  replaceAll(all: Map<number, IngestLimits>, now = Date.now()): void {
    for (const tenantId of this.tenants.keys()) if (!all.has(tenantId)) this.tenants.delete(tenantId);
    for (const [tenantId, limits] of all) this.setLimits(tenantId, limits, now);
  }

  /** Before the body is read: the refusal when a bucket of the tenant is empty, else undefined. */
  refuseEarly(tenantId: number, now = Date.now()): AppError | undefined {
    const limited = this.tenants.get(tenantId);
    if (!limited) return undefined;
    for (const [name, bucket] of this.bucketsOf(limited)) {
      bucket.refill(now, this.nodes);
      if (bucket.tokens < 1) return rateLimited(name, bucket, bucket.secondsUntil(1, this.nodes), this.nodes);
    }
    return undefined;
  }

  /**
   * Takes a request's records and bytes from the tenant's buckets, both or neither; answers the
   * refusal instead when the request does not fit now (429) or never can (413).
   */
  take(tenantId: number, records: number, bytes: number, now = Date.now()): AppError | undefined {
    const limited = this.tenants.get(tenantId);
    if (!limited) return undefined;
    const wanted = { records_per_second: records, bytes_per_second: bytes };
    const buckets = this.bucketsOf(limited);
    for (const [name, bucket] of buckets) {
      bucket.refill(now, this.nodes);
      if (wanted[name] > bucket.burst) return overBurst(name, wanted[name], bucket.burst);
    }
    for (const [name, bucket] of buckets) {
      if (wanted[name] > bucket.tokens)
        return rateLimited(name, bucket, bucket.secondsUntil(wanted[name], this.nodes), this.nodes);
    }
    for (const [name, bucket] of buckets) bucket.tokens -= wanted[name];
    return undefined;
  }

  private bucketsOf(limited: Limited): [LimitName, TokenBucket][] {
    const buckets: [LimitName, TokenBucket][] = [];
    if (limited.records) buckets.push(['records_per_second', limited.records]);
    if (limited.bytes) buckets.push(['bytes_per_second', limited.bytes]);
    return buckets;
  }
}

const unitOf = (name: LimitName) => (name === 'records_per_second' ? 'records' : 'bytes');

function rateLimited(name: LimitName, bucket: TokenBucket, retryAfter: number, nodes: number): AppError {
  const unit = unitOf(name);
  return new AppError(
    'rate_limited',
    `this tenant may send ${bucket.rate} ${unit} per second (bursts of up to ${bucket.burst}); nothing from this request was stored: send it again after ${retryAfter} s`,
    {
      headers: { 'Retry-After': String(retryAfter) },
      extensions: {
        limit: name,
        rate: bucket.rate,
        burst: bucket.burst,
        retry_after: retryAfter,
        collector_nodes: nodes,
      },
    },
  );
}

function overBurst(name: LimitName, wanted: number, burst: number): AppError {
  const unit = unitOf(name);
  return new AppError(
    'request_exceeds_burst',
    `this request holds ${wanted} ${unit} but this tenant's bursts are at most ${burst} ${unit}: it can never be accepted whole; send smaller requests (at most ${burst} ${unit} each)`,
    { extensions: { limit: name, burst, requested: wanted } },
  );
}
