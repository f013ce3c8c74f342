// The PostgreSQL bulk insert of record-log groups: one INSERT … SELECT FROM unnest(…) statement,
// so one round trip and one transaction per group. Each column travels as one text parameter that
// PostgreSQL splits itself (string_to_array), not as a text[] parameter: pg escapes every element
// of an array in JavaScript and PostgreSQL parses the escaped literal back, which for a group of
// ~1 MB requests cost more CPU on both sides than the insert itself.
import type pg from 'pg';
import type { RecordBatch } from './record-log.js';

/**
 * Splits records and metadata. JSON text holds no raw control character but tab, CR and LF
 * (RFC 8259: they are escaped inside strings), so it never holds this one, and it is never
 * empty. A group with a text that holds it, or an empty one (which the split would lose or read
 * as NULL), takes the array statement, which stores any text as it is.
 */
const SEPARATOR = '\x1e';

// One statement is one transaction: its id and the largest sequence it took are the position
// of the group's last record (record-follower.ts orders by (tx_id, seq)). tx_id is left to its
// column default (pg_current_xact_id()), the same value for every row of the statement.
const RETURNING_POSITION = `RETURNING seq
  )
  SELECT max(seq)::text AS seq, pg_current_xact_id()::text AS tx_id FROM written`;

// A meta of '' (never JSON text) stands for NULL: string_to_array's third argument.
const INSERT_SPLIT = `WITH written AS (
    INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta)
    SELECT * FROM unnest(
      string_to_array($1, ',')::bigint[], string_to_array($2, ',')::bigint[], string_to_array($3, ',')::bigint[],
      string_to_array($4, E'\\x1e'), string_to_array($5, E'\\x1e', '')
    )
    ${RETURNING_POSITION}`;

const INSERT_ARRAYS = `WITH written AS (
    INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta)
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[])
    ${RETURNING_POSITION}`;

export type InsertedPosition = pg.QueryResult<{ seq: string | null; tx_id: string }>;

/** Inserts the batches' records in one statement (on a pool, or a client inside a transaction). */
export function insertRecords(target: pg.Pool | pg.PoolClient, batches: RecordBatch[]): Promise<InsertedPosition> {
  const columns = recordColumns(batches);
  const splittable = [...columns.records, ...columns.metas].every(
    (text) => text === null || (text !== '' && !text.includes(SEPARATOR)),
  );
  if (!splittable) {
    return target.query(INSERT_ARRAYS, [
      columns.tenantIds,
      columns.receivedAts,
      columns.eventTimes,
      columns.records,
      columns.metas,
    ]);
  }
  return target.query(INSERT_SPLIT, [
    columns.tenantIds.join(','),
    columns.receivedAts.join(','),
    columns.eventTimes.join(','),
    columns.records.join(SEPARATOR),
    columns.metas.map((meta) => meta ?? '').join(SEPARATOR),
  ]);
}

interface RecordColumns {
  tenantIds: number[];
  receivedAts: number[];
  eventTimes: number[];
  records: string[];
  metas: (string | null)[];
}

function recordColumns(batches: RecordBatch[]): RecordColumns {
  const columns: RecordColumns = { tenantIds: [], receivedAts: [], eventTimes: [], records: [], metas: [] };
  for (const batch of batches) {
    for (const [i, record] of batch.records.entries()) {
      // No event time of its own (NaN): the receive time stands in.
      const eventTime = batch.eventTimes[i] ?? Number.NaN;
      columns.tenantIds.push(batch.tenantId);
      columns.receivedAts.push(batch.receivedAt);
      columns.eventTimes.push(Number.isNaN(eventTime) ? batch.receivedAt : eventTime);
      columns.records.push(record);
      columns.metas.push(batch.metas[i] ?? null);
    }
  }
  return columns;
}
