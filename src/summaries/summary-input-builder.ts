// Builds the SummaryInput of a case from the database, field by field from the allowed data
// only. Observation evidence is the endpoint-process and network-process rows of the records
// that triggered each observation, then the device's rows around the observation's time, each
// bounded by INPUT_LIMITS.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { EndpointProcessEventsTable, NetworkProcessEventsTable, Tables } from '../storage/schema.js';
import type { AttackCatalogue } from '../detection/attack.js';
import type { CaseRow } from '../cases/case-store.js';
import { caseDeviceIds } from '../cases/case-store.js';
import { findAddresses, findDevicesByIds, findProcesses } from '../devices/device-store.js';
import {
  INPUT_LIMITS,
  type SummaryDevice,
  type SummaryInput,
  type SummaryNetworkEvent,
  type SummaryObservation,
  type SummaryProcessEvent,
} from './summary-input.js';

const iso = (time: number) => new Date(time).toISOString();
/** Evidence around an observation: the device's events this close to it. */
const CONTEXT_MS = 5 * 60_000;

function bounded(value: string | null): string | null {
  return value === null || value.length <= INPUT_LIMITS.text ? value : `${value.slice(0, INPUT_LIMITS.text - 1)}…`;
}

function processEvent(row: Selectable<EndpointProcessEventsTable>): SummaryProcessEvent {
  return {
    time: iso(row.event_time),
    host: bounded(row.host),
    user: bounded(row.user_name),
    process_name: bounded(row.process_name),
    pid: row.pid,
    executable_path: bounded(row.executable_path),
    command_line: bounded(row.command_line),
    parent_process_name: bounded(row.parent_process_name),
    parent_pid: row.parent_pid,
  };
}

function networkEvent(row: Selectable<NetworkProcessEventsTable>): SummaryNetworkEvent {
  return {
    time: iso(row.event_time),
    host: bounded(row.host),
    process_name: bounded(row.process_name),
    pid: row.pid,
    source_ip: row.source_ip,
    source_port: row.source_port,
    destination_ip: row.destination_ip,
    destination_port: row.destination_port,
    destination_hostname: bounded(row.destination_hostname),
    protocol: row.protocol,
    direction: row.direction,
  };
}

/** The device's events of one table in a time window, oldest first. */
/**
 * The rows of a table normalised from these records (by their unique record_seq), oldest first.
 * `+tenant_id` is still the tenant filter, but no index can serve it: without statistics SQLite
 * otherwise walks every event of the tenant in time order until it has `limit` of them (~95 ms
 * per observation at 500k events; ~0.2 ms by record).
 */
export function recordEvents<T extends 'endpoint_process_events' | 'network_process_events'>(
  db: Kysely<Tables>,
  table: T,
  tenantId: number,
  seqs: readonly number[],
  limit: number,
): Promise<Selectable<Tables[T]>[]> {
  if (seqs.length === 0) return Promise.resolve([]);
  return db
    .selectFrom(table as 'endpoint_process_events')
    .selectAll()
    .where(sql`+tenant_id`, '=', tenantId)
    .where('record_seq', 'in', [...seqs])
    .orderBy('event_time')
    .limit(limit)
    .execute() as Promise<Selectable<Tables[T]>[]>;
}

function deviceEvents<T extends 'endpoint_process_events' | 'network_process_events'>(
  db: Kysely<Tables>,
  table: T,
  tenantId: number,
  window: { deviceId: string; from: number; to: number },
  limit: number,
): Promise<Selectable<Tables[T]>[]> {
  return db
    .selectFrom(table as 'endpoint_process_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', window.deviceId)
    .where('event_time', '>=', window.from)
    .where('event_time', '<=', window.to)
    .orderBy('event_time')
    .limit(limit)
    .execute() as Promise<Selectable<Tables[T]>[]>;
}

async function evidenceOf(
  db: Kysely<Tables>,
  tenantId: number,
  observation: { record_seqs: string; first_time: number; last_time: number },
  deviceId: string | null,
): Promise<SummaryObservation['evidence']> {
  const seqs = (JSON.parse(observation.record_seqs) as number[]).slice(0, 100);
  const processLimit = INPUT_LIMITS.processEventsPerObservation;
  const networkLimit = INPUT_LIMITS.networkEventsPerObservation;
  const processRows = await recordEvents(db, 'endpoint_process_events', tenantId, seqs, processLimit);
  const networkRows = await recordEvents(db, 'network_process_events', tenantId, seqs, networkLimit);
  if (deviceId !== null) {
    const window = { deviceId, from: observation.first_time - CONTEXT_MS, to: observation.last_time + CONTEXT_MS };
    const seen = new Set([...processRows, ...networkRows].map((row) => row.record_seq));
    const fill = <T extends { record_seq: number }>(rows: T[], around: readonly T[], limit: number) =>
      rows.push(...around.filter((row) => !seen.has(row.record_seq)).slice(0, limit - rows.length));
    if (processRows.length < processLimit)
      fill(
        processRows,
        await deviceEvents(db, 'endpoint_process_events', tenantId, window, processLimit * 2),
        processLimit,
      );
    if (networkRows.length < networkLimit)
      fill(
        networkRows,
        await deviceEvents(db, 'network_process_events', tenantId, window, networkLimit * 2),
        networkLimit,
      );
  }
  return { process_events: processRows.map(processEvent), network_events: networkRows.map(networkEvent) };
}

/** The model input of a case: only the data a model may see (README, "AI case summaries"), bounded. */
export async function buildSummaryInput(
  db: Kysely<Tables>,
  catalogue: AttackCatalogue,
  tenant: { id: number; code_name: string },
  row: CaseRow,
): Promise<SummaryInput> {
  const tenantId = tenant.id;
  const deviceIds = ((await caseDeviceIds(db, tenantId, [row.id])).get(row.id) ?? []).slice(0, INPUT_LIMITS.devices);
  const deviceRows = await findDevicesByIds(db, tenantId, deviceIds);
  const addresses = await findAddresses(db, tenantId, deviceIds);
  const devices: SummaryDevice[] = [];
  for (const device of deviceRows.sort((a, b) => a.host_name.localeCompare(b.host_name))) {
    const processes = await findProcesses(db, tenantId, device, INPUT_LIMITS.processesPerDevice);
    devices.push({
      id: device.id,
      host_name: device.host_name,
      host_description: device.description,
      user: device.last_user,
      endpoint_id: device.endpoint_id,
      isolation: device.isolation_state,
      addresses: addresses
        .filter((address) => address.device_id === device.id)
        .map((address) => ({ ip: address.ip, scope: address.scope, country: address.country, city: address.city })),
      processes: processes.map((process) => ({
        process_name: bounded(process.process_name),
        pid: process.pid,
        executable_path: bounded(process.executable_path),
      })),
    });
  }
  const deviceByHost = new Map(deviceRows.map((device) => [device.host_key, device.id]));

  // The most severe and the most recent observations first when the case holds more than the bound.
  const rows = await db
    .selectFrom('case_observations as co')
    .innerJoin('observations as o', 'o.id', 'co.observation_id')
    .select([
      'o.id',
      'o.rule_title',
      'o.level',
      'o.techniques',
      'o.host',
      'o.first_time',
      'o.last_time',
      'o.record_seqs',
    ])
    .where('co.tenant_id', '=', tenantId)
    .where('co.case_id', '=', row.id)
    .orderBy('o.last_time', 'desc')
    .limit(INPUT_LIMITS.observations)
    .execute();
  const observations: SummaryObservation[] = [];
  for (const observation of rows.sort((a, b) => a.first_time - b.first_time || a.id.localeCompare(b.id))) {
    const deviceId =
      observation.host === null ? null : (deviceByHost.get(observation.host.trim().toLowerCase()) ?? null);
    observations.push({
      id: observation.id,
      rule_title: bounded(observation.rule_title) ?? '',
      level: observation.level,
      techniques: JSON.parse(observation.techniques) as string[],
      host: bounded(observation.host),
      first_time: iso(observation.first_time),
      last_time: iso(observation.last_time),
      evidence: await evidenceOf(db, tenantId, observation, deviceId),
    });
  }

  const techniques = (JSON.parse(row.techniques) as string[]).map((id) => {
    const technique = catalogue.technique(id);
    return {
      id,
      name: technique?.name ?? null,
      tactics: (technique?.tactics ?? []).map((shortname) => catalogue.tactic(shortname)?.name ?? shortname),
    };
  });
  return {
    customer: { code_name: tenant.code_name },
    case: {
      id: row.id,
      number: row.number,
      score: row.score,
      status: row.status,
      description: row.description,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
      first_observation_at: iso(row.first_observation_at),
      last_observation_at: iso(row.last_observation_at),
      observation_count: row.observation_count,
      techniques,
    },
    devices,
    observations,
  };
}
