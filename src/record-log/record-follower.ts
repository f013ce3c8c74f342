// Reads the record log after a follower's position, never skipping a record that commits late.
// SQLite has one writer and assigns sequences under its write lock, so sequence order is commit
// order and a position is the last sequence read. PostgreSQL hands out sequence values before
// commit: a transaction holding seq 5 can commit after one holding seq 6 was read. Each record
// therefore carries its writing transaction's id (xid8), and a position is a snapshot: the
// records read next are those of transactions it could not see that a later snapshot can
// (telemetry/snapshot-window.ts). A transaction still writing is read once it commits, never
// skipped, and one held open anywhere else on the server holds nothing back. Which of the two
// a deployment reads is a storage port (storage/sqlite/log-reading.ts, storage/postgres/log-reading.ts).
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { TelemetryRecordsTable } from '../storage/tables/record-log.js';
import { CursorMoved, type LoggedRecord, type LogPosition, type LogRead, type RecordLogReader } from './record-log.js';

/** The log reading port: how records after a position are read, and how far behind one is. */
export interface LogReading {
  /** Up to `limit` records after `position`, in the order the follower must process them. */
  readAfter(db: Kysely<Tables>, position: LogPosition, limit: number): Promise<LogRead>;
  /** How many records after `position` are not processed yet (visible or still committing), at most `cap`. */
  lag(db: Kysely<Tables>, position: LogPosition, cap: number): Promise<number>;
  /**
   * Whether `lag` is cheap enough to ask after every chunk (a subtraction where sequences commit
   * in order; a count of rows where they do not), which a follower pacing itself needs.
   */
  readonly lagIsCheap: boolean;
}

/** Beyond this the lag is reported as this value: counting further would cost more than it tells. */
export const LAG_COUNT_CAP = 10_000_000;

/** The embedded log's consumers: positions in `log_cursors`, records from `telemetry_records`. */
export class SqlRecordLogReader implements RecordLogReader {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly reading: LogReading,
  ) {}

  /** Whether `lag` is cheap enough to ask after every chunk. */
  get lagIsCheap(): boolean {
    return this.reading.lagIsCheap;
  }

  position(consumer: string): Promise<LogPosition> {
    return readPosition(this.db, consumer);
  }

  read(from: LogPosition, limit: number): Promise<LogRead> {
    return this.reading.readAfter(this.db, from, limit);
  }

  async acknowledge(trx: Transaction<Tables>, consumer: string, from: LogPosition, to: LogPosition): Promise<void> {
    // On SQLite this takes the write lock before anything else in the transaction; on both it
    // fails the chunk if another consumer got there first.
    // The whole position is compared: inside a window the key alone could repeat across windows.
    const moved = await trx
      .updateTable('log_cursors')
      .set({ seq: to.seq, tx_id: to.txId, seen: to.seen ?? null, up_to: to.upTo ?? null })
      .where('name', '=', consumer)
      .where('seq', '=', from.seq)
      .where('tx_id', '=', from.txId)
      .where((eb) => (from.seen === undefined ? eb('seen', 'is', null) : eb('seen', '=', from.seen)))
      .where((eb) => (from.upTo === undefined ? eb('up_to', 'is', null) : eb('up_to', '=', from.upTo)))
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw new CursorMoved(`the ${consumer} cursor moved under this follower`);
  }

  async lag(consumer: string): Promise<number> {
    return this.reading.lag(this.db, await readPosition(this.db, consumer), LAG_COUNT_CAP);
  }
}

async function readPosition(db: Kysely<Tables>, name: string): Promise<LogPosition> {
  const row = await db
    .selectFrom('log_cursors')
    .select(['seq', 'tx_id', 'seen', 'up_to'])
    .where('name', '=', name)
    .executeTakeFirst();
  if (!row) throw new Error(`log cursor ${name} is missing (migration 0003 creates it)`);
  const position: LogPosition = { seq: row.seq, txId: row.tx_id ?? '0' };
  if (row.seen !== null) position.seen = row.seen;
  if (row.up_to !== null) position.upTo = row.up_to;
  return position;
}

/** int8 columns arrive as numbers from PostgreSQL too (storage/database.ts parses them). */
export type RecordRow = Omit<Selectable<TelemetryRecordsTable>, 'jsonb_ok' | 'plain_text'>;

export function toLogged(row: RecordRow, txId: string): LoggedRecord {
  return {
    seq: row.seq,
    tenantId: row.tenant_id,
    receivedAt: row.received_at,
    eventTime: row.event_time,
    record: row.record,
    meta: row.meta,
    txId,
  };
}
