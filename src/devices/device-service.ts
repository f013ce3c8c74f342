// The device inventory as the API shows it, and the edits tenant admins make. A criticality
// change rescores the device's open cases in the same transaction; every edit is audited.
import type { Kysely } from 'kysely';
import type { Criticality, Tables } from '../storage/schema.js';
import type { Db } from '../storage/database.js';
import { AppError } from '../core/errors.js';
import type { IsolationState } from './device-action-rules.js';
import type { DeviceActionRow } from './device-action-store.js';
import { writeTransaction } from '../storage/write-transaction.js';
import type { AuditActor } from '../identity/principal.js';
import { recordAudit } from '../identity/audit/audit-service.js';
import {
  findAddresses,
  findDevice,
  findProcesses,
  listDevices,
  openCasesByDevice,
  updateDevice,
  type AddressRow,
  type DeviceFilter,
  type DeviceRow,
} from './device-store.js';

/**
 * What features above devices do when a device changes, inside the same transaction. The
 * composition root wires them (app/reactions.ts), so devices never import cases.
 */
export interface DeviceReactions {
  /** The device's criticality changed: its open cases' scores depend on it. */
  criticalityChanged(
    trx: Db,
    change: { tenantId: number; device: DeviceRow; from: Criticality; actor: AuditActor; now: number },
  ): Promise<void>;
  /** A response action requested from a case, or its outcome: the case's history records it (404 if no such case). */
  responseActionRecorded(
    trx: Db,
    change: {
      tenantId: number;
      caseId: string;
      device: DeviceRow;
      action: DeviceActionRow;
      actor: AuditActor;
      now: number;
    },
  ): Promise<void>;
}

/** One edit request: who, in which tenant, and what follows from it. */
export interface DeviceEdit {
  db: Kysely<Tables>;
  tenantId: number;
  actor: AuditActor;
  /** The caller's address, for the audit log. */
  ip: string | null;
  reactions: DeviceReactions;
  now?: number;
}

const iso = (time: number) => new Date(time).toISOString();

export interface AddressView {
  ip: string;
  scope: string;
  country_code: string | null;
  country: string | null;
  city: string | null;
  first_seen: string;
  last_seen: string;
}

export interface DeviceView {
  id: string;
  host_name: string;
  description: string;
  criticality: Criticality;
  last_user: string | null;
  endpoint_id: string | null;
  os: string | null;
  kubernetes_namespace: string | null;
  first_seen: string;
  last_seen: string;
  addresses: AddressView[];
  open_case_ids: string[];
  isolation_state: IsolationState | null;
}

export function presentAddress(row: AddressRow): AddressView {
  return {
    ip: row.ip,
    scope: row.scope,
    country_code: row.country_code,
    country: row.country,
    city: row.city,
    first_seen: iso(row.first_seen),
    last_seen: iso(row.last_seen),
  };
}

export function presentDevice(
  row: DeviceRow,
  addresses: readonly AddressRow[],
  openCaseIds: readonly string[],
): DeviceView {
  return {
    id: row.id,
    host_name: row.host_name,
    description: row.description,
    criticality: row.criticality,
    last_user: row.last_user,
    endpoint_id: row.endpoint_id,
    os: row.os,
    kubernetes_namespace: row.kubernetes_namespace,
    first_seen: iso(row.first_seen),
    last_seen: iso(row.last_seen),
    addresses: addresses.map(presentAddress),
    open_case_ids: [...openCaseIds],
    isolation_state: row.isolation_state as IsolationState | null,
  };
}

/** Devices with their addresses and open cases, in the order given. */
export async function presentDevices(
  db: Kysely<Tables>,
  tenantId: number,
  rows: readonly DeviceRow[],
): Promise<DeviceView[]> {
  const ids = rows.map((row) => row.id);
  const addresses = await findAddresses(db, tenantId, ids);
  const open = await openCasesByDevice(db, tenantId, ids);
  return rows.map((row) =>
    presentDevice(
      row,
      addresses.filter((address) => address.device_id === row.id),
      open.get(row.id) ?? [],
    ),
  );
}

/** One device with its addresses and open cases. */
async function presentOneDevice(db: Kysely<Tables>, tenantId: number, row: DeviceRow): Promise<DeviceView> {
  const [view] = await presentDevices(db, tenantId, [row]);
  if (!view) throw new Error(`device ${row.id}: presentDevices returned no view for it`);
  return view;
}

export async function searchDevices(
  db: Kysely<Tables>,
  tenantId: number,
  filter: DeviceFilter,
  page: { limit: number; after?: { lastSeen: number; seq: number } },
): Promise<{ devices: DeviceView[]; next: { lastSeen: number; seq: number } | null }> {
  const rows = await listDevices(db, tenantId, filter, { ...page, limit: page.limit + 1 });
  const more = rows.length > page.limit;
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    devices: await presentDevices(db, tenantId, shown),
    next: more && last ? { lastSeen: last.last_seen, seq: last.seq } : null,
  };
}

export async function getDevice(db: Kysely<Tables>, tenantId: number, id: string) {
  const row = await findDevice(db, tenantId, id);
  if (!row) throw new AppError('not_found', `device ${id} not found`);
  const view = await presentOneDevice(db, tenantId, row);
  const processes = await findProcesses(db, tenantId, row, 200);
  const cases = await db
    .selectFrom('cases as c')
    .innerJoin('case_devices as cd', 'cd.case_id', 'c.id')
    .select(['c.id', 'c.number', 'c.title', 'c.status', 'c.score'])
    .where('cd.tenant_id', '=', tenantId)
    .where('cd.device_id', '=', row.id)
    .orderBy('c.created_at', 'desc')
    .limit(100)
    .execute();
  return {
    ...view,
    processes: processes.map((process) => ({
      process_name: process.process_name,
      pid: process.pid,
      executable_path: process.executable_path,
      user: process.user_name,
      last_seen: iso(process.last_seen),
    })),
    cases: cases.map((item) => ({
      id: item.id,
      number: item.number,
      title: item.title,
      status: item.status,
      score: item.score,
    })),
  };
}

export async function editDevice(
  context: DeviceEdit,
  id: string,
  changes: { description?: string; criticality?: Criticality },
): Promise<DeviceView> {
  const { db, tenantId, actor, reactions } = context;
  const now = context.now ?? Date.now();
  const row = await writeTransaction(db, async (trx) => {
    const before = await findDevice(trx, tenantId, id);
    if (!before) throw new AppError('not_found', `device ${id} not found`);
    const after = await updateDevice(trx, tenantId, id, changes, now);
    if (!after) throw new AppError('not_found', `device ${id} not found`);
    if (changes.criticality !== undefined && changes.criticality !== before.criticality)
      await reactions.criticalityChanged(trx, { tenantId, device: after, from: before.criticality, actor, now });
    // What changed, each as from and to; an edit that changed nothing is not an event.
    const changed: Record<string, { from: string; to: string }> = {};
    if (after.description !== before.description)
      changed.description = { from: before.description, to: after.description };
    if (after.criticality !== before.criticality)
      changed.criticality = { from: before.criticality, to: after.criticality };
    if (Object.keys(changed).length > 0)
      await recordAudit(trx, {
        tenantId,
        action: 'device.updated',
        actor,
        ip: context.ip,
        target: { type: 'device', id },
        details: { host_name: after.host_name, ...changed },
      });
    return after;
  });
  return presentOneDevice(db, tenantId, row);
}
