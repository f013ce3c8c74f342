// The PostgreSQL bulk insert of record-log groups for the scale-out worker, which needs every
// row's sequence back (the embedded writer uses COPY, record-copy.ts): one INSERT … SELECT FROM
// unnest(…) statement, so one round trip per group. Each column travels as one text parameter that
// PostgreSQL splits itself (string_to_array), not as a text[] parameter: pg escapes every element
// of an array in JavaScript and PostgreSQL parses the escaped literal back, which for a group of
// ~1 MB requests cost more CPU on both sides than the insert itself.
import type pg from 'pg';
import type { RecordBatch } from '../../record-log/record-log.js';
import { JSONB_OK, PLAIN_TEXT, textMarks } from '../../record-log/record-text-marks.js';

/**
 * Splits records and metadata. JSON text holds no raw control character but tab, CR and LF
 * (RFC 8259: they are escaped inside strings), so it never holds this one, and it is never
 * empty. A group with a text that holds it, or an empty one (which the split would lose or read
 * as NULL), takes the array statement, which stores any text as it is.
 */
const SEPARATOR = '\x1e';

// A group is one transaction: its id and the largest sequence the statement took are the
// position of the group's last record (record-follower.ts orders by (tx_id, seq)). tx_id is left to its
// column default (pg_current_xact_id()), the same value for every row of the transaction.
const RETURNING_POSITION = `RETURNING seq
  )
  SELECT max(seq)::text AS seq, pg_current_xact_id()::text AS tx_id FROM written`;

// Every row's sequence, for callers that hand the stored records on (the scale-out worker).
const RETURNING_SEQS = `RETURNING seq
  )
  SELECT seq::text AS seq FROM written`;

// A meta of '' (never JSON text) stands for NULL: string_to_array's third argument; so does a
// jsonb_ok or plain_text of '' ("not sure", record-text-marks.ts).
const INSERT_SPLIT = `WITH written AS (
    INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta, jsonb_ok, plain_text)
    SELECT * FROM unnest(
      string_to_array($1, ',')::bigint[], string_to_array($2, ',')::bigint[], string_to_array($3, ',')::bigint[],
      string_to_array($4, E'\\x1e'), string_to_array($5, E'\\x1e', ''), string_to_array($6, ',', '')::boolean[],
      string_to_array($7, ',', '')::boolean[]
    )
    `;

const INSERT_ARRAYS = `WITH written AS (
    INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta, jsonb_ok, plain_text)
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::boolean[], $7::boolean[])
    `;

/** What an insert answers: the group's position, or each row's sequence. */
export type Returning = 'position' | 'seqs';

/** One statement inserting the batches' records, in order: its text and parameters. */
export interface RecordInsert {
  text: string;
  values: unknown[];
}

export type InsertedPosition = pg.QueryResult<{ seq: string | null; tx_id: string }>;

/** Inserts the batches' records in one statement (on a pool, or a client inside a transaction). */
export function insertRecords(target: pg.Pool | pg.PoolClient, batches: RecordBatch[]): Promise<InsertedPosition> {
  const statement = recordInsert(recordColumns(batches), 'position');
  return target.query(statement.text, statement.values);
}

/**
 * The statement inserting the records. Sequences are drawn row by row in the order unnest yields
 * the columns, which is the columns' order.
 */
export function recordInsert(columns: RecordColumns, returning: Returning): RecordInsert {
  const tail = returning === 'position' ? RETURNING_POSITION : RETURNING_SEQS;
  const splittable = [...columns.records, ...columns.metas].every(
    (text) => text === null || (text !== '' && !text.includes(SEPARATOR)),
  );
  if (!splittable) {
    return {
      text: INSERT_ARRAYS + tail,
      values: [
        columns.tenantIds,
        columns.receivedAts,
        columns.eventTimes,
        columns.records,
        columns.metas,
        columns.jsonbOk,
        columns.plainText,
      ],
    };
  }
  return {
    text: INSERT_SPLIT + tail,
    values: [
      columns.tenantIds.join(','),
      columns.receivedAts.join(','),
      columns.eventTimes.join(','),
      columns.records.join(SEPARATOR),
      columns.metas.map((meta) => meta ?? '').join(SEPARATOR),
      columns.jsonbOk.map((sure) => (sure ? 't' : '')).join(','),
      columns.plainText.map((sure) => (sure ? 't' : '')).join(','),
    ],
  };
}

/** The batches' records as columns, one entry per record, in order. */
export interface RecordColumns {
  tenantIds: number[];
  receivedAts: number[];
  eventTimes: number[];
  records: string[];
  metas: (string | null)[];
  /** true when PostgreSQL can surely read the record as jsonb, else null (record-text-marks.ts). */
  jsonbOk: (true | null)[];
  /** true when the record writes every string and number as itself, else null (record-text-marks.ts). */
  plainText: (true | null)[];
}

export function recordColumns(batches: RecordBatch[]): RecordColumns {
  const columns: RecordColumns = {
    tenantIds: [],
    receivedAts: [],
    eventTimes: [],
    records: [],
    metas: [],
    jsonbOk: [],
    plainText: [],
  };
  for (const batch of batches) {
    for (const [i, record] of batch.records.entries()) {
      // No event time of its own (NaN): the receive time stands in.
      const eventTime = batch.eventTimes[i] ?? Number.NaN;
      columns.tenantIds.push(batch.tenantId);
      columns.receivedAts.push(batch.receivedAt);
      columns.eventTimes.push(Number.isNaN(eventTime) ? batch.receivedAt : eventTime);
      columns.records.push(record);
      columns.metas.push(batch.metas[i] ?? null);
      const marks = textMarks(record);
      columns.jsonbOk.push(marks & JSONB_OK ? true : null);
      columns.plainText.push(marks & PLAIN_TEXT ? true : null);
    }
  }
  return columns;
}
