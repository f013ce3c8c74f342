// A transaction that writes after it reads. SQLite's deferred BEGIN would fail such a
// transaction with SQLITE_BUSY (without waiting) when another connection — the record writer,
// the detection thread — commits between its first read and its first write; our SQLite dialect
// begins every transaction not declared read-only with BEGIN IMMEDIATE, which takes the write
// lock up front and waits for it without holding up the event loop (sqlite-dialect.ts).
// PostgreSQL needs nothing special.
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from './schema.js';

export async function writeTransaction<T>(
  db: Kysely<Tables>,
  work: (trx: Kysely<Tables> | Transaction<Tables>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(work);
}
