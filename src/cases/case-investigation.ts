// The investigation view of a case: per device, the process tree around the case's observations
// (parent → child from the endpoint-process table, the observations' own processes marked, each
// process's network connections beside it), and one time-ordered timeline of the observations
// and their evidence rows across the case's devices. Reads only; every read is tenant-scoped
// and bounded by INVESTIGATION_LIMITS.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import {
  deviceEvents,
  networkEvidenceId,
  processEvidenceId,
  recordEvents,
  type EventRow,
} from '../telemetry/process-event-reads.js';
import { findDevicesByIds } from '../devices/device-store.js';
import { caseDeviceIds, caseObservationEvidence, type CaseObservationEvidence } from './case-store.js';
import { requireCase } from './case-service.js';

/** Bounds that keep one investigation read predictable whatever the case's size. */
export const INVESTIGATION_LIMITS = {
  /** The most recent observations of the case that are read. */
  observations: 500,
  /** Triggering records read per observation. */
  recordsPerObservation: 20,
  devices: 20,
  /** Process and connection rows read per device around the case's observations. */
  rowsPerDevice: 2_000,
  /** Processes shown per device (the observations' own first, then their relatives). */
  processesPerDevice: 300,
  connectionsPerProcess: 50,
  timelineEntries: 1_000,
  /** How far before the first and after the last observation a device's activity is read. */
  marginMs: 60 * 60_000,
} as const;

type ProcessRow = EventRow<'endpoint_process_events'>;
type NetworkRow = EventRow<'network_process_events'>;

export interface ConnectionView {
  id: string;
  time: string;
  process_name: string | null;
  pid: number | null;
  source_ip: string | null;
  source_port: number | null;
  destination_ip: string | null;
  destination_port: number | null;
  destination_hostname: string | null;
  protocol: string | null;
  direction: string | null;
  observation_ids: string[];
}

export interface ProcessNodeView {
  id: string;
  parent_id: string | null;
  /** A parent known only from its children's parent fields (no process-creation row of its own). */
  inferred: boolean;
  time: string | null;
  pid: number | null;
  name: string | null;
  executable_path: string | null;
  command_line: string | null;
  user: string | null;
  observation_ids: string[];
  connections: ConnectionView[];
}

const iso = (time: number) => new Date(time).toISOString();

/** The case's observations and, per record, the observations it triggered. */
async function caseEvidence(db: Kysely<Tables>, tenantId: number, caseRef: string) {
  const row = await requireCase(db, tenantId, caseRef);
  const observations = await caseObservationEvidence(db, tenantId, row.id, INVESTIGATION_LIMITS.observations);
  const bySeq = new Map<number, string[]>();
  for (const observation of observations) {
    const seqs = (JSON.parse(observation.record_seqs) as number[]).slice(0, INVESTIGATION_LIMITS.recordsPerObservation);
    for (const seq of seqs) bySeq.set(seq, [...(bySeq.get(seq) ?? []), observation.id]);
  }
  const seqs = [...bySeq.keys()];
  const cap = seqs.length;
  const [processRows, networkRows] = [
    await recordEvents(db, 'endpoint_process_events', tenantId, seqs, Math.max(cap, 1)),
    await recordEvents(db, 'network_process_events', tenantId, seqs, Math.max(cap, 1)),
  ];
  const observedBy = (row: { record_seq: number }) => [...new Set(bySeq.get(row.record_seq) ?? [])].sort();
  return {
    row,
    observations,
    processRows,
    networkRows,
    observedBy,
    truncated: observations.length < row.observation_count,
  };
}

function connectionView(row: NetworkRow, observedBy: (row: NetworkRow) => string[]): ConnectionView {
  return {
    id: networkEvidenceId(row),
    time: iso(row.event_time),
    process_name: row.process_name,
    pid: row.pid,
    source_ip: row.source_ip,
    source_port: row.source_port,
    destination_ip: row.destination_ip,
    destination_port: row.destination_port,
    destination_hostname: row.destination_hostname,
    protocol: row.protocol,
    direction: row.direction,
    observation_ids: observedBy(row),
  };
}

const mergeRows = <T extends { id: number; event_time: number }>(a: readonly T[], b: readonly T[]): T[] => {
  const byId = new Map<number, T>();
  for (const row of [...a, ...b]) byId.set(row.id, row);
  return [...byId.values()].sort((x, y) => x.event_time - y.event_time || x.id - y.id);
};

/**
 * The latest row before `time` whose pid is `pid` (pids are reused: the process running then).
 * `rows` are in time order.
 */
function runningAt<T extends { pid: number | null; event_time: number; id: number }>(
  rows: readonly T[],
  pid: number,
  time: number,
  except?: number,
): T | undefined {
  let found: T | undefined;
  for (const row of rows) {
    if (row.event_time > time) break;
    if (row.pid === pid && row.id !== except) found = row;
  }
  return found;
}

/** One device's process tree: the observations' processes, their ancestors and descendants. */
export function processTree(
  processRows: readonly ProcessRow[],
  networkRows: readonly NetworkRow[],
  observed: { process: (row: ProcessRow) => string[]; network: (row: NetworkRow) => string[] },
): { processes: ProcessNodeView[]; truncated: boolean } {
  const nodes = new Map<string, ProcessNodeView>();
  const parentOf = new Map<string, string>();
  const inferred = new Map<string, ProcessNodeView>();
  for (const row of processRows) {
    const id = processEvidenceId(row);
    nodes.set(id, {
      id,
      parent_id: null,
      inferred: false,
      time: iso(row.event_time),
      pid: row.pid,
      name: row.process_name,
      executable_path: row.executable_path,
      command_line: row.command_line,
      user: row.user_name,
      observation_ids: observed.process(row),
      connections: [],
    });
  }
  for (const row of processRows) {
    if (row.parent_pid === null && row.parent_process_name === null) continue;
    const parent = row.parent_pid === null ? undefined : runningAt(processRows, row.parent_pid, row.event_time, row.id);
    let parentId = parent ? processEvidenceId(parent) : undefined;
    if (parentId === undefined) {
      // No creation row of the parent in the window: one inferred node per (pid, name) stands for it.
      const key = `${row.parent_pid ?? '?'}:${(row.parent_process_name ?? '').toLowerCase()}`;
      let node = inferred.get(key);
      if (!node) {
        node = {
          id: `parent_of_${processEvidenceId(row)}`,
          parent_id: null,
          inferred: true,
          time: null,
          pid: row.parent_pid,
          name: row.parent_process_name,
          executable_path: row.parent_executable_path,
          command_line: row.parent_command_line,
          user: null,
          observation_ids: [],
          connections: [],
        };
        inferred.set(key, node);
        nodes.set(node.id, node);
      }
      parentId = node.id;
    }
    const child = nodes.get(processEvidenceId(row));
    if (child) child.parent_id = parentId;
    parentOf.set(processEvidenceId(row), parentId);
  }
  for (const row of networkRows) {
    const owner = row.pid === null ? undefined : runningAt(processRows, row.pid, row.event_time);
    let node = owner ? nodes.get(processEvidenceId(owner)) : undefined;
    if (!node && (row.pid !== null || row.process_name !== null)) {
      // A connection whose process started before the window (or unlogged): inferred from the connection.
      const key = `net:${row.pid ?? '?'}:${(row.process_name ?? '').toLowerCase()}`;
      node = inferred.get(key);
      if (!node) {
        node = {
          id: `process_of_${networkEvidenceId(row)}`,
          parent_id: null,
          inferred: true,
          time: null,
          pid: row.pid,
          name: row.process_name,
          executable_path: row.executable_path,
          command_line: null,
          user: row.user_name,
          observation_ids: [],
          connections: [],
        };
        inferred.set(key, node);
        nodes.set(node.id, node);
      }
    }
    if (node && node.connections.length < INVESTIGATION_LIMITS.connectionsPerProcess)
      node.connections.push(connectionView(row, observed.network));
  }

  // Which nodes to show: the observed ones with their ancestors and descendants; without any, all.
  const children = new Map<string, string[]>();
  for (const [child, parent] of parentOf) children.set(parent, [...(children.get(parent) ?? []), child]);
  const marked = [...nodes.values()].filter(
    (node) => node.observation_ids.length > 0 || node.connections.some((c) => c.observation_ids.length > 0),
  );
  let shown: Set<string>;
  if (marked.length === 0) shown = new Set(nodes.keys());
  else {
    shown = new Set();
    for (const node of marked) {
      for (let id: string | undefined = node.id; id !== undefined && !shown.has(id); id = parentOf.get(id))
        shown.add(id);
      const stack = [...(children.get(node.id) ?? [])];
      for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
        if (shown.has(id)) continue;
        shown.add(id);
        stack.push(...(children.get(id) ?? []));
      }
      shown.add(node.id);
    }
  }
  const ordered = [...nodes.values()]
    .filter((node) => shown.has(node.id))
    .sort((a, b) => (a.time ?? '').localeCompare(b.time ?? '') || a.id.localeCompare(b.id));
  const limit = INVESTIGATION_LIMITS.processesPerDevice;
  const kept = ordered.slice(0, limit);
  const keptIds = new Set(kept.map((node) => node.id));
  // A parent cut by the bound leaves its child a root rather than pointing at nothing.
  for (const node of kept) if (node.parent_id !== null && !keptIds.has(node.parent_id)) node.parent_id = null;
  return { processes: kept, truncated: ordered.length > limit };
}

/** GET /v1/cases/{case_id}/process-tree */
export async function caseProcessTree(db: Kysely<Tables>, tenantId: number, caseRef: string) {
  const evidence = await caseEvidence(db, tenantId, caseRef);
  const { row, observations, observedBy } = evidence;
  const ids = ((await caseDeviceIds(db, tenantId, [row.id])).get(row.id) ?? []).sort();
  const devices = (await findDevicesByIds(db, tenantId, ids.slice(0, INVESTIGATION_LIMITS.devices))).sort((a, b) =>
    a.host_name.localeCompare(b.host_name),
  );
  const span = timeSpan(observations);
  const result = [];
  for (const device of devices) {
    const window = span && {
      deviceId: device.id,
      from: span.from - INVESTIGATION_LIMITS.marginMs,
      to: span.to + INVESTIGATION_LIMITS.marginMs,
    };
    const around = <T extends 'endpoint_process_events' | 'network_process_events'>(table: T) =>
      window ? deviceEvents(db, table, tenantId, window, INVESTIGATION_LIMITS.rowsPerDevice) : Promise.resolve([]);
    const processes = mergeRows(
      evidence.processRows.filter((r) => r.device_id === device.id),
      await around('endpoint_process_events'),
    );
    const connections = mergeRows(
      evidence.networkRows.filter((r) => r.device_id === device.id),
      await around('network_process_events'),
    );
    const tree = processTree(processes, connections, { process: observedBy, network: observedBy });
    result.push({ device_id: device.id, host_name: device.host_name, ...tree });
  }
  return {
    case_id: row.id,
    window: span
      ? { from: iso(span.from - INVESTIGATION_LIMITS.marginMs), to: iso(span.to + INVESTIGATION_LIMITS.marginMs) }
      : null,
    devices: result,
    observations_truncated: evidence.truncated,
  };
}

function timeSpan(observations: readonly CaseObservationEvidence[]): { from: number; to: number } | null {
  if (observations.length === 0) return null;
  return {
    from: Math.min(...observations.map((o) => o.first_time)),
    to: Math.max(...observations.map((o) => o.last_time)),
  };
}

/** GET /v1/cases/{case_id}/timeline */
export async function caseTimeline(db: Kysely<Tables>, tenantId: number, caseRef: string) {
  const { row, observations, processRows, networkRows, observedBy, truncated } = await caseEvidence(
    db,
    tenantId,
    caseRef,
  );
  const devices = await findDevicesByIds(db, tenantId, [
    ...new Set([...processRows, ...networkRows].flatMap((r) => (r.device_id === null ? [] : [r.device_id]))),
  ]);
  const deviceByHost = new Map(devices.map((device) => [device.host_key, device.id]));
  const base = { observation: null, process: null, connection: null };
  const entries = [
    ...observations.map((o) => ({
      ...base,
      id: o.id,
      kind: 'observation' as const,
      time: o.first_time,
      host: o.host,
      device_id: o.host === null ? null : (deviceByHost.get(o.host.trim().toLowerCase()) ?? null),
      observation_ids: [o.id],
      observation: { rule_title: o.rule_title, level: o.level, techniques: JSON.parse(o.techniques) as string[] },
    })),
    ...processRows.map((r) => ({
      ...base,
      id: processEvidenceId(r),
      kind: 'process' as const,
      time: r.event_time,
      host: r.host,
      device_id: r.device_id,
      observation_ids: observedBy(r),
      process: {
        name: r.process_name,
        pid: r.pid,
        executable_path: r.executable_path,
        command_line: r.command_line,
        user: r.user_name,
        parent_name: r.parent_process_name,
        parent_pid: r.parent_pid,
      },
    })),
    ...networkRows.map((r) => ({
      ...base,
      id: networkEvidenceId(r),
      kind: 'connection' as const,
      time: r.event_time,
      host: r.host,
      device_id: r.device_id,
      observation_ids: observedBy(r),
      connection: connectionView(r, observedBy),
    })),
  ];
  // Oldest first; at one instant an observation comes before the evidence it rests on.
  const rank = { observation: 0, process: 1, connection: 2 };
  entries.sort((a, b) => a.time - b.time || rank[a.kind] - rank[b.kind] || a.id.localeCompare(b.id));
  const limit = INVESTIGATION_LIMITS.timelineEntries;
  return {
    case_id: row.id,
    entries: entries.slice(0, limit).map((entry) => ({ ...entry, time: iso(entry.time) })),
    truncated: truncated || entries.length > limit,
  };
}
