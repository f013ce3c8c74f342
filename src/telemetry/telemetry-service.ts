// Presenting and paging stored records for readers (the CLI today, the /v1 API later).
import type { Database } from '../storage/database.js';
import { searchRecords, type RecordQuery, type StoredRecordRow } from './telemetry-store.js';
import { catchUpSearchIndex } from './search-index.js';

export interface StoredRecord {
  id: string;
  received_at: string;
  event_time: string;
  record: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

export function presentRecord(row: StoredRecordRow): StoredRecord {
  return {
    id: String(row.seq),
    received_at: new Date(row.received_at).toISOString(),
    event_time: new Date(row.event_time).toISOString(),
    record: JSON.parse(row.record) as Record<string, unknown>,
    ...(row.meta ? { meta: JSON.parse(row.meta) as Record<string, unknown> } : {}),
  };
}

const PAGE = 1000;

/** Every record matching the query, in log order, fetched page by page (at most `max`). */
export async function* streamRecords(
  database: Database,
  tenantId: number,
  query: Omit<RecordQuery, 'limit' | 'afterSeq'>,
  max = Number.POSITIVE_INFINITY,
): AsyncGenerator<StoredRecord> {
  if (query.text?.trim()) await catchUpSearchIndex(database);
  let afterSeq: number | undefined;
  let remaining = max;
  while (remaining > 0) {
    const limit = Math.min(PAGE, remaining);
    const rows = await searchRecords(database.db, database.kind, tenantId, { ...query, limit, ...(afterSeq !== undefined ? { afterSeq } : {}) });
    for (const row of rows) yield presentRecord(row);
    remaining -= rows.length;
    if (rows.length < limit) return;
    afterSeq = rows[rows.length - 1]!.seq;
  }
}
