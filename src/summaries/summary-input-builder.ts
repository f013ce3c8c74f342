// Builds the SummaryInput of a case from the database, field by field from the allowed data
// only. An observation's evidence is the endpoint-process and network-process rows of its own
// triggering records, so that a statement citing it rests on what it found; the device's other
// rows around the observations' times are the device's activity, context that supports no one
// observation. Everything is bounded by INPUT_LIMITS.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { AttackCatalogue } from '../detection/attack.js';
import type { CaseRow } from '../cases/case-store.js';
import { caseDeviceIds, caseObservationEvidence } from '../cases/case-store.js';
import { findAddresses, findDevicesByIds, findProcesses } from '../devices/device-store.js';
import {
  deviceEvents,
  networkEvidenceId,
  processEvidenceId,
  recordEvents,
  type EventRow,
} from '../telemetry/process-event-reads.js';
import {
  INPUT_LIMITS,
  type SummaryDevice,
  type SummaryEvents,
  type SummaryInput,
  type SummaryNetworkEvent,
  type SummaryObservation,
  type SummaryProcessEvent,
} from './summary-input.js';

const iso = (time: number) => new Date(time).toISOString();
/** Device activity around the observations: the device's events this close to one. */
const CONTEXT_MS = 5 * 60_000;

function bounded(value: string | null): string | null {
  return value === null || value.length <= INPUT_LIMITS.text ? value : `${value.slice(0, INPUT_LIMITS.text - 1)}…`;
}

function processEvent(row: EventRow<'endpoint_process_events'>): SummaryProcessEvent {
  return {
    id: processEvidenceId(row),
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

function networkEvent(row: EventRow<'network_process_events'>): SummaryNetworkEvent {
  return {
    id: networkEvidenceId(row),
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

/** The rows of the observation's own triggering records. */
async function evidenceOf(
  db: Kysely<Tables>,
  tenantId: number,
  observation: { record_seqs: string },
): Promise<SummaryEvents> {
  const seqs = (JSON.parse(observation.record_seqs) as number[]).slice(0, 100);
  const processRows = await recordEvents(
    db,
    'endpoint_process_events',
    tenantId,
    seqs,
    INPUT_LIMITS.processEventsPerObservation,
  );
  const networkRows = await recordEvents(
    db,
    'network_process_events',
    tenantId,
    seqs,
    INPUT_LIMITS.networkEventsPerObservation,
  );
  return { process_events: processRows.map(processEvent), network_events: networkRows.map(networkEvent) };
}

/** The device's events near the observations' times that are no observation's evidence. */
async function activityOf(
  db: Kysely<Tables>,
  tenantId: number,
  deviceId: string,
  windows: readonly { from: number; to: number }[],
  evidenceIds: ReadonlySet<string>,
): Promise<SummaryEvents> {
  const limit = INPUT_LIMITS.activityEventsPerDevice;
  const activity: SummaryEvents = { process_events: [], network_events: [] };
  for (const window of windows) {
    const around = { deviceId, from: window.from - CONTEXT_MS, to: window.to + CONTEXT_MS };
    if (activity.process_events.length < limit) {
      const rows = await deviceEvents(db, 'endpoint_process_events', tenantId, around, limit * 2);
      for (const row of rows.map(processEvent))
        if (
          activity.process_events.length < limit &&
          !evidenceIds.has(row.id) &&
          !activity.process_events.some((e) => e.id === row.id)
        )
          activity.process_events.push(row);
    }
    if (activity.network_events.length < limit) {
      const rows = await deviceEvents(db, 'network_process_events', tenantId, around, limit * 2);
      for (const row of rows.map(networkEvent))
        if (
          activity.network_events.length < limit &&
          !evidenceIds.has(row.id) &&
          !activity.network_events.some((e) => e.id === row.id)
        )
          activity.network_events.push(row);
    }
  }
  return activity;
}

/** The model input of a case: only the data a model may see (docs/cases.md, AI case summaries), bounded. */
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
      activity: { process_events: [], network_events: [] },
    });
  }

  // The most recent observations first when the case holds more than the bound.
  const rows = await caseObservationEvidence(db, tenantId, row.id, INPUT_LIMITS.observations);
  const observations: SummaryObservation[] = [];
  for (const observation of rows.sort((a, b) => a.first_time - b.first_time || a.id.localeCompare(b.id))) {
    observations.push({
      id: observation.id,
      rule_title: bounded(observation.rule_title) ?? '',
      level: observation.level,
      techniques: JSON.parse(observation.techniques) as string[],
      host: bounded(observation.host),
      first_time: iso(observation.first_time),
      last_time: iso(observation.last_time),
      evidence: await evidenceOf(db, tenantId, observation),
    });
  }
  const evidenceIds = new Set(
    observations.flatMap((o) => [...o.evidence.process_events, ...o.evidence.network_events].map((e) => e.id)),
  );
  const hostOf = new Map(deviceRows.map((device) => [device.id, device.host_key]));
  for (const device of devices) {
    const host = hostOf.get(device.id);
    const windows = rows
      .filter((o) => o.host !== null && o.host.trim().toLowerCase() === host)
      .map((o) => ({ from: o.first_time, to: o.last_time }));
    device.activity = await activityOf(db, tenantId, device.id, windows, evidenceIds);
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
