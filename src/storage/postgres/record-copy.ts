// The embedded PostgreSQL record-log write: a group is one COPY … FROM STDIN inside one
// transaction. COPY skips what an INSERT … SELECT FROM unnest(…) pays per row (the executor's
// function scan, projection and RETURNING), and the rows travel as one CSV stream PostgreSQL
// parses as it reads.
//
// The CSV dialect uses two control characters, unit separator (\x1f) between fields and record
// separator (\x1e) as the quote, so that JSON text (full of '"', ',' and '\') goes as it is. A
// field holding either of them, CR or LF, or an empty text (an unquoted empty field reads as
// NULL) is quoted, its quote characters doubled. jsonb_ok and plain_text are 't' or NULL
// (record-text-marks.ts).
// tx_id and seq are left to their column defaults:
// every row of the transaction takes its id, and sequences are drawn in the stream's order.
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { LogPosition, RecordBatch } from '../../record-log/record-log.js';
import { JSONB_OK, PLAIN_TEXT, textMarks } from '../../record-log/record-text-marks.js';

const DELIMITER = '\x1f';
const QUOTE = '\x1e';

export const COPY_RECORDS = `COPY telemetry_records (tenant_id, received_at, event_time, record, meta, jsonb_ok, plain_text)
  FROM STDIN WITH (FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e')`;

/** Rows are handed to the stream in chunks of about this many characters. */
const CHUNK_CHARS = 256 * 1024;

function field(text: string): string {
  if (text === '') return QUOTE + QUOTE;
  if (!text.includes(QUOTE) && !text.includes(DELIMITER) && !text.includes('\n') && !text.includes('\r')) return text;
  return QUOTE + text.replaceAll(QUOTE, QUOTE + QUOTE) + QUOTE;
}

/** The batches' rows as CSV text, in order, in chunks. */
export function* copyRows(batches: RecordBatch[]): Generator<string> {
  let chunk = '';
  for (const batch of batches) {
    const head = `${batch.tenantId}${DELIMITER}${batch.receivedAt}${DELIMITER}`;
    for (const [i, record] of batch.records.entries()) {
      // No event time of its own (NaN): the receive time stands in.
      const eventTime = batch.eventTimes[i] ?? Number.NaN;
      const meta = batch.metas[i] ?? null;
      const marks = textMarks(record);
      chunk +=
        head +
        String(Number.isNaN(eventTime) ? batch.receivedAt : eventTime) +
        DELIMITER +
        field(record) +
        DELIMITER +
        (meta === null ? '' : field(meta)) +
        DELIMITER +
        // "Not sure" is NULL (an unquoted empty field).
        (marks & JSONB_OK ? 't' : '') +
        DELIMITER +
        (marks & PLAIN_TEXT ? 't' : '') +
        '\n';
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
  }
  if (chunk) yield chunk;
}

/**
 * Copies the batches' records in one transaction on `client` and commits; resolves with the
 * position of the group's last record once the commit is durable. `sequence` is the record
 * log's sequence (pg_get_serial_sequence): this session drew the group's last value, so currval
 * is its largest sequence whatever other sessions draw meanwhile. On failure the transaction is
 * rolled back (nothing of the group stays) and the error is thrown.
 */
export async function copyRecords(
  client: pg.PoolClient,
  sequence: string,
  batches: RecordBatch[],
): Promise<LogPosition> {
  await client.query('BEGIN');
  try {
    await pipeline(Readable.from(copyRows(batches)), client.query(copyFrom(COPY_RECORDS)));
    const empty = batches.every((batch) => batch.records.length === 0);
    const { rows } = await client.query<{ seq: string | null; tx_id: string }>(
      empty
        ? 'SELECT NULL AS seq, pg_current_xact_id()::text AS tx_id'
        : 'SELECT currval($1::regclass)::text AS seq, pg_current_xact_id()::text AS tx_id',
      empty ? [] : [sequence],
    );
    await client.query('COMMIT');
    const row = rows[0];
    return { seq: Number(row?.seq ?? 0), txId: row?.tx_id ?? '0' };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
