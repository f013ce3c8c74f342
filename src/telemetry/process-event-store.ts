// The normalised endpoint tables: one row per process-creation record and one per
// network-connection record, written by detection (src/pipeline/) beside the raw record they came
// from (record_seq) and read as case evidence, device processes and summary input.
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { EndpointProcessRow, NetworkProcessRow } from './normalise/event.js';
import { bulkInsert, type BulkInsert } from '../storage/bulk-insert.js';

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

// The columns both tables share, in statement order.
const COMMON = [
  'tenant_id',
  'device_id',
  'record_seq',
  'event_time',
  'host',
  'endpoint_id',
  'user_name',
  'process_name',
  'pid',
  'executable_path',
  'source_format',
] as const;

const commonValues = (row: ProcessRow | NetworkRow, deviceOf: DeviceOf): unknown[] => [
  row.tenantId,
  deviceOf(row),
  row.recordSeq,
  row.time,
  row.host,
  row.endpoint_id,
  row.user,
  row.process_name,
  row.pid,
  row.executable_path,
  row.source_format,
];

/** A record already stored (a replayed chunk) keeps its row: both tables are keyed by record_seq. */
const PROCESS_INSERT: BulkInsert = {
  columns: [
    ...COMMON,
    'parent_process_name',
    'parent_pid',
    'parent_executable_path',
    'command_line',
    'parent_command_line',
  ],
  build: (db, rows) =>
    db
      .insertInto('endpoint_process_events')
      .values(rows as never[])
      .onConflict((oc) => oc.column('record_seq').doNothing()),
};

const processValues = (row: ProcessRow, deviceOf: DeviceOf): unknown[] => [
  ...commonValues(row, deviceOf),
  row.parent_process_name,
  row.parent_pid,
  row.parent_executable_path,
  row.command_line,
  row.parent_command_line,
];

const NETWORK_INSERT: BulkInsert = {
  columns: [
    ...COMMON,
    'source_ip',
    'source_port',
    'destination_ip',
    'destination_port',
    'destination_hostname',
    'protocol',
    'direction',
  ],
  build: (db, rows) =>
    db
      .insertInto('network_process_events')
      .values(rows as never[])
      .onConflict((oc) => oc.column('record_seq').doNothing()),
};

const networkValues = (row: NetworkRow, deviceOf: DeviceOf): unknown[] => [
  ...commonValues(row, deviceOf),
  row.source_ip,
  row.source_port,
  row.destination_ip,
  row.destination_port,
  row.destination_hostname,
  row.protocol,
  row.direction,
];

export async function insertProcessEvents(
  trx: Kysely<Tables> | Transaction<Tables>,
  rows: readonly ProcessRow[],
  deviceOf: DeviceOf,
): Promise<void> {
  await bulkInsert(
    trx,
    PROCESS_INSERT,
    rows.map((row) => processValues(row, deviceOf)),
    ROWS_PER_STATEMENT,
  );
}

export async function insertNetworkEvents(
  trx: Kysely<Tables> | Transaction<Tables>,
  rows: readonly NetworkRow[],
  deviceOf: DeviceOf,
): Promise<void> {
  await bulkInsert(
    trx,
    NETWORK_INSERT,
    rows.map((row) => networkValues(row, deviceOf)),
    ROWS_PER_STATEMENT,
  );
}
