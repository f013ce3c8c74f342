// Limits failed authentication attempts per client address: past `max` failures within the
// window, the address gets 429 with Retry-After until its oldest failure leaves the window,
// whatever credentials it sends, so guessing cannot go on. Kept in memory, per process.
export class FailureLimiter {
  private readonly failures = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Seconds the address must wait before trying again; 0 when it may try now. */
  retryAfter(address: string, now = Date.now()): number {
    const times = this.recent(address, now);
    if (times.length < this.max) return 0;
    return Math.max(1, Math.ceil((times[times.length - this.max]! + this.windowMs - now) / 1000));
  }

  fail(address: string, now = Date.now()): void {
    const times = this.recent(address, now);
    times.push(now);
    // Only the newest `max` failures matter for the lock-out; an attacker cannot grow the list.
    if (times.length > this.max) times.splice(0, times.length - this.max);
    this.failures.set(address, times);
    this.sweep(now);
  }

  private recent(address: string, now: number): number[] {
    const times = this.failures.get(address);
    if (!times) return [];
    const kept = times.filter((time) => time > now - this.windowMs);
    if (kept.length === 0) this.failures.delete(address);
    return kept;
  }

  /** Forget addresses whose failures have all aged out, so memory stays bounded by the window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const address of [...this.failures.keys()]) this.recent(address, now);
  }
}
