// The normalised telemetry tables: process-creation and network-connection events extracted from
// the record log, one row per record, for search, detection and device tracking.
import type { Generated } from 'kysely';

/** Endpoint process events: one row per process-creation record. */
export interface EndpointProcessEventsTable {
  id: Generated<number>;
  tenant_id: number;
  /** The device the host names (null for rows written before devices existed). */
  device_id: string | null;
  /** The raw record's sequence in the record log. */
  record_seq: number;
  event_time: number;
  host: string | null;
  endpoint_id: string | null;
  user_name: string | null;
  process_name: string | null;
  pid: number | null;
  parent_process_name: string | null;
  parent_pid: number | null;
  executable_path: string | null;
  parent_executable_path: string | null;
  command_line: string | null;
  parent_command_line: string | null;
  source_format: string;
}

/** Network process events: one row per network-connection record. */
export interface NetworkProcessEventsTable {
  id: Generated<number>;
  tenant_id: number;
  device_id: string | null;
  record_seq: number;
  event_time: number;
  host: string | null;
  endpoint_id: string | null;
  user_name: string | null;
  process_name: string | null;
  pid: number | null;
  executable_path: string | null;
  source_ip: string | null;
  source_port: number | null;
  destination_ip: string | null;
  destination_port: number | null;
  destination_hostname: string | null;
  protocol: string | null;
  direction: string | null;
  source_format: string;
}
