// Limits password and token guessing per client address: past `max` failures within the
// window, the address gets 429 with Retry-After until its oldest failure leaves the window,
// for guesses only: a known API token still works from it, and a sign-in at an account no one
// has been failing at is still checked (docs/security.md, Accounts and sign-in), so one guesser behind an
// office's NAT does not lock the whole office out.
// An attempt counts as a failure from the moment it starts (and is forgiven if it succeeds),
// so a burst of concurrent guesses cannot all slip in before the first one fails. IPv6 clients
// are counted per /64, the block one subscriber usually holds. The embedded deployment keeps
// the failures in memory (MemoryFailureLimiter, below); on PostgreSQL every API node counts in
// the database (storage/postgres/throttles.ts), so a guesser cannot spread across nodes.
import { isIPv6 } from 'node:net';
import { AppError } from '../../core/errors.js';

/** Addresses tracked at most; past it the longest-tracked address is forgotten first. */
const MAX_ADDRESSES = 100_000;

/** The outcome of starting a check: refused for `wait` seconds, or counted until forgiven. */
export type Begun = { wait: number } | { forgive: () => Promise<void> };

export abstract class FailureLimiter {
  constructor(
    protected readonly max: number,
    protected readonly windowMs: number,
  ) {}

  /** Seconds the address must wait before trying again; 0 when it may try now. */
  abstract retryAfter(address: string, now?: number): Promise<number>;

  /**
   * In one step, so that concurrent attempts cannot all pass: refuses while the counted unit
   * (clientKey) is locked out, else counts an attempt as failed until `forgive`.
   */
  protected abstract tryBegin(key: string, now: number): Promise<Begun>;

  /**
   * Starts one credential check from the address. While it is locked out, `refusal` is the 429
   * to answer if the credentials turn out to be a guess, and nothing more is counted (it stays
   * locked until its failures age out); otherwise the attempt counts as failed until `forgive`
   * takes it back (once it turns out not to be a guess: right password, a known token).
   */
  async attempt(
    address: string,
    now = Date.now(),
  ): Promise<{ refusal: AppError | undefined; forgive: () => Promise<void> }> {
    const begun = await this.tryBegin(clientKey(address), now);
    if ('wait' in begun) return { refusal: lockOut(address, begun.wait), forgive: () => Promise.resolve() };
    return { refusal: undefined, forgive: begun.forgive };
  }

  /**
   * Runs one credential check from the address: refused while it is locked out; counted as a
   * failed attempt only when it throws an error `isGuess` calls a guess (a wrong code or
   * password), never for the holder's other mistakes.
   */
  async guard<T>(address: string, work: () => Promise<T>, isGuess: (error: unknown) => boolean): Promise<T> {
    const { refusal, forgive } = await this.attempt(address);
    if (refusal) throw refusal;
    try {
      const result = await work();
      await forgive();
      return result;
    } catch (error) {
      if (!isGuess(error)) await forgive();
      throw error;
    }
  }

  /** The 429 the address gets while it is locked out; undefined when it is not. */
  async lockedOut(address: string, now = Date.now()): Promise<AppError | undefined> {
    const wait = await this.retryAfter(address, now);
    return wait === 0 ? undefined : lockOut(address, wait);
  }
}

function lockOut(address: string, wait: number): AppError {
  return new AppError('too_many_failed_attempts', `too many failed attempts from ${address}; retry in ${wait} s`, {
    headers: { 'Retry-After': String(wait) },
    extensions: { retry_after_seconds: wait },
  });
}

/**
 * Seconds to wait given an address's failure times within the window, oldest first: locked out
 * until the oldest of the newest `max` failures leaves the window.
 */
export function waitSeconds(times: readonly number[], max: number, windowMs: number, now: number): number {
  const oldest = times.length < max ? undefined : times[times.length - max];
  if (oldest === undefined) return 0;
  return Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
}

/** The embedded deployment's limiter: one process, so failures are kept in its memory. */
export class MemoryFailureLimiter extends FailureLimiter {
  private readonly failures = new Map<string, number[]>();
  private lastSweep = 0;

  retryAfter(address: string, now = Date.now()): Promise<number> {
    return Promise.resolve(waitSeconds(this.recent(clientKey(address), now), this.max, this.windowMs, now));
  }

  protected tryBegin(key: string, now: number): Promise<Begun> {
    const times = this.recent(key, now);
    const wait = waitSeconds(times, this.max, this.windowMs, now);
    if (wait > 0) return Promise.resolve({ wait });
    times.push(now);
    // Only the newest `max` failures matter for the lock-out; an attacker cannot grow the list.
    if (times.length > this.max) times.splice(0, times.length - this.max);
    this.failures.delete(key);
    if (this.failures.size >= MAX_ADDRESSES) {
      const first = this.failures.keys().next();
      if (!first.done) this.failures.delete(first.value);
    }
    this.failures.set(key, times);
    this.sweep(now);
    let forgiven = false;
    const forgive = () => {
      if (forgiven) return Promise.resolve();
      forgiven = true;
      const current = this.failures.get(key);
      const at = current?.lastIndexOf(now) ?? -1;
      if (current && at !== -1) current.splice(at, 1);
      return Promise.resolve();
    };
    return Promise.resolve({ forgive });
  }

  private recent(key: string, now: number): number[] {
    const times = this.failures.get(key);
    if (!times) return [];
    const kept = times.filter((time) => time > now - this.windowMs);
    if (kept.length === 0) this.failures.delete(key);
    return kept;
  }

  /** Forget addresses whose failures have all aged out, so memory follows the window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const key of [...this.failures.keys()]) this.recent(key, now);
  }
}

/** The unit an address is counted in: IPv4 alone, IPv6 by its /64 prefix. */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return mapped;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
