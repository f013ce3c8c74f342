// What one tenant-hour holds, read a page at a time in a stable order: raw records by receive
// time (the index on tenant, received_at, seq), findings by creation time (tenant, created_at, seq).
import { sql } from 'kysely';
import type { Db } from '../storage/database.js';
import type { StoredRecordRow } from '../telemetry/telemetry-store.js';
import type { ObservationRow } from '../observations/observation-store.js';

export interface HourSpan {
  tenantId: number;
  /** [from, until): epoch milliseconds. */
  from: number;
  until: number;
}

/** Where a page of records ended: the next page starts after it. */
export interface RecordPosition {
  receivedAt: number;
  seq: number;
}

export async function readRecordPage(
  db: Db,
  span: HourSpan,
  after: RecordPosition | undefined,
  limit: number,
): Promise<StoredRecordRow[]> {
  let query = db
    .selectFrom('telemetry_records')
    .select(['seq', 'received_at', 'event_time', 'record', 'meta'])
    .where('tenant_id', '=', span.tenantId)
    .where('received_at', '>=', span.from)
    .where('received_at', '<', span.until);
  if (after) query = query.where(sql<boolean>`(received_at, seq) > (${after.receivedAt}, ${after.seq})`);
  return query.orderBy('received_at').orderBy('seq').limit(limit).execute();
}

/** Where a page of findings ended. */
export interface FindingPosition {
  createdAt: number;
  seq: number;
}

export function readFindingPage(
  db: Db,
  span: HourSpan,
  after: FindingPosition | undefined,
  limit: number,
): Promise<ObservationRow[]> {
  let query = db
    .selectFrom('observations')
    .selectAll()
    .where('tenant_id', '=', span.tenantId)
    .where('created_at', '>=', span.from)
    .where('created_at', '<', span.until);
  if (after) query = query.where(sql<boolean>`(created_at, seq) > (${after.createdAt}, ${after.seq})`);
  return query.orderBy('created_at').orderBy('seq').limit(limit).execute();
}

/** The tenants after `afterId`, in id order: the order an hour is exported in. */
export function tenantsAfter(db: Db, afterId: number): Promise<{ id: number; code_name: string }[]> {
  return db.selectFrom('tenants').select(['id', 'code_name']).where('id', '>', afterId).orderBy('id').execute();
}
