// Reading the record log after a position (live tail): a tenant's matching records that became
// readable since the last read, each exactly once, none skipped. SQLite has one writer that
// assigns sequences under its write lock, so sequence order is commit order and a position is a
// sequence. PostgreSQL hands sequences out before commit, so a position is (transaction id,
// sequence) and only records of transactions older than every running one are read — the rule
// the detection follower uses (src/record-log/record-follower.ts), for the same reason.
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

/** A place in the log: every record at or before it has been looked at. */
export interface TailPosition {
  seq: number;
  /** PostgreSQL: an xid8 as decimal text. SQLite: '0'. */
  txId: string;
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
  // (horizon, 0): every record of a transaction below the horizon is behind it.
  return { seq: 0, txId: await visibilityHorizon(db) };
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

/** The oldest transaction still running: every record of an older one is committed and visible. */
async function visibilityHorizon(db: Kysely<Tables>): Promise<string> {
  const result = await sql<{
    horizon: string;
  }>`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon`.execute(db);
  const row = result.rows[0];
  if (!row) throw new Error('the visibility horizon query returned no row');
  return row.horizon;
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

async function firstKey(db: Kysely<Tables>, conditions: RawBuilder<boolean>[], offset = 0): Promise<Key | undefined> {
  const result = await sql<{ tx_id: string; seq: number | string }>`
    SELECT r.tx_id::text AS tx_id, r.seq FROM telemetry_records r
    WHERE ${sql.join(conditions, sql` AND `)}
    ORDER BY r.tx_id, r.seq OFFSET ${offset} LIMIT 1`.execute(db);
  const row = result.rows[0];
  return row ? { txId: row.tx_id, seq: Number(row.seq) } : undefined;
}

function compareKeys(a: Key, b: Key): number {
  const tx = BigInt(a.txId) - BigInt(b.txId);
  if (tx !== 0n) return tx < 0n ? -1 : 1;
  return a.seq - b.seq;
}

async function readPostgresTail(
  db: Kysely<Tables>,
  tenantId: number,
  match: RecordMatch,
  from: TailPosition,
  bounds: TailBounds,
): Promise<TailRead> {
  const horizon = await visibilityHorizon(db);
  const visible = sql<boolean>`r.tx_id < ${horizon}::xid8`;
  const window = [after(from), visible];
  // The window ends at the scan bound, or else at the horizon: (horizon, 0) is behind every
  // record of the horizon's transaction and ahead of every older one.
  const cap = await firstKey(db, window, bounds.scan - 1);
  let end: Key = cap ?? { txId: horizon, seq: 0 };
  let caughtUp = cap === undefined;
  if (hasText(match)) {
    // Stop just before the first record the index has not reached; it is read once indexed.
    const indexed = await indexedUpTo(db);
    const blocker = await firstKey(db, [...window, atOrBefore(end), sql<boolean>`r.seq > ${indexed}`]);
    if (blocker) {
      end = { txId: blocker.txId, seq: blocker.seq - 1 };
      caughtUp = true;
    }
  }
  let select = db
    .selectFrom('telemetry_records as r')
    .select([...recordColumns, sql<string>`r.tx_id::text`.as('tx_id')])
    .where('r.tenant_id', '=', tenantId)
    .where(after(from))
    .where(atOrBefore(end))
    .where(visible);
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
      position: { seq: last.seq, txId: last.tx_id },
      caughtUp: false,
    };
  }
  // Never behind where the caller was (a horizon can trail a position handed out elsewhere).
  const position = compareKeys(end, from) > 0 ? end : from;
  return { rows: rows.map(present), position: { seq: position.seq, txId: position.txId }, caughtUp };
}
