// Reading the record log after a position (live tail): a tenant's matching records that became
// readable since the last read, each exactly once, none skipped. SQLite has one writer that
// assigns sequences under its write lock, so sequence order is commit order and a position is a
// sequence. PostgreSQL hands sequences out before commit, so a position is a snapshot: the records
// "new" since it are those of transactions it could not see that a later snapshot can. Reading
// a window between two snapshots in parts keeps both and the (transaction id, sequence) reached.
// A text match also waits for the search index: records past its cursor are left for later.
// Each database reads its own way (TailLog: storage/sqlite/tail-log.ts, storage/postgres/tail-log.ts).
import type { StoredRecordRow } from './telemetry-store.js';

export { MAX_SNAPSHOT_CHARS } from './snapshot-window.js';

/** A place in the log: every record at or before it has been looked at. */
export interface TailPosition {
  /** SQLite: the last sequence looked at. PostgreSQL: with `txId`, progress inside a window. */
  seq: number;
  /** PostgreSQL: an xid8 as decimal text. SQLite: '0'. */
  txId: string;
  /** PostgreSQL: every record visible to this snapshot (`pg_snapshot` text) has been looked at. */
  seen?: string;
  /** PostgreSQL, while a window is read in parts: the snapshot the window ends at. */
  upTo?: string;
}

export interface TailRead {
  /** Matching records after the position, in log order. */
  rows: StoredRecordRow[];
  /** Where the next read starts. */
  position: TailPosition;
  /** False when the read stopped early (limit or scan bound): read again at once. */
  caughtUp: boolean;
}

export interface TailBounds {
  /** Matching records returned at most. */
  limit: number;
  /** Log records (of every tenant) looked at most, so an old position costs a bounded read. */
  scan: number;
}
