// SQLite's full-text index keeps which records hold each word, not where in them (FTS5
// detail=none): indexing a record costs about half as much, so the index keeps up with
// sustained ingest, and a phrase of several words is checked on the records that hold them all
// (storage/sqlite-phrases.ts). Its segments are merged by the record writer in small steps
// between commits, never inside one. The new index starts empty and the indexer
// rebuilds it from the log in the background; text searches meanwhile answer `partial` with the
// time they are complete up to. PostgreSQL: unchanged.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  if (kind !== 'sqlite') return;
  await sql`DROP TABLE telemetry_fts`.execute(db);
  await sql`CREATE VIRTUAL TABLE telemetry_fts USING fts5(
    record, content='', contentless_delete=1, detail=none, tokenize='unicode61 remove_diacritics 2'
  )`.execute(db);
  // As migration 0041: deleted entries are merged away by the purger's own paced steps.
  await sql`INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES ('deletemerge', 0)`.execute(db);
  // No merging inside commits (FTS5's automerge): the record writer merges in small steps
  // between them (storage/sqlite/record-writer-thread.ts), so that no 201 waits on a merge.
  await sql`INSERT INTO telemetry_fts (telemetry_fts, rank) VALUES ('automerge', 0)`.execute(db);
  await sql`UPDATE log_cursors SET seq = 0 WHERE name = 'search_index'`.execute(db);
}
