// SQLite's answers to the purge port: sequences commit in order (one writer), so the floor
// needs no snapshot; deletes run on a thread of their own (purge-thread.ts) and the file gives
// freed pages back (incremental auto_vacuum).
import { sql } from 'kysely';
import type { Db, SqliteDatabase } from '../database.js';
import type { RecordPurge } from '../../retention/purge-port.js';
import { SqlitePurgeThread } from './purge-thread-client.js';

/** Gives up to `pages` free pages back to the file system (incremental auto_vacuum). */
export async function reclaimPages(db: Db, pages: number): Promise<void> {
  const mode = await sql<{ auto_vacuum: number }>`PRAGMA auto_vacuum`.execute(db);
  if (mode.rows[0]?.auto_vacuum === 2) await sql`PRAGMA incremental_vacuum(${sql.raw(String(pages))})`.execute(db);
}

export function sqliteRecordPurge(database: SqliteDatabase): RecordPurge {
  return {
    async deleteIndexEntries(trx, _tenantId, seqs) {
      // Contentless FTS5 with contentless_delete=1: an entry is removed by its rowid alone.
      await sql`DELETE FROM telemetry_fts WHERE rowid IN (${sql.join(seqs)})`.execute(trx);
    },
    reclaimPages,
    thread: () => new SqlitePurgeThread(database.sqlitePath),
  };
}
