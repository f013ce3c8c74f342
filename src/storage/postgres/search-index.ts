// PostgreSQL's search index catch-up: indexes up to the log's current end over the pool,
// which never blocks the event loop, so servers and the CLI alike index here.
import type { PostgresDatabase } from '../database.js';
import type { SearchIndexCatchUp } from '../../telemetry/search-index.js';
import { logEnd } from '../../telemetry/telemetry-store.js';
import { indexPostgresChunk } from './search-indexer.js';

const CHUNK = 5_000;

export function postgresSearchIndex(database: PostgresDatabase): SearchIndexCatchUp {
  return {
    catchUp: async () => {
      const end = await logEnd(database.db);
      while ((await indexPostgresChunk(database.db, CHUNK, end)) === CHUNK);
    },
  };
}
