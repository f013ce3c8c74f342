// SQLite's search index catch-up for a process without a writer thread (the CLI): it indexes
// on this thread with a connection of its own, taking the write lock in short chunks as the
// writer does. A server's writer thread indexes instead (telemetry/search-index.ts).
import SQLite from 'better-sqlite3';
import { configureSqliteConnection, type SqliteDatabase } from '../database.js';
import type { SearchIndexCatchUp } from '../../telemetry/search-index.js';
import { createSqliteSearchIndexer } from './search-indexer.js';

const CHUNK = 5_000;

export function sqliteSearchIndex(database: SqliteDatabase): SearchIndexCatchUp {
  return {
    // async: a failure rejects, as from any other backend, rather than throwing at the call.
    // eslint-disable-next-line @typescript-eslint/require-await
    catchUp: async () => {
      const connection = new SQLite(database.sqlitePath);
      try {
        configureSqliteConnection(connection);
        const indexer = createSqliteSearchIndexer(connection);
        const end = indexer.logEnd();
        while (indexer.indexChunk(CHUNK, end) === CHUNK);
      } finally {
        connection.close();
      }
    },
  };
}
