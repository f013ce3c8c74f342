// The Kysely view of every table. Each feature owns its tables' rows and store; this file only
// gathers their types so that one Kysely instance can serve them all.
import type { Generated } from 'kysely';

export interface TenantsTable {
  id: Generated<number>;
  code_name: string;
  name: string;
  /** Epoch milliseconds. */
  created_at: number;
  /** JSON object text. */
  settings: string;
}

/** The record log: one row per accepted record, in commit order (`seq`). */
export interface TelemetryRecordsTable {
  seq: Generated<number>;
  tenant_id: number;
  /** Server receive time, epoch milliseconds. */
  received_at: number;
  /** The record's own time when it carried a parseable one, else the receive time. */
  event_time: number;
  /** The record as stored: one JSON object, as text. */
  record: string;
  /** Transport metadata (container-runtime stream/time/logtag), JSON object text or null. */
  meta: string | null;
}

/** Where each follower of the record log has got to (last sequence fully processed). */
export interface LogCursorsTable {
  name: string;
  seq: number;
}

export interface Tables {
  tenants: TenantsTable;
  telemetry_records: TelemetryRecordsTable;
  log_cursors: LogCursorsTable;
}
