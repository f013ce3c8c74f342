// PostgreSQL's live tail: sequences are handed out before commit, so a position is a snapshot,
// and the records new since it are those of transactions it could not see that a later snapshot
// can (see telemetry/tail-store.ts).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Tables } from '../schema.js';
import type { TailLog } from '../../telemetry/telemetry-ports.js';
import type { TailBounds, TailPosition, TailRead } from '../../telemetry/tail-store.js';
import {
  hasText,
  indexedUpTo,
  matchConditions,
  recordColumns,
  type RecordMatch,
  type StoredRecordRow,
} from '../../telemetry/telemetry-store.js';
import { currentSnapshot, seenOf, windowStart } from '../../telemetry/snapshot-window.js';
import { postgresRecordDialect } from './telemetry-dialect.js';

export const postgresTailLog: TailLog = {
  end: async (db) => ({ seq: 0, txId: '0', seen: await currentSnapshot(db) }),
  read: readPostgresTail,
};

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
  for (const condition of matchConditions(postgresRecordDialect, tenantId, match, { kind: 'each' }))
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
