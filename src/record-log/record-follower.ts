// Reads the record log after a follower's position, never skipping a record that commits late.
// SQLite has one writer and assigns sequences under its write lock, so sequence order is commit
// order and a position is the last sequence read. PostgreSQL hands out sequence values before
// commit: a transaction holding seq 5 can commit after one holding seq 6 was read. Each record
// therefore carries its writing transaction's id (xid8), and a position is a snapshot: the
// records read next are those of transactions it could not see that a later snapshot can
// (telemetry/snapshot-window.ts). A transaction still writing is read once it commits, never
// skipped, and one held open anywhere else on the server holds nothing back.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DatabaseKind } from '../storage/database.js';
import type { Tables } from '../storage/schema.js';
import type { TelemetryRecordsTable } from '../storage/tables/record-log.js';
import { logEnd } from '../telemetry/telemetry-store.js';
import { CursorMoved, type LoggedRecord, type LogPosition, type LogRead, type RecordLogReader } from './record-log.js';
import { readSnapshotWindow, unprocessedCount } from '../telemetry/snapshot-window.js';

/** Beyond this the lag is reported as this value: counting further would cost more than it tells. */
export const LAG_COUNT_CAP = 10_000_000;

/** The embedded log's consumers: positions in `log_cursors`, records from `telemetry_records`. */
export class SqlRecordLogReader implements RecordLogReader {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly kind: DatabaseKind,
  ) {}

  position(consumer: string): Promise<LogPosition> {
    return readPosition(this.db, consumer);
  }

  read(from: LogPosition, limit: number): Promise<LogRead> {
    return readRecordsAfter(this.db, this.kind, from, limit);
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
    if (Number(moved.numUpdatedRows) !== 1) throw new CursorMoved(`the ${consumer} cursor moved under this worker`);
  }

  lag(consumer: string): Promise<number> {
    return followerLag(this.db, this.kind, consumer);
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
type RecordRow = Omit<Selectable<TelemetryRecordsTable>, 'jsonb_ok' | 'plain_text'>;

function toLogged(row: RecordRow, txId: string): LoggedRecord {
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

/** Up to `limit` records after `position`, in the order the follower must process them. */
async function readRecordsAfter(
  db: Kysely<Tables>,
  kind: DatabaseKind,
  position: LogPosition,
  limit: number,
): Promise<LogRead> {
  if (kind === 'sqlite') {
    const rows = await db
      .selectFrom('telemetry_records')
      .select(['seq', 'tenant_id', 'received_at', 'event_time', 'record', 'meta'])
      .where('seq', '>', position.seq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    const last = rows.at(-1);
    return { records: rows.map((row) => toLogged(row, '0')), to: last ? { seq: last.seq, txId: '0' } : position };
  }
  const read = await readSnapshotWindow(db, position, limit);
  return { records: read.rows.map((row) => toLogged(row, row.tx_id)), to: read.position };
}

/** How many records the follower at `name` has not processed yet (visible or still committing). */
async function followerLag(db: Kysely<Tables>, kind: DatabaseKind, name: string): Promise<number> {
  const position = await readPosition(db, name);
  // One writer on SQLite: sequences commit in order, so the log's end tells the lag.
  if (kind === 'sqlite') return Math.max(0, (await logEnd(db)) - position.seq);
  return unprocessedCount(db, position, LAG_COUNT_CAP);
}
