// The durable record log: the spine between the collector and everything downstream. The
// collector appends request batches (the group-commit queue hands many at once to a writer,
// which makes them durable together, and only then are the requests answered); consumers read
// from their position in order and acknowledge a position inside the transaction that applied
// what they read (record-consumer.ts: what a consumer is, whichever log drives it). The embedded
// implementation is the telemetry table itself, read after a persisted cursor (record-follower.ts)
// by a follower (log-follower.ts); a distributed log (NATS JetStream) fits the same shape.
import type { Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { StoredRecord } from '../telemetry/normalise/index.js';
import type { StorageFault } from '../storage/storage-errors.js';

/** One request's records: one tenant, one receive time. Columnar, so it crosses threads cheaply. */
export interface RecordBatch {
  tenantId: number;
  /** Server receive time, epoch milliseconds. */
  receivedAt: number;
  records: string[];
  /** The record's own time, epoch ms; NaN means "use the receive time". */
  eventTimes: number[];
  metas: (string | null)[];
}

/**
 * A place in the log. Consumers read strictly after it. SQLite: the last sequence read.
 * PostgreSQL: snapshots and a (transaction id, sequence) key (see telemetry/snapshot-window.ts).
 */
export interface LogPosition {
  seq: number;
  /** PostgreSQL: an xid8 as text, with `seq` the progress inside a window. SQLite: '0'. */
  txId: string;
  /** PostgreSQL: every record this snapshot (`pg_snapshot` text) sees has been read. */
  seen?: string;
  /** PostgreSQL, while a window is read in parts: the snapshot it ends at. */
  upTo?: string;
}

/** What a read returned, and the position after it (PostgreSQL's is not the last record's). */
export interface LogRead {
  records: LoggedRecord[];
  to: LogPosition;
}

/** A record as a consumer reads it: the stored record and the position just past it. */
export interface LoggedRecord extends StoredRecord {
  txId: string;
}

/** A dialect's durable writer: resolves only once every batch given is durable. */
export interface RecordLogWriter {
  /** Appends the batches in one durable step; resolves with the position of the last record. */
  append(batches: RecordBatch[]): Promise<LogPosition>;
  /** Resolves once the writer can take work; rejects when it cannot start. */
  ready(): Promise<void>;
  /** Whether the writer can still accept work (e.g. its thread is alive). */
  readonly healthy: boolean;
  /** Why the last append failed (disk full, read-only, …), until an append succeeds again. */
  readonly fault: StorageFault | undefined;
  /**
   * Writers that also keep the search index (SQLite's writer thread) bring it up to the log's
   * current end, off the caller's thread. Absent: readers catch it up themselves.
   */
  catchUpSearchIndex?(): Promise<void>;
  close(): Promise<void>;
}

/** A consumer's view of the log: where it stands, what comes next, and moving on. */
export interface RecordLogReader {
  /** The named consumer's acknowledged position. */
  position(consumer: string): Promise<LogPosition>;
  /** Up to `limit` records after `from`, in the order the consumer must apply them. */
  read(from: LogPosition, limit: number): Promise<LogRead>;
  /**
   * Moves the consumer from `from` to `to` inside the transaction that applied the records, so
   * that the effect and the position commit together. Throws CursorMoved when the consumer is
   * no longer at `from` (another owner got there first): the caller's transaction must roll back.
   */
  acknowledge(trx: Transaction<Tables>, consumer: string, from: LogPosition, to: LogPosition): Promise<void>;
  /** How many records the consumer has not acknowledged yet (capped; see the implementation). */
  lag(consumer: string): Promise<number>;
}

/** Another consumer moved the position first: this chunk's work is discarded and redone from there. */
export class CursorMoved extends Error {
  override name = 'CursorMoved';
}

/** What identifies a request for de-duplication: the client's Idempotency-Key header, if any. */
export interface RequestIdentity {
  idempotencyKey: string | string[] | undefined;
}

/** What the log did with an appended request. */
export interface Appended {
  /**
   * The log had stored this very request already (a retry with the same Idempotency-Key within
   * the duplicate window) and added nothing: the first attempt had landed although its answer was lost.
   */
  duplicate: boolean;
}

/**
 * Where the collector hands a request's records: resolves once they are durable in the log
 * (the embedded group-commit queue, or the JetStream publisher of the scale-out mode).
 */
export interface RecordQueue {
  /**
   * Resolves when the batch is durable; rejects (503/413 AppError) when it cannot be, storing
   * none of it. `identity` lets a log that de-duplicates (JetStream) store a retried request once.
   */
  append(batch: RecordBatch, bytes: number, identity?: RequestIdentity): Promise<Appended>;
  /** Bytes accepted but not yet durable. */
  readonly pendingBytes: number;
  /** Whether new requests are refused up front (503) until the backlog shrinks. */
  readonly overLimit: boolean;
  /** Resolves once everything accepted so far is durable (or failed). */
  drain(): Promise<void>;
}
