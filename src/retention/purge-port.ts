// The purge port: what deleting expired records asks of the database it runs on. PostgreSQL
// deletes over the pool and must not pass records whose transactions are still running;
// SQLite deletes on a thread of its own (one write lock) and gives freed pages back.
// storage/sqlite/record-purge.ts and storage/postgres/record-purge.ts answer it.
import type { Db } from '../storage/database.js';

/** What one request to a purge thread did: records deleted, write-lock time, contention. */
export interface PurgeDone {
  deleted: number;
  heldMs: number;
  /** Another connection committed since the thread's previous write: someone else is writing. */
  contended: boolean;
}

/** Deletes and search-index reclaim on a connection and thread of their own. */
export interface PurgeThread {
  /** Deletes the tenant's records `seqs` and what derives from them. */
  delete(tenantId: number, seqs: number[]): Promise<PurgeDone>;
  /** One step of reclaiming the search index's deleted entries; whether any are left. */
  reclaim(pages: number): Promise<{ more: boolean; heldMs: number; contended: boolean }>;
  close(): Promise<void>;
}

export interface RecordPurge {
  /**
   * A snapshot (as text) of what has committed, where sequences can commit out of order: the
   * purge floor then only counts records it sees. Absent where they commit in order.
   */
  snapshot?(db: Db): Promise<string>;
  /** Removes the search index's entries for the tenant's records `seqs`, inside the delete's transaction. */
  deleteIndexEntries(trx: Db, tenantId: number, seqs: number[]): Promise<void>;
  /** After deletes on the shared connection: gives up to `pages` freed pages back, where the file keeps them. */
  reclaimPages(db: Db, pages: number): Promise<void>;
  /** Where deletes should not hold the shared connection (SQLite): a thread of their own for them. */
  thread?(): PurgeThread;
}
