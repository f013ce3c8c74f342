// The throttles port: how failed sign-ins and token attempts are counted. Where one process
// serves the deployment (SQLite) they are counted in its memory; where several nodes share a
// database (PostgreSQL, storage/postgres/throttles.ts) they are counted there, on every node.
import { FailureLimiter, MemoryFailureLimiter } from './failure-limiter.js';
import { MemoryAccountThrottle, type AccountThrottle } from './account-throttle.js';

export interface ThrottleLimits {
  maxFailures: number;
  failureWindowMs: number;
}

/** Builds a deployment's limiter (per client address) and account throttle. */
export type Throttles = (limits: ThrottleLimits) => { limiter: FailureLimiter; accounts: AccountThrottle };

/** The limits kept in this process's memory, for a deployment only one process serves. */
export const memoryThrottles: Throttles = (limits) => ({
  limiter: new MemoryFailureLimiter(limits.maxFailures, limits.failureWindowMs),
  accounts: new MemoryAccountThrottle(),
});
