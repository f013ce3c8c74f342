// The failed-attempt limits on PostgreSQL, where several API nodes serve one deployment behind a
// load balancer: each check-and-count runs in a transaction holding an advisory lock on the
// address or account, so failures on one node count on every other, exactly as the embedded
// deployment's in-memory limits count them in its one process. Accounts are keyed by a hash of
// the email as typed, so addresses people mistyped are not kept in the database.
import type { Kysely } from 'kysely';
import type { Tables } from '../schema.js';
import type { PostgresDatabase } from '../database.js';
import type { Throttles } from '../../identity/throttling/throttles.js';
import { sha256 } from '../../core/secrets.js';
import type { AppError } from '../../core/errors.js';
import { clientKey, FailureLimiter, waitSeconds, type Begun } from '../../identity/throttling/failure-limiter.js';
import {
  accountKey,
  accountWait,
  FORGET_AFTER_MS,
  isUnderAttack,
  runWaitMs,
  type AccountThrottle,
} from '../../identity/throttling/account-throttle.js';
import {
  deleteFailure,
  deleteRun,
  insertFailure,
  lockThrottleKey,
  noteAwaitingCode,
  purgeFailures,
  purgeRuns,
  readRun,
  recentFailures,
  saveRun,
} from './throttle-store.js';

/** How often a node deletes failures and runs that no longer count. */
const PURGE_EVERY_MS = 60_000;

export class PostgresFailureLimiter extends FailureLimiter {
  private lastPurge = 0;

  constructor(
    private readonly db: Kysely<Tables>,
    max: number,
    windowMs: number,
  ) {
    super(max, windowMs);
  }

  async retryAfter(address: string, now = Date.now()): Promise<number> {
    const times = await recentFailures(this.db, clientKey(address), now - this.windowMs, this.max);
    return waitSeconds(times, this.max, this.windowMs, now);
  }

  protected async tryBegin(key: string, now: number): Promise<Begun> {
    await this.purge(now);
    const begun = await this.db.transaction().execute(async (trx): Promise<{ wait: number } | { id: number }> => {
      await lockThrottleKey(trx, `address:${key}`);
      const wait = waitSeconds(
        await recentFailures(trx, key, now - this.windowMs, this.max),
        this.max,
        this.windowMs,
        now,
      );
      return wait > 0 ? { wait } : { id: await insertFailure(trx, key, now) };
    });
    if ('wait' in begun) return begun;
    let forgiven = false;
    return {
      forgive: async () => {
        if (forgiven) return;
        forgiven = true;
        await deleteFailure(this.db, begun.id);
      },
    };
  }

  private async purge(now: number): Promise<void> {
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    await purgeFailures(this.db, now - this.windowMs);
    await purgeRuns(this.db, now - FORGET_AFTER_MS);
  }
}

export class PostgresAccountThrottle implements AccountThrottle {
  constructor(private readonly db: Kysely<Tables>) {}

  async awaitingCode(email: string): Promise<void> {
    await noteAwaitingCode(this.db, keyOf(email));
  }

  async admit(email: string, addressRefusal?: AppError, now = Date.now()): Promise<() => Promise<void>> {
    const key = keyOf(email);
    await this.db.transaction().execute(async (trx) => {
      await lockThrottleKey(trx, `account:${key}`);
      const found = await readRun(trx, key);
      if (addressRefusal && isUnderAttack(found, now)) throw addressRefusal;
      const wait = runWaitMs(found, now);
      if (wait > 0) throw accountWait(wait);
      const run = found && now - found.last <= FORGET_AFTER_MS ? found : { failures: 0, last: now, awaitingCode: 0 };
      await saveRun(trx, key, { ...run, failures: run.failures + 1, last: now });
    });
    return () => deleteRun(this.db, key);
  }
}

const keyOf = (email: string) => sha256(accountKey(email));

/** The limits shared by every node on the database: the throttles port on PostgreSQL. */
export function postgresThrottles(database: PostgresDatabase): Throttles {
  return (limits) => ({
    limiter: new PostgresFailureLimiter(database.db, limits.maxFailures, limits.failureWindowMs),
    accounts: new PostgresAccountThrottle(database.db),
  });
}
