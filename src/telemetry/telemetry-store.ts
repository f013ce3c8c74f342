// Reads of the record log: time-range and full-text search for one tenant, in log order, with
// keyset pagination on the sequence. Full text: SQLite FTS5 or PostgreSQL's tsvector table,
// both filled by the search indexer behind the log (see search-index.ts).
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { DatabaseKind } from '../storage/database.js';

export interface StoredRecordRow {
  seq: number;
  received_at: number;
  event_time: number;
  record: string;
  meta: string | null;
}

export interface RecordQuery {
  /** Receive time lower bound, inclusive (epoch ms). */
  since?: number;
  /** Receive time upper bound, exclusive (epoch ms). */
  until?: number;
  /** Words that must all occur in the record. */
  text?: string;
  /** Only records after this sequence (pagination). */
  afterSeq?: number;
  limit: number;
}

export async function searchRecords(db: Kysely<Tables>, kind: DatabaseKind, tenantId: number, query: RecordQuery): Promise<StoredRecordRow[]> {
  let select = db
    .selectFrom('telemetry_records as r')
    .select(['r.seq', 'r.received_at', 'r.event_time', 'r.record', 'r.meta'])
    .where('r.tenant_id', '=', tenantId);
  if (query.since !== undefined) select = select.where('r.received_at', '>=', query.since);
  if (query.until !== undefined) select = select.where('r.received_at', '<', query.until);
  if (query.afterSeq !== undefined) select = select.where('r.seq', '>', query.afterSeq);
  const words = searchWords(query.text);
  if (words.length > 0) {
    if (kind === 'sqlite') {
      const match = words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' AND ');
      select = select.where(sql<boolean>`r.seq IN (SELECT rowid FROM telemetry_fts WHERE telemetry_fts MATCH ${match})`);
    } else {
      select = select.where(
        sql<boolean>`r.seq IN (SELECT f.seq FROM telemetry_fts f WHERE f.tenant_id = ${tenantId} AND f.tsv @@ plainto_tsquery('simple'::regconfig, ${words.join(' ')}))`,
      );
    }
  }
  return select.orderBy('r.seq').limit(query.limit).execute();
}

function searchWords(text: string | undefined): string[] {
  return (text ?? '').split(/\s+/).filter((word) => word !== '');
}

/** The log_cursors row of the full-text search indexer. */
export const SEARCH_INDEX_CURSOR = 'search_index';

/** Sequence of the last record in the log (0 when empty). */
export async function logEnd(db: Kysely<Tables>): Promise<number> {
  const row = await db.selectFrom('telemetry_records').select((eb) => eb.fn.max('seq').as('end')).executeTakeFirst();
  return Number(row?.end ?? 0);
}

/** How many records the search indexer has still to index. */
export async function searchIndexLag(db: Kysely<Tables>): Promise<number> {
  const cursor = await db.selectFrom('log_cursors').select('seq').where('name', '=', SEARCH_INDEX_CURSOR).executeTakeFirst();
  return Math.max(0, (await logEnd(db)) - Number(cursor?.seq ?? 0));
}
