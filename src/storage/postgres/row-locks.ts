// PostgreSQL's row locks: transaction-scoped advisory locks for keys, FOR UPDATE for rows, and
// SKIP LOCKED where several processes claim work from one table.
import { sql } from 'kysely';
import type { RowLocks } from '../row-locks.js';

export const postgresRowLocks: RowLocks = {
  async lockKey(trx, key) {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
  },
  // `of` is a table alias of the query's own; the port's callers name it as Kysely would.
  forUpdate: (query, of) => (of === undefined ? query.forUpdate() : query.forUpdate(of as never)),
  claim: (query, of) => (of === undefined ? query.forUpdate() : query.forUpdate(of as never)).skipLocked(),
};
