// Read-your-writes for text search: the index follows the log a little behind, so before a
// text search the caller brings it up to the log's current end. Everything acknowledged before
// the search started is then findable.
import SQLite from 'better-sqlite3';
import type { Database } from '../storage/database.js';
import { configureSqliteConnection } from '../storage/database.js';
import { createSqliteSearchIndexer } from './sqlite-search-indexer.js';
import { indexPostgresChunk } from './postgres-search-indexer.js';
import { logEnd } from './telemetry-store.js';

const CHUNK = 5_000;

/** The writer of a running server, which may keep the index itself (SQLite's writer thread). */
export interface SearchIndexKeeper {
  catchUpSearchIndex?(): Promise<void>;
}

/**
 * In a server, pass the writer: on SQLite its thread does the indexing, because indexing here
 * would block the event loop for every chunk. Without one (the CLI), SQLite indexes on this
 * thread with a connection of its own. PostgreSQL indexes over the pool, which never blocks.
 */
export async function catchUpSearchIndex(database: Database, keeper?: SearchIndexKeeper): Promise<void> {
  if (keeper?.catchUpSearchIndex) return keeper.catchUpSearchIndex();
  if (database.kind === 'postgres') {
    const end = await logEnd(database.db);
    while ((await indexPostgresChunk(database.db, CHUNK, end)) === CHUNK);
    return;
  }
  // A connection of its own: indexing takes the write lock in short chunks, as the writer does.
  const connection = new SQLite(database.sqlitePath);
  try {
    configureSqliteConnection(connection);
    const indexer = createSqliteSearchIndexer(connection);
    const end = indexer.logEnd();
    while (indexer.indexChunk(CHUNK, end) === CHUNK);
  } finally {
    connection.close();
  }
}
