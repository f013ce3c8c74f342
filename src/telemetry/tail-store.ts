// Reading the record log after a position (live tail): a tenant's matching records that became
// readable since the last read, each exactly once, none skipped. SQLite has one writer that
// assigns sequences under its write lock, so sequence order is commit order and a position is a
// sequence. PostgreSQL hands sequences out before commit, so a position is a snapshot: the records
// "new" since it are those of transactions it could not see that a later snapshot can. Reading
// a window between two snapshots in parts keeps both and the (transaction id, sequence) reached.
// A text match also waits for the search index: records past its cursor are left for later.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { DatabaseKind } from '../storage/database.js';
import {
  hasText,
  indexedUpTo,
  logEnd,
  matchConditions,
  recordColumns,
  type RecordMatch,
  type StoredRecordRow,
} from './telemetry-store.js';
import { currentSnapshot, seenOf, windowStart } from './snapshot-window.js';

export { MAX_SNAPSHOT_CHARS } from './snapshot-window.js';

/** A place in the log: every record at or before it has been looked at. */
export interface TailPosition {
  /** SQLite: the last sequence looked at. PostgreSQL: with `txId`, progress inside a window. */
  seq: number;
  /** PostgreSQL: an xid8 as decimal text. SQLite: '0'. */
  txId: string;
  /** PostgreSQL: every record visible to this snapshot (`pg_snapshot` text) has been looked at. */
  seen?: string;
  /** PostgreSQL, while a window is read in parts: the snapshot the window ends at. */
  upTo?: string;
}

export interface TailRead {
  /** Matching records after the position, in log order. */
  rows: StoredRecordRow[];
  /** Where the next read starts. */
  position: TailPosition;
  /** False when the read stopped early (limit or scan bound): read again at once. */
  caughtUp: boolean;
}

export interface TailBounds {
  /** Matching records returned at most. */
  limit: number;
  /** Log records (of every tenant) looked at most, so an old position costs a bounded read. */
  scan: number;
}

/** The log's current end: a tail started here returns what becomes readable from now on. */
export async function tailEnd(db: Kysely<Tables>, kind: DatabaseKind): Promise<TailPosition> {
  if (kind === 'sqlite') return { seq: await logEnd(db), txId: '0' };
  return { seq: 0, txId: '0', seen: await currentSnapshot(db) };
}

export async function readTail(
  db: Kysely<Tables>,
  kind: DatabaseKind,
  tenantId: number,
  match: RecordMatch,
  from: TailPosition,
  bounds: TailBounds,
): Promise<TailRead> {
  return kind === 'sqlite'
    ? readSqliteTail(db, tenantId, match, from, bounds)
    : readPostgresTail(db, tenantId, match, from, bounds);
}

async function readSqliteTail(
  db: Kysely<Tables>,
  tenantId: number,
  match: RecordMatch,
  from: TailPosition,
  bounds: TailBounds,
): Promise<TailRead> {
  // Both reads are lower bounds that only grow, so reading them apart is safe: every sequence
  // up to the end is committed, and every one up to the index cursor is indexed.
  let horizon = await logEnd(db);
  if (hasText(match)) horizon = Math.min(horizon, await indexedUpTo(db));
  const upTo = Math.min(horizon, from.seq + bounds.scan);
  if (upTo <= from.seq) return { rows: [], position: from, caughtUp: true };
  let select = db
    .selectFrom('telemetry_records as r')
    .select(recordColumns)
    // `+` keeps SQLite on the sequence range instead of the tenant index, which would walk
    // every record the tenant has to find the few new ones.
    .where(sql<boolean>`+r.tenant_id = ${tenantId}`)
    .where('r.seq', '>', from.seq)
    .where('r.seq', '<=', upTo);
  for (const condition of matchConditions('sqlite', tenantId, match, {
    kind: 'window',
    afterSeq: from.seq,
    upToSeq: upTo,
  })) {
    select = select.where(condition);
  }
  const rows = await select
    .orderBy('r.seq')
    .limit(bounds.limit + 1)
    .execute();
  if (rows.length > bounds.limit) {
    const shown = rows.slice(0, bounds.limit);
    const last = shown.at(-1);
    if (!last) throw new Error(`readTail: bounds.limit must be at least 1 (got ${bounds.limit})`);
    return { rows: shown, position: { seq: last.seq, txId: '0' }, caughtUp: false };
  }
  return { rows, position: { seq: upTo, txId: '0' }, caughtUp: upTo === horizon };
}

interface Key {
  txId: string;
  seq: number;
}

function after(position: Key): RawBuilder<boolean> {
  return sql<boolean>`(r.tx_id, r.seq) > (${position.txId}::xid8, ${position.seq})`;
}

function atOrBefore(position: Key): RawBuilder<boolean> {
  return sql<boolean>`(r.tx_id, r.seq) <= (${position.txId}::xid8, ${position.seq})`;
}

/** Records of transactions `seen` could not see and `upTo` can, after the progress key. */
function windowConditions(seen: string, upTo: string, progress: Key): RawBuilder<boolean>[] {
  return [
    // Range bounds keep the (tx_id, seq) index walk short; the visibility tests decide.
    sql<boolean>`r.tx_id >= ${windowStart(seen, upTo)}`,
    sql<boolean>`r.tx_id < pg_snapshot_xmax(${upTo}::pg_snapshot)`,
    sql<boolean>`NOT pg_visible_in_snapshot(r.tx_id, ${seen}::pg_snapshot)`,
    sql<boolean>`pg_visible_in_snapshot(r.tx_id, ${upTo}::pg_snapshot)`,
    after(progress),
  ];
}

async function firstKey(db: Kysely<Tables>, conditions: RawBuilder<boolean>[], offset = 0): Promise<Key | undefined> {
  const result = await sql<{ tx_id: string; seq: number | string }>`
    SELECT r.tx_id::text AS tx_id, r.seq FROM telemetry_records r
    WHERE ${sql.join(conditions, sql` AND `)}
    ORDER BY r.tx_id, r.seq OFFSET ${offset} LIMIT 1`.execute(db);
  const row = result.rows[0];
  return row ? { txId: row.tx_id, seq: Number(row.seq) } : undefined;
}

async function readPostgresTail(
  db: Kysely<Tables>,
  tenantId: number,
  match: RecordMatch,
  from: TailPosition,
  bounds: TailBounds,
): Promise<TailRead> {
  // A position from before snapshots were kept is a (transaction id, sequence) key (seenOf).
  const seen = seenOf(from);
  const upTo = from.upTo ?? (await currentSnapshot(db, seen));
  const window = windowConditions(seen, upTo, { txId: from.txId, seq: from.seq });
  // A window too large for one read is cut at the scan bound and continued from there.
  let end = await firstKey(db, window, bounds.scan - 1);
  let caughtUp = end === undefined;
  if (hasText(match)) {
    // Stop just before the first record the index has not reached; it is read once indexed.
    const indexed = await indexedUpTo(db);
    const blocker = await firstKey(db, [
      ...window,
      ...(end ? [atOrBefore(end)] : []),
      sql<boolean>`r.seq > ${indexed}`,
    ]);
    if (blocker) {
      end = { txId: blocker.txId, seq: blocker.seq - 1 };
      caughtUp = true;
    }
  }
  let select = db
    .selectFrom('telemetry_records as r')
    .select([...recordColumns, sql<string>`r.tx_id::text`.as('tx_id')])
    .where('r.tenant_id', '=', tenantId);
  for (const condition of [...window, ...(end ? [atOrBefore(end)] : [])]) select = select.where(condition);
  for (const condition of matchConditions('postgres', tenantId, match, { kind: 'each' }))
    select = select.where(condition);
  const rows = await select
    .orderBy(sql`r.tx_id`)
    .orderBy('r.seq')
    .limit(bounds.limit + 1)
    .execute();
  // int8 columns arrive as numbers (storage/database.ts parses them); tx_id is left out.
  const present = (row: (typeof rows)[number]): StoredRecordRow => ({
    seq: row.seq,
    received_at: row.received_at,
    event_time: row.event_time,
    record: row.record,
    meta: row.meta,
  });
  if (rows.length > bounds.limit) {
    const last = rows[bounds.limit - 1];
    if (!last) throw new Error(`readTail: bounds.limit must be at least 1 (got ${bounds.limit})`);
    return {
      rows: rows.slice(0, bounds.limit).map(present),
      position: { seq: last.seq, txId: last.tx_id, seen, upTo },
      caughtUp: false,
    };
  }
  // The window is read up to `end`, or through: then the next window starts where this one ended.
  const position: TailPosition = end ? { seq: end.seq, txId: end.txId, seen, upTo } : { seq: 0, txId: '0', seen: upTo };
  return { rows: rows.map(present), position, caughtUp };
}
