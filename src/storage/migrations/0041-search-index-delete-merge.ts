// SQLite's full-text index stops merging a segment the moment a tenth of its entries are
// deleted. With that default, every purge commit that crossed the threshold rewrote whole
// segments under the write lock (measured: four fifths of a purge's time went to those merges,
// in commits ingest had to wait for). The purger now removes entries by tombstone only and then
// reclaims their space in small paced `merge` steps of its own (storage/sqlite/purge-thread.ts).
// PostgreSQL: unchanged.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'sqlite') return;
  await sql`INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES ('deletemerge', 0)`.execute(db);
}
