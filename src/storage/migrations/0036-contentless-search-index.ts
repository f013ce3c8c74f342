// SQLite's full-text index becomes contentless with contentless_delete=1: it keeps only the
// index, never reads the record text back, and removes an entry with a plain DELETE by rowid
// (an external-content table needed the record's text again to remove its entry, which cost
// as much as indexing it, and made purging old records expensive). The new index starts empty
// and the search indexer rebuilds it from the log in the background. PostgreSQL: unchanged.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'sqlite') return;
  await sql`DROP TABLE telemetry_fts`.execute(db);
  await sql`CREATE VIRTUAL TABLE telemetry_fts USING fts5(
    record, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
  )`.execute(db);
  await sql`UPDATE log_cursors SET seq = 0 WHERE name = 'search_index'`.execute(db);
}
