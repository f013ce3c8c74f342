// The SQLite search indexer: follows the record log and adds records to the FTS5 index in
// chunks, each chunk committed together with its cursor, so a crash never loses or doubles an
// index entry. It runs in the writer thread between commits (keeping indexing off the path of
// the 201) and in any process that must search right now (see search-index.ts).
import type SQLite from 'better-sqlite3';
import { SEARCH_INDEX_CURSOR } from '../../telemetry/telemetry-store.js';

export interface SqliteSearchIndexer {
  /** Indexes up to `limit` records with sequence ≤ `upTo`; returns how many it indexed. */
  indexChunk(limit: number, upTo?: number): number;
  /** Sequence of the last record in the log (0 when empty). */
  logEnd(): number;
  /** Sequence of the last record indexed (0 when none). */
  indexed(): number;
  /** Records in the log not yet indexed. */
  lag(): number;
  /**
   * Inside the caller's transaction (the commit that just appended records): indexes every record
   * not indexed yet, if they are at most `limit`; returns whether it did.
   */
  indexRestWithin(limit: number): boolean;
}

export function createSqliteSearchIndexer(connection: SQLite.Database): SqliteSearchIndexer {
  const cursor = connection.prepare<[string], number>('SELECT seq FROM log_cursors WHERE name = ?').pluck();
  const pending = connection.prepare<[number, number, number], { seq: number; record: string }>(
    'SELECT seq, record FROM telemetry_records WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
  );
  const index = connection.prepare('INSERT INTO telemetry_fts (rowid, record) VALUES (?, ?)');
  const advance = connection.prepare('UPDATE log_cursors SET seq = ? WHERE name = ?');
  const end = connection.prepare<[], number | null>('SELECT max(seq) FROM telemetry_records').pluck();

  const indexNext = (limit: number, upTo: number): number => {
    const from = cursor.get(SEARCH_INDEX_CURSOR) ?? 0;
    const rows = pending.all(from, upTo, limit);
    for (const row of rows) index.run(row.seq, row.record);
    const last = rows.at(-1);
    if (last) advance.run(last.seq, SEARCH_INDEX_CURSOR);
    return rows.length;
  };
  const chunk = connection.transaction(indexNext);
  const lag = () => (end.get() ?? 0) - (cursor.get(SEARCH_INDEX_CURSOR) ?? 0);

  return {
    indexRestWithin: (limit) => {
      const behind = lag();
      if (behind > limit) return false;
      if (behind > 0) indexNext(behind, Number.MAX_SAFE_INTEGER);
      return true;
    },
    indexChunk: (limit, upTo = Number.MAX_SAFE_INTEGER) => chunk.immediate(limit, upTo),
    logEnd: () => end.get() ?? 0,
    indexed: () => cursor.get(SEARCH_INDEX_CURSOR) ?? 0,
    lag,
  };
}
