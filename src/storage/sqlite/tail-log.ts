// SQLite's live tail: one writer assigns sequences under its write lock, so sequence order is
// commit order and a position is a sequence (see telemetry/tail-store.ts).
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../schema.js';
import type { TailLog } from '../../telemetry/telemetry-ports.js';
import type { TailBounds, TailPosition, TailRead } from '../../telemetry/tail-store.js';
import {
  hasText,
  indexedUpTo,
  logEnd,
  matchConditions,
  recordColumns,
  type RecordMatch,
} from '../../telemetry/telemetry-store.js';
import { sqliteRecordDialect } from './telemetry-dialect.js';

export const sqliteTailLog: TailLog = {
  end: async (db) => ({ seq: await logEnd(db), txId: '0' }),
  read: readSqliteTail,
};

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
  for (const condition of matchConditions(sqliteRecordDialect, tenantId, match, {
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
