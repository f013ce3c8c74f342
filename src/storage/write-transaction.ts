// A transaction that writes after it reads. SQLite's deferred BEGIN would fail such a
// transaction with SQLITE_BUSY (without waiting) when another connection — the record writer,
// the detection worker — commits between its first read and its first write; BEGIN IMMEDIATE
// takes the write lock up front and waits for it (busy_timeout) instead. PostgreSQL needs
// nothing special.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Tables } from './schema.js';
import type { DatabaseKind } from './database.js';

export async function writeTransaction<T>(
  db: Kysely<Tables>,
  kind: DatabaseKind,
  work: (trx: Kysely<Tables> | Transaction<Tables>) => Promise<T>,
): Promise<T> {
  if (kind === 'postgres') return db.transaction().execute(work);
  // Kysely's SQLite driver lends out its one connection under a mutex: nothing else runs on it meanwhile.
  return db.connection().execute(async (connection) => {
    await sql`BEGIN IMMEDIATE`.execute(connection);
    try {
      const result = await work(connection);
      await sql`COMMIT`.execute(connection);
      return result;
    } catch (error) {
      await sql`ROLLBACK`.execute(connection);
      throw error;
    }
  });
}
