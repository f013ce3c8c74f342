// PostgreSQL positions in the record log as snapshots. Sequence values are handed out before
// commit, so "after sequence N" can miss a record that commits late. A position is instead a
// snapshot `seen` (every record it can see has been processed) and, while a window is read in
// parts, the snapshot `upTo` the window ends at with the (transaction id, sequence) key reached
// inside it. The records new since `seen` are those of transactions `seen` could not see and
// `upTo` can: those it counted as running (pg_snapshot_xip) that have committed since, and
// those at or past its xmax. Both are index ranges on (tx_id, seq), whatever else runs on the
// server: a transaction held open elsewhere only stays in the running list, it holds nothing back.
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { Db } from '../storage/database.js';
import type { Tables } from '../storage/schema.js';
import type { TelemetryRecordsTable } from '../storage/tables/record-log.js';

/** A snapshot position (the fields LogPosition and the live tail's position share). */
export interface SnapshotPosition {
  /** Progress inside the window: every record at or before this (transaction id, sequence) key. */
  seq: number;
  /** An xid8 as decimal text. */
  txId: string;
  /** Every record visible to this snapshot (`pg_snapshot` text) has been processed. */
  seen?: string;
  /** While a window is read in parts: the snapshot the window ends at. */
  upTo?: string;
}

/** Room for ≈ 450 running transactions; a tail cursor (16 KiB at most) holds two snapshots. */
export const MAX_SNAPSHOT_CHARS = 5_000;

/**
 * What this moment can see: committed transactions below xmax and not among the running ones.
 * Past `seen` (the snapshot a window starts from), so that the window never ends before it.
 */
export async function currentSnapshot(db: Kysely<Tables>, seen?: string): Promise<string> {
  const result = await sql<{ snapshot: string }>`SELECT pg_current_snapshot()::text AS snapshot`.execute(db);
  const row = result.rows[0];
  if (!row) throw new Error('the snapshot query returned no row');
  return boundedSnapshot(row.snapshot, seen, MAX_SNAPSHOT_CHARS);
}

/**
 * A snapshot of at most about `maxChars` that sees no more than `snapshot` and no less than
 * `seen`: too many running transactions to carry are cut by lowering xmax to the first running
 * one left out. Lowering it to xmin alone would see less than `seen` when `seen` saw committed
 * transactions above that xmin, and the next window would read them again; so xmax never goes
 * below seen's, and the running ones below seen's xmax were running at `seen` too (the list is
 * no longer than seen's own). What is cut off is read by a later window instead of skipped.
 */
export function boundedSnapshot(snapshot: string, seen: string | undefined, maxChars: number): string {
  if (snapshot.length <= maxChars) return snapshot;
  const [xmin = '', xmax = '', list = ''] = snapshot.split(':');
  const running = list === '' ? [] : list.split(',');
  const floor = seen === undefined ? 0n : BigInt(seen.slice(seen.indexOf(':') + 1, seen.lastIndexOf(':')));
  // Keep the longest prefix of the running list that fits; its bound is the next running one.
  let length = xmin.length + xmax.length + 2;
  const cut = running.findIndex((id) => (length += id.length + 1) > maxChars);
  let bound = BigInt(cut === -1 ? xmax : (running[cut] ?? xmax));
  if (bound < floor) bound = floor < BigInt(xmax) ? floor : BigInt(xmax);
  const below = running.filter((id) => BigInt(id) < bound);
  return `${xmin}:${bound}:${below.join(',')}`;
}

/**
 * The snapshot a position from before snapshots were kept stands for: a (transaction id,
 * sequence) key, everything at or before it processed, is "sees every transaction below that
 * id" plus the key. Transaction id 0 (nothing read) is not a valid snapshot bound; 1 sees as little.
 */
export function seenOf(position: SnapshotPosition): string {
  if (position.seen !== undefined) return position.seen;
  const id = position.txId === '0' ? '1' : position.txId;
  return `${id}:${id}:`;
}

/**
 * The lowest transaction id a window from `seen` to `upTo` can hold, as one index range start:
 * the oldest of seen's running transactions that upTo sees committed, else seen's xmax. One
 * still running (held open anywhere on the server) does not lower it.
 */
export function windowStart(seen: string, upTo: string): RawBuilder<unknown> {
  return sql`(SELECT LEAST(min(x.id), pg_snapshot_xmax(${seen}::pg_snapshot))
    FROM pg_snapshot_xip(${seen}::pg_snapshot) AS x(id) WHERE pg_visible_in_snapshot(x.id, ${upTo}::pg_snapshot))`;
}

/** A record as a follower reads it; int8 columns arrive as numbers (storage/database.ts parses them). */
export type WindowRow = Selectable<TelemetryRecordsTable> & { tx_id: string };

export interface WindowRead {
  rows: WindowRow[];
  /** Where the next read starts: inside the window after a full read, else past it. */
  position: SnapshotPosition;
}

const COLUMNS = sql`r.seq, r.tx_id::text AS tx_id, r.tenant_id, r.received_at, r.event_time, r.record, r.meta`;

function key(position: SnapshotPosition): RawBuilder<unknown> {
  return sql`(${position.txId}::xid8, ${position.seq})`;
}

/**
 * Up to `limit` records after `from` in (tx_id, seq) order. A window left open by an earlier
 * read is finished first and the next one continues in the same read, so a position never
 * stays inside a window with nothing left in it.
 */
export async function readSnapshotWindow(
  db: Kysely<Tables>,
  from: SnapshotPosition,
  limit: number,
): Promise<WindowRead> {
  const read = await readOneWindow(db, from, limit);
  if (from.upTo === undefined || read.rows.length >= limit) return read;
  const next = await readOneWindow(db, { seq: 0, txId: '0', seen: from.upTo }, limit - read.rows.length);
  return { rows: [...read.rows, ...next.rows], position: next.position };
}

async function readOneWindow(db: Kysely<Tables>, from: SnapshotPosition, limit: number): Promise<WindowRead> {
  const seen = seenOf(from);
  const upTo = from.upTo ?? (await currentSnapshot(db, seen));
  const after = key(from);
  // Transactions running at `seen` that `upTo` sees committed: each an index range of its own,
  // at most `limit` rows from each, merged. All are below seen's xmax, so they come first.
  const late = await sql<WindowRow>`
    SELECT r.* FROM pg_snapshot_xip(${seen}::pg_snapshot) AS x(id)
    CROSS JOIN LATERAL (
      SELECT ${COLUMNS} FROM telemetry_records r
      WHERE r.tx_id = x.id AND (r.tx_id, r.seq) > ${after}
      ORDER BY r.seq LIMIT ${limit}
    ) r
    WHERE pg_visible_in_snapshot(x.id, ${upTo}::pg_snapshot) AND x.id >= ${from.txId}::xid8
    ORDER BY x.id, r.seq LIMIT ${limit}`.execute(db);
  const rows = late.rows;
  if (rows.length < limit) {
    // Transactions that began at or after seen's xmax and have committed by upTo.
    const fresh = await sql<WindowRow>`
      SELECT ${COLUMNS} FROM telemetry_records r
      WHERE r.tx_id >= pg_snapshot_xmax(${seen}::pg_snapshot) AND r.tx_id < pg_snapshot_xmax(${upTo}::pg_snapshot)
        AND (r.tx_id, r.seq) > ${after}
        AND pg_visible_in_snapshot(r.tx_id, ${upTo}::pg_snapshot)
      ORDER BY r.tx_id, r.seq LIMIT ${limit - rows.length}`.execute(db);
    rows.push(...fresh.rows);
  }
  const last = rows.at(-1);
  // A full read may have left records in the window; otherwise the window is read through.
  if (last && rows.length >= limit) return { rows, position: { seq: last.seq, txId: last.tx_id, seen, upTo } };
  return { rows, position: { seq: 0, txId: '0', seen: upTo } };
}

/** Whether a record (alias r) at or before the position's key counts as processed. */
function processedInWindow(position: SnapshotPosition): RawBuilder<boolean> {
  const visible =
    position.upTo === undefined ? sql`TRUE` : sql`pg_visible_in_snapshot(r.tx_id, ${position.upTo}::pg_snapshot)`;
  return sql<boolean>`((r.tx_id, r.seq) <= ${key(position)} AND ${visible})`;
}

/**
 * How many records the position has not processed, up to `cap`: those of transactions `seen`
 * counted as running and those at or past its xmax, less what the window has read of them.
 */
export async function unprocessedCount(db: Db, position: SnapshotPosition, cap: number): Promise<number> {
  const seen = seenOf(position);
  const done = processedInWindow(position);
  // Per running transaction, a lookup of its own: a join would guess a thousand ids and scan the log.
  const result = await sql<{ n: number }>`SELECT
      (SELECT COALESCE(sum(c.n), 0) FROM pg_snapshot_xip(${seen}::pg_snapshot) AS x(id)
        CROSS JOIN LATERAL (SELECT count(*) AS n FROM (
          SELECT 1 FROM telemetry_records r WHERE r.tx_id = x.id AND NOT ${done} LIMIT ${cap}) one) c)::int
    + (SELECT count(*) FROM (
        SELECT 1 FROM telemetry_records r
        WHERE r.tx_id >= pg_snapshot_xmax(${seen}::pg_snapshot) AND NOT ${done} LIMIT ${cap}) later)::int AS n`.execute(
    db,
  );
  return Math.min(cap, result.rows[0]?.n ?? 0);
}

/**
 * The lowest sequence the position has not processed, less one (undefined: none is left).
 * Records in the window already read count as not processed: the answer is a lower bound.
 */
export async function unprocessedFloor(db: Db, position: SnapshotPosition): Promise<number | undefined> {
  const seen = seenOf(position);
  // `+ 0` keeps min() off the sequence index, which would walk the log from its start.
  const result = await sql<{ seq: number | string | null }>`SELECT LEAST(
      (SELECT min(f.seq) FROM pg_snapshot_xip(${seen}::pg_snapshot) AS x(id)
        CROSS JOIN LATERAL (SELECT r.seq FROM telemetry_records r WHERE r.tx_id = x.id ORDER BY r.seq LIMIT 1) f),
      (SELECT min(r.seq + 0) FROM telemetry_records r WHERE r.tx_id >= pg_snapshot_xmax(${seen}::pg_snapshot))
    ) AS seq`.execute(db);
  const seq = result.rows[0]?.seq;
  return seq === null || seq === undefined ? undefined : Number(seq) - 1;
}
