// Drives one consumer along the embedded record log (telemetry_records with a cursor row in
// log_cursors): reads the next chunk after the consumer's durable position, then in one
// transaction moves the position and applies the chunk, so a crash before the commit redoes the
// chunk and after it never reads it again. The position moves first: on SQLite that takes the
// write lock before anything else, and on both it fences out a second follower of the same cursor
// (another process, or a catch-up beside the loop), which gets CursorMoved and reads again from
// where the first one left the cursor. The scale-out log drives the same consumers from its
// stream partitions instead (storage/postgres/stream-partition-apply.ts).
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { CursorMoved, type LogPosition } from './record-log.js';
import type { ConsumerScope, LogEntry, RecordConsumer } from './record-consumer.js';

/**
 * The log as a follower needs it; RecordLogReader is one (whole records), and a consumer that
 * needs only positions can be given a reader that reads no more than those.
 */
export interface FollowedLog<R extends LogEntry> {
  position(cursor: string): Promise<LogPosition>;
  read(from: LogPosition, limit: number): Promise<{ records: R[]; to: LogPosition }>;
  /** Moves the cursor from `from` to `to` inside `trx`; throws CursorMoved when it is no longer at `from`. */
  acknowledge(trx: Transaction<Tables>, cursor: string, from: LogPosition, to: LogPosition): Promise<void>;
}

/** One chunk read after the durable position: what the commit moves the cursor over. */
export interface LogChunk<R extends LogEntry> {
  from: LogPosition;
  to: LogPosition;
  records: R[];
}

export interface ChunkOutcome {
  /** Records applied and committed; 0 when nothing was visible to read or the cursor moved. */
  records: number;
  /** Another follower moved the cursor first: nothing was applied, and reading again may find more. */
  moved: boolean;
}

/** The embedded log is one scope: its cursor is the only fence. */
const WHOLE_LOG: ConsumerScope = { kind: 'log' };

export const DEFAULT_CHUNK = 1_000;

export class LogFollower<R extends LogEntry> {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly log: FollowedLog<R>,
    readonly cursor: string,
    private readonly consumer: RecordConsumer<R>,
    private readonly chunk = DEFAULT_CHUNK,
  ) {}

  /** Up to a chunk of records after the cursor's durable position. */
  async next(): Promise<LogChunk<R>> {
    const from = await this.log.position(this.cursor);
    const { records, to } = await this.log.read(from, this.chunk);
    return { from, to, records };
  }

  /**
   * Moves the cursor over the chunk and applies it, in one transaction. Throws CursorMoved when
   * another follower moved the cursor since the chunk was read; on any failure the consumer
   * discards its memory, which may be ahead of what committed.
   */
  async commit(chunk: LogChunk<R>): Promise<void> {
    const batch = { scope: WHOLE_LOG, records: chunk.records };
    try {
      // The work that needs no lock first: the transaction below holds only the writes.
      await this.consumer.prepare?.(this.db, batch);
      // Read-write: on SQLite the write lock is taken at BEGIN, so the chunk waits its turn behind
      // the record writer instead of failing because a commit landed after its first read.
      await this.db
        .transaction()
        .setAccessMode('read write')
        .execute(async (trx) => {
          await this.log.acknowledge(trx, this.cursor, chunk.from, chunk.to);
          await this.consumer.apply(trx, batch);
        });
    } catch (error) {
      this.consumer.discard(WHOLE_LOG);
      throw error;
    }
    this.consumer.committed?.(WHOLE_LOG);
  }

  /** Reads and commits the next chunk. */
  async runChunk(): Promise<ChunkOutcome> {
    const chunk = await this.next();
    if (chunk.records.length === 0) return { records: 0, moved: false };
    try {
      await this.commit(chunk);
    } catch (error) {
      if (error instanceof CursorMoved) return { records: 0, moved: true };
      throw error;
    }
    return { records: chunk.records.length, moved: false };
  }

  /** Runs chunks until nothing is left to read; returns how many records were applied. */
  async runUntilIdle(): Promise<number> {
    let total = 0;
    for (;;) {
      const { records, moved } = await this.runChunk();
      if (records === 0 && !moved) return total;
      total += records;
    }
  }
}
