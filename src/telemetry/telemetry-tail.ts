// Live tail for readers: the records matching a search that the log gained after a position,
// polled with the position each answer returns. The position is the opaque `tail_cursor`;
// it names a place in the whole log, so it stays valid when the search criteria change.
import { AppError } from '../core/errors.js';
import { decodeCursor, encodeCursor } from '../http/pagination.js';
import {
  parseSearch,
  presentRecords,
  type SearchInput,
  type StoredRecord,
  type TelemetryReader,
} from './telemetry-service.js';
import { MAX_SNAPSHOT_CHARS, type TailPosition } from './tail-store.js';

/** Log records (all tenants) one read looks at, at most: bounds the cost of an old position. */
export const TAIL_SCAN_RECORDS = 10_000;
export const MAX_TAIL_RECORDS = 1_000;

export interface TailPage {
  records: StoredRecord[];
  position: TailPosition;
  caughtUp: boolean;
}

/**
 * Without a position the tail starts at the log's end and returns nothing yet. A text search
 * first brings the index up to date, so what was acknowledged before the call is readable.
 */
export async function tailTelemetry(
  reader: TelemetryReader,
  tenantId: number,
  input: SearchInput,
  from: TailPosition | undefined,
  limit: number,
): Promise<TailPage> {
  const match = parseSearch(input);
  const { db } = reader.database;
  const { tail } = reader.storage;
  if (!from) return { records: [], position: await tail.end(db), caughtUp: true };
  // No catch-up: a text tail reads no further than the index has reached (its horizon), and
  // the next call goes on from there.
  const read = await tail.read(db, tenantId, match, from, {
    limit: Math.min(limit, MAX_TAIL_RECORDS),
    scan: TAIL_SCAN_RECORDS,
  });
  return { records: presentRecords(read.rows), position: read.position, caughtUp: read.caughtUp };
}

export function encodeTailCursor(position: TailPosition): string {
  return encodeCursor({
    t: 'tail',
    s: position.seq,
    x: position.txId,
    ...(position.seen ? { p: position.seen } : {}),
    ...(position.upTo ? { w: position.upTo } : {}),
  });
}

/** `pg_snapshot` text: xmin:xmax:xip,… (decimal xid8s). */
const SNAPSHOT = /^\d{1,20}:\d{1,20}:(\d{1,20}(,\d{1,20})*)?$/;

export function decodeTailCursor(cursor: string): TailPosition {
  const bad = () =>
    new AppError(
      'invalid_cursor',
      'tail_cursor is not one this API returned; pass the tail_cursor of the last answer unchanged',
      { extensions: { field: 'tail_cursor' } },
    );
  let decoded: { t: string; s: number; x: string; p?: unknown; w?: unknown };
  try {
    decoded = decodeCursor<{ t: string; s: number; x: string }>(cursor, { t: 'string', s: 'number', x: 'string' });
  } catch (error) {
    if (error instanceof AppError) throw bad();
    throw error;
  }
  // xid8 is an unsigned 64-bit integer; SQLite positions carry '0'.
  if (decoded.t !== 'tail' || decoded.s < 0 || !/^\d{1,20}$/.test(decoded.x) || BigInt(decoded.x) >= 2n ** 64n)
    throw bad();
  const snapshot = (value: unknown): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > MAX_SNAPSHOT_CHARS || !SNAPSHOT.test(value)) throw bad();
    return value;
  };
  const seen = snapshot(decoded.p);
  const upTo = snapshot(decoded.w);
  if (upTo && !seen) throw bad();
  return { seq: decoded.s, txId: decoded.x, ...(seen ? { seen } : {}), ...(upTo ? { upTo } : {}) };
}
