// Slows password guessing at one account, from any number of addresses: after a few failed
// sign-ins the account waits between attempts, the wait doubling with each further failure
// (1 s, 2 s, 4 s … up to 15 minutes), and a successful sign-in clears it. It delays rather than
// locks, so a guesser cannot shut the real user out for long, and it is keyed by the email as
// typed (lower-cased), so it behaves the same whether or not the account exists. Like the
// per-address limit, a failure counts from the moment the attempt starts. The embedded
// deployment keeps the runs in memory (MemoryAccountThrottle); on PostgreSQL all API nodes keep
// them in the database (storage/postgres/throttles.ts).
import { AppError } from '../../core/errors.js';

/** Failures an account may have before it must wait between attempts. */
const FREE_FAILURES = 5;
const MAX_DELAY_MS = 15 * 60_000;
/** A run of failures is forgotten this long after its last one. */
export const FORGET_AFTER_MS = 24 * 60 * 60_000;
/** Accounts tracked at most; past it the longest-tracked one is forgotten first. */
const MAX_ACCOUNTS = 100_000;

export interface Run {
  failures: number;
  last: number;
  /** Of the failures, attempts whose password was right and now await a second-factor code. */
  awaitingCode: number;
}

export interface AccountThrottle {
  /**
   * The attempt just admitted had the right password and waits for its second-factor code: it
   * still counts (and delays) until a right code clears the run, but it is not a guess, so it does
   * not close the account to a locked-out address its owner shares (an office's NAT).
   */
  awaitingCode(email: string, now?: number): Promise<void>;
  /**
   * Admits one sign-in attempt at the account (429 with Retry-After while it must wait) and
   * counts it as failed; the returned function clears the run once the password proves right.
   * `addressRefusal`, given when the client address is locked out, is thrown instead (nothing
   * counted) if someone is failing at this account: a locked-out address keeps signing in to
   * accounts nobody is failing at, and gets at most one guess at any other. The check and the
   * count are one step, so concurrent attempts cannot all pass it.
   */
  admit(email: string, addressRefusal?: AppError, now?: number): Promise<() => Promise<void>>;
}

/** Milliseconds a run makes the account wait before its next attempt; 0 when it may try now. */
export function runWaitMs(run: Run | undefined, now: number): number {
  if (!run || now - run.last > FORGET_AFTER_MS || run.failures < FREE_FAILURES) return 0;
  const delay = Math.min(MAX_DELAY_MS, 1_000 * 2 ** (run.failures - FREE_FAILURES));
  return Math.max(0, run.last + delay - now);
}

export function isUnderAttack(run: Run | undefined, now: number): boolean {
  return run !== undefined && now - run.last <= FORGET_AFTER_MS && run.failures > run.awaitingCode;
}

export function accountWait(waitMs: number): AppError {
  const seconds = Math.ceil(waitMs / 1000);
  return new AppError('too_many_failed_attempts', `too many failed sign-ins for this account; retry in ${seconds} s`, {
    headers: { 'Retry-After': String(seconds) },
    extensions: { retry_after_seconds: seconds },
  });
}

export class MemoryAccountThrottle implements AccountThrottle {
  private readonly runs = new Map<string, Run>();

  awaitingCode(email: string, now = Date.now()): Promise<void> {
    const run = this.current(email, now);
    if (run) run.awaitingCode += 1;
    return Promise.resolve();
  }

  admit(email: string, addressRefusal?: AppError, now = Date.now()): Promise<() => Promise<void>> {
    const found = this.current(email, now);
    if (addressRefusal && isUnderAttack(found, now)) return Promise.reject(addressRefusal);
    const wait = runWaitMs(found, now);
    if (wait > 0) return Promise.reject(accountWait(wait));
    const key = accountKey(email);
    const run = found ?? { failures: 0, last: now, awaitingCode: 0 };
    run.failures += 1;
    run.last = now;
    this.runs.delete(key);
    if (this.runs.size >= MAX_ACCOUNTS) {
      const first = this.runs.keys().next();
      if (!first.done) this.runs.delete(first.value);
    }
    this.runs.set(key, run);
    return Promise.resolve(() => {
      this.runs.delete(key);
      return Promise.resolve();
    });
  }

  private current(email: string, now: number): Run | undefined {
    const key = accountKey(email);
    const run = this.runs.get(key);
    if (run && now - run.last > FORGET_AFTER_MS) {
      this.runs.delete(key);
      return undefined;
    }
    return run;
  }
}

export const accountKey = (email: string) => email.trim().toLowerCase();
