// The normalised endpoint tables: one row per process-creation record and one per
// network-connection record, written by the pipeline worker beside the raw record they came
// from (record_seq) and read as case evidence, device processes and summary input.
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { EndpointProcessRow, NetworkProcessRow } from './normalise/event.js';

export interface ProcessRow extends EndpointProcessRow {
  tenantId: number;
  recordSeq: number;
}

export interface NetworkRow extends NetworkProcessRow {
  tenantId: number;
  recordSeq: number;
}

/** Rows per INSERT statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 200;

/** The device a row's host resolved to, when the caller knows it. */
export type DeviceOf = (row: { tenantId: number; host: string | null }) => string | null;

// The columns both tables share.
const commonColumns = (row: ProcessRow | NetworkRow, deviceOf: DeviceOf) => ({
  tenant_id: row.tenantId,
  device_id: deviceOf(row),
  record_seq: row.recordSeq,
  event_time: row.time,
  host: row.host,
  endpoint_id: row.endpoint_id,
  user_name: row.user,
  process_name: row.process_name,
  pid: row.pid,
  executable_path: row.executable_path,
  source_format: row.source_format,
});

/** A record already stored (a replayed chunk) keeps its row: both tables are keyed by record_seq. */
export async function insertProcessEvents(
  trx: Kysely<Tables> | Transaction<Tables>,
  rows: readonly ProcessRow[],
  deviceOf: DeviceOf,
): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await trx
      .insertInto('endpoint_process_events')
      .values(
        rows.slice(i, i + ROWS_PER_STATEMENT).map((row) => ({
          ...commonColumns(row, deviceOf),
          parent_process_name: row.parent_process_name,
          parent_pid: row.parent_pid,
          parent_executable_path: row.parent_executable_path,
          command_line: row.command_line,
          parent_command_line: row.parent_command_line,
        })),
      )
      .onConflict((oc) => oc.column('record_seq').doNothing())
      .execute();
  }
}

export async function insertNetworkEvents(
  trx: Kysely<Tables> | Transaction<Tables>,
  rows: readonly NetworkRow[],
  deviceOf: DeviceOf,
): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await trx
      .insertInto('network_process_events')
      .values(
        rows.slice(i, i + ROWS_PER_STATEMENT).map((row) => ({
          ...commonColumns(row, deviceOf),
          source_ip: row.source_ip,
          source_port: row.source_port,
          destination_ip: row.destination_ip,
          destination_port: row.destination_port,
          destination_hostname: row.destination_hostname,
          protocol: row.protocol,
          direction: row.direction,
        })),
      )
      .onConflict((oc) => oc.column('record_seq').doNothing())
      .execute();
  }
}
