// Reads of the record log: time-range and full-text search for one tenant, in log order, with
// keyset pagination on the sequence. Full text: SQLite FTS5 or PostgreSQL's tsvector index.
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
      select = select.where(sql<boolean>`to_tsvector('simple'::regconfig, r.record) @@ plainto_tsquery('simple'::regconfig, ${words.join(' ')})`);
    }
  }
  return select.orderBy('r.seq').limit(query.limit).execute();
}

function searchWords(text: string | undefined): string[] {
  return (text ?? '').split(/\s+/).filter((word) => word !== '');
}
