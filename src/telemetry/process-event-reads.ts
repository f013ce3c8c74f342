// Reads of the normalised endpoint tables for the features above telemetry: the rows of given
// records (an observation's triggering records) and a device's rows in a time window (case
// investigation, summary input). Every read is scoped by tenant and bounded by its caller.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Tables } from '../storage/schema.js';

export type EventTable = 'endpoint_process_events' | 'network_process_events';
export type EventRow<T extends EventTable> = Selectable<Tables[T]>;

/**
 * The rows of a table normalised from these records (by their unique record_seq), oldest first.
 * `+tenant_id` is still the tenant filter, but no index can serve it: without statistics SQLite
 * otherwise walks every event of the tenant in time order until it has `limit` of them, where
 * the record_seq index finds them directly.
 */
export function recordEvents<T extends EventTable>(
  db: Kysely<Tables>,
  table: T,
  tenantId: number,
  seqs: readonly number[],
  limit: number,
): Promise<EventRow<T>[]> {
  if (seqs.length === 0) return Promise.resolve([]);
  return db
    .selectFrom(table as 'endpoint_process_events')
    .selectAll()
    .where(sql`+tenant_id`, '=', tenantId)
    .where('record_seq', 'in', [...seqs])
    .orderBy('event_time')
    .orderBy('id')
    .limit(limit)
    .execute() as Promise<EventRow<T>[]>;
}

/** A device's rows of one table between two times (inclusive), oldest first, at most `limit`. */
export function deviceEvents<T extends EventTable>(
  db: Kysely<Tables>,
  table: T,
  tenantId: number,
  window: { deviceId: string; from: number; to: number },
  limit: number,
): Promise<EventRow<T>[]> {
  return db
    .selectFrom(table as 'endpoint_process_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', window.deviceId)
    .where('event_time', '>=', window.from)
    .where('event_time', '<=', window.to)
    .orderBy('event_time')
    .orderBy('id')
    .limit(limit)
    .execute() as Promise<EventRow<T>[]>;
}

/** The id an evidence row is cited by: `proc_<n>` for a process event, `net_<n>` for a connection. */
export const processEvidenceId = (row: { id: number }) => `proc_${row.id}`;
export const networkEvidenceId = (row: { id: number }) => `net_${row.id}`;
