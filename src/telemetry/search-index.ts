// Read-your-writes for text search: the index follows the log a little behind, so before a
// text search the caller brings it up to the log's current end. Everything acknowledged before
// the search started is then findable. How the index catches up is a storage port
// (storage/sqlite/search-index.ts, storage/postgres/search-index.ts).

/** The search index port: indexes what the log holds up to its current end, then resolves. */
export interface SearchIndexCatchUp {
  catchUp(): Promise<void>;
}

/** The writer of a running server, which may keep the index itself (SQLite's writer thread). */
export interface SearchIndexKeeper {
  catchUpSearchIndex?(): Promise<void>;
}

/**
 * In a server, pass the writer: on SQLite its thread does the indexing, because indexing on
 * this thread would block the event loop for every chunk. Without one (the CLI), the port
 * indexes here.
 */
export async function catchUpSearchIndex(index: SearchIndexCatchUp, keeper?: SearchIndexKeeper): Promise<void> {
  if (keeper?.catchUpSearchIndex) return keeper.catchUpSearchIndex();
  return index.catchUp();
}
