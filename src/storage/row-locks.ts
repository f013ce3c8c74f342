// The row-locking port: how a transaction keeps others off the rows it is about to change.
// PostgreSQL locks rows and keys; SQLite has one writer at a time (every write transaction
// begins IMMEDIATE, sqlite-dialect.ts), so there the same calls lock nothing more. Features ask
// for these and never for the database's name.
import type { SelectQueryBuilder } from 'kysely';
import type { Db } from './database.js';

export interface RowLocks {
  /** Serialises the transactions that take the same key, until this one ends. */
  lockKey(trx: Db, key: string): Promise<void>;
  /** The rows the query reads, locked until the transaction ends (`of`: only this table's). */
  forUpdate<DB, TB extends keyof DB, O>(
    query: SelectQueryBuilder<DB, TB, O>,
    of?: string,
  ): SelectQueryBuilder<DB, TB, O>;
  /**
   * The rows the query reads, locked until the transaction ends, skipping rows another
   * transaction holds: for claiming work several processes share.
   */
  claim<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, of?: string): SelectQueryBuilder<DB, TB, O>;
}
