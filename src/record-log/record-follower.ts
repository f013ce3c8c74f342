// Reads the record log after a follower's position, never skipping a record that commits late.
// SQLite has one writer and assigns sequences under its write lock, so sequence order is commit
// order and a position is the last sequence read. PostgreSQL hands out sequence values before
// commit: a transaction holding seq 5 can commit after one holding seq 6 was read. Each record
// therefore carries its writing transaction's id (xid8), and the follower reads only records
// whose transaction is older than the oldest one still running (pg_snapshot_xmin), in
// (tx_id, seq) order: no running transaction can add a record before that position, so once
// read, nothing earlier can appear. A long-running writing transaction holds the follower back
// (lag grows) but never makes it skip.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DatabaseKind } from '../storage/database.js';
import type { Tables } from '../storage/schema.js';
import { logEnd } from '../telemetry/telemetry-store.js';
import { CursorMoved, type LoggedRecord, type LogPosition, type RecordLogReader } from './record-log.js';

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

  read(from: LogPosition, limit: number): Promise<LoggedRecord[]> {
    return readRecordsAfter(this.db, this.kind, from, limit);
  }

  async acknowledge(trx: Transaction<Tables>, consumer: string, from: LogPosition, to: LogPosition): Promise<void> {
    // On SQLite this takes the write lock before anything else in the transaction; on both it
    // fails the chunk if another consumer got there first.
    const moved = await trx
      .updateTable('log_cursors')
      .set({ seq: to.seq, tx_id: to.txId })
      .where('name', '=', consumer)
      .where('seq', '=', from.seq)
      .where('tx_id', '=', from.txId)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) throw new CursorMoved(`the ${consumer} cursor moved under this worker`);
  }

  lag(consumer: string): Promise<number> {
    return followerLag(this.db, this.kind, consumer);
  }
}

async function readPosition(db: Kysely<Tables>, name: string): Promise<LogPosition> {
  const row = await db.selectFrom('log_cursors').select(['seq', 'tx_id']).where('name', '=', name).executeTakeFirst();
  if (!row) throw new Error(`log cursor ${name} is missing (migration 0003 creates it)`);
  return { seq: row.seq, txId: row.tx_id ?? '0' };
}

/** int8 columns arrive as numbers from PostgreSQL too (storage/database.ts parses them). */
interface RecordRow {
  seq: number;
  tenant_id: number;
  received_at: number;
  event_time: number;
  record: string;
  meta: string | null;
}

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
): Promise<LoggedRecord[]> {
  if (kind === 'sqlite') {
    const rows = await db
      .selectFrom('telemetry_records')
      .select(['seq', 'tenant_id', 'received_at', 'event_time', 'record', 'meta'])
      .where('seq', '>', position.seq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((row) => toLogged(row, '0'));
  }
  const result = await sql<{
    seq: number;
    tx_id: string;
    tenant_id: number;
    received_at: number;
    event_time: number;
    record: string;
    meta: string | null;
  }>`SELECT seq, tx_id::text AS tx_id, tenant_id, received_at, event_time, record, meta
     FROM telemetry_records
     WHERE (tx_id, seq) > (${position.txId}::xid8, ${position.seq})
       AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY tx_id, seq
     LIMIT ${limit}`.execute(db);
  return result.rows.map((row) => toLogged(row, row.tx_id));
}

/** How many records the follower at `name` has not processed yet (visible or still committing). */
async function followerLag(db: Kysely<Tables>, kind: DatabaseKind, name: string): Promise<number> {
  const position = await readPosition(db, name);
  // One writer on SQLite: sequences commit in order, so the log's end tells the lag.
  if (kind === 'sqlite') return Math.max(0, (await logEnd(db)) - position.seq);
  const result = await sql<{ n: number }>`SELECT count(*)::int AS n FROM (
      SELECT 1 FROM telemetry_records WHERE (tx_id, seq) > (${position.txId}::xid8, ${position.seq}) LIMIT ${LAG_COUNT_CAP}
    ) behind`.execute(db);
  return result.rows[0]?.n ?? 0;
}
