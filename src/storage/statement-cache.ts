// Compiled statements kept by SQL text for the SQLite connection. Kysely's SQLite driver calls
// prepare() for every query it runs and better-sqlite3 compiles the SQL each time: a case search
// runs about eight queries, and compiling them is a tenth of such a request. SQLite
// recompiles a kept statement by itself after a schema change, so keeping them is safe.
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct statements kept; the least recently used is dropped past it. */
export const STATEMENT_CACHE_SIZE = 500;

export function withStatementCache(connection: SQLite.Database, capacity = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const kept = new Map<string, SQLite.Statement>();
  return {
    close() {
      kept.clear();
      connection.close();
    },
    prepare(text: string) {
      const hit = kept.get(text);
      // A statement still being iterated (a streamed query) cannot run again until it is done:
      // that caller gets a statement of its own.
      if (hit?.busy) return connection.prepare(text);
      if (hit) {
        kept.delete(text);
        kept.set(text, hit);
        return hit;
      }
      const statement = connection.prepare(text);
      kept.set(text, statement);
      if (kept.size > capacity) {
        const oldest = kept.keys().next();
        if (!oldest.done) kept.delete(oldest.value);
      }
      return statement;
    },
  };
}
