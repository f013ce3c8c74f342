// SQL for the audit log: append, and read one tenant's events newest first.
import type { Kysely, Selectable } from 'kysely';
import type { AuditEventsTable, Tables } from '../../storage/schema.js';

export type AuditRow = Selectable<AuditEventsTable>;
export type NewAuditRow = Omit<AuditRow, 'seq'>;

export function insertAuditEvent(db: Kysely<Tables>, event: NewAuditRow): Promise<unknown> {
  return db.insertInto('audit_events').values(event).execute();
}

export interface AuditQuery {
  action?: string;
  since?: number;
  until?: number;
  /** Only events before this sequence (the previous page's last). */
  beforeSeq?: number;
  limit: number;
}

export function listAuditEvents(db: Kysely<Tables>, tenantId: number, query: AuditQuery): Promise<AuditRow[]> {
  let select = db.selectFrom('audit_events').selectAll().where('tenant_id', '=', tenantId);
  if (query.action !== undefined) select = select.where('action', '=', query.action);
  if (query.since !== undefined) select = select.where('occurred_at', '>=', query.since);
  if (query.until !== undefined) select = select.where('occurred_at', '<', query.until);
  if (query.beforeSeq !== undefined) select = select.where('seq', '<', query.beforeSeq);
  return select.orderBy('seq', 'desc').limit(query.limit).execute();
}
