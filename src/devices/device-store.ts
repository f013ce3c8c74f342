// SQL for the device inventory. Every function takes the tenant (or rows that carry it) and
// every query filters on it. Sightings are upserted inside detection's transaction.
import { sql, type ExpressionBuilder, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Criticality, DeviceAddressesTable, DevicesTable, Tables } from '../storage/schema.js';
import { newId } from '../core/ids.js';
import { likeContains } from '../storage/like.js';
import { bulkInsert, type BulkInsert } from '../storage/bulk-insert.js';
import type { DeviceSighting } from './device-sightings.js';
import type { GeoIpSource } from './geoip.js';

export type DeviceRow = Selectable<DevicesTable>;
export type AddressRow = Selectable<DeviceAddressesTable>;
type Db = Kysely<Tables> | Transaction<Tables>;

const later = (column: string) =>
  sql<number>`CASE WHEN excluded.${sql.ref(column)} > devices.${sql.ref(column)} THEN excluded.${sql.ref(column)} ELSE devices.${sql.ref(column)} END`;
const earlier = (column: string) =>
  sql<number>`CASE WHEN excluded.${sql.ref(column)} < devices.${sql.ref(column)} THEN excluded.${sql.ref(column)} ELSE devices.${sql.ref(column)} END`;
/** The sighting's value when it is the newer one (and has one), else the stored value. */
const newer = (column: string) =>
  sql<
    string | null
  >`CASE WHEN excluded.${sql.ref(column)} IS NOT NULL AND (excluded.last_seen >= devices.last_seen OR devices.${sql.ref(column)} IS NULL) THEN excluded.${sql.ref(column)} ELSE devices.${sql.ref(column)} END`;

/** Devices per upsert statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const DEVICES_PER_STATEMENT = 500;

/** The upsert of sighted devices; RETURNING names each row's key, as its order is not the input's. */
const DEVICE_UPSERT: BulkInsert = {
  columns: [
    'id',
    'tenant_id',
    'host_key',
    'host_name',
    'last_user',
    'endpoint_id',
    'os',
    'kubernetes_namespace',
    'first_seen',
    'last_seen',
    'updated_at',
  ],
  build: (db, rows) =>
    db
      .insertInto('devices')
      .values(rows as never[])
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'host_key']).doUpdateSet({
          last_user: newer('last_user'),
          endpoint_id: newer('endpoint_id'),
          os: newer('os'),
          kubernetes_namespace: newer('kubernetes_namespace'),
          first_seen: earlier('first_seen'),
          last_seen: later('last_seen'),
          updated_at: sql<number>`excluded.updated_at`,
        }),
      )
      .returning(['id', 'tenant_id', 'host_key']),
};

/**
 * Creates or refreshes the devices sighted; returns `tenant/hostKey → device id`. Addresses new
 * to a device are located once, when first seen.
 */
export async function upsertSightings(
  db: Db,
  sightings: readonly DeviceSighting[],
  geo: GeoIpSource,
  now: number,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  // One statement per few hundred devices, not one per device: a chunk of records names hundreds.
  const rows = await bulkInsert<{ id: string; tenant_id: number; host_key: string }>(
    db,
    DEVICE_UPSERT,
    sightings.map((sighting) => [
      newId('dev'),
      sighting.tenantId,
      sighting.hostKey,
      sighting.hostName,
      sighting.user,
      sighting.endpointId,
      sighting.os,
      sighting.kubernetesNamespace,
      sighting.firstSeen,
      sighting.lastSeen,
      now,
    ]),
    DEVICES_PER_STATEMENT,
  );
  for (const row of rows) ids.set(deviceKey(row.tenant_id, row.host_key), row.id);
  for (const sighting of sightings) {
    const id = ids.get(deviceKey(sighting.tenantId, sighting.hostKey));
    if (id !== undefined && sighting.addresses.size > 0) await upsertAddresses(db, sighting, id, geo);
  }
  return ids;
}

export function deviceKey(tenantId: number, hostKey: string): string {
  return `${tenantId}/${hostKey}`;
}

async function upsertAddresses(db: Db, sighting: DeviceSighting, deviceId: string, geo: GeoIpSource): Promise<void> {
  const known = new Set(
    (
      await db
        .selectFrom('device_addresses')
        .select('ip')
        .where('tenant_id', '=', sighting.tenantId)
        .where('device_id', '=', deviceId)
        .where('ip', 'in', [...sighting.addresses.keys()])
        .execute()
    ).map((row) => row.ip),
  );
  for (const [ip, seen] of sighting.addresses) {
    if (known.has(ip)) {
      await db
        .updateTable('device_addresses')
        .set({ last_seen: sql`CASE WHEN last_seen < ${seen.lastSeen} THEN ${seen.lastSeen} ELSE last_seen END` })
        .where('tenant_id', '=', sighting.tenantId)
        .where('device_id', '=', deviceId)
        .where('ip', '=', ip)
        .execute();
      continue;
    }
    const location = geo.locate(ip);
    await db
      .insertInto('device_addresses')
      .values({
        device_id: deviceId,
        ip,
        tenant_id: sighting.tenantId,
        scope: location.scope,
        country_code: location.countryCode,
        country: location.country,
        city: location.city,
        first_seen: seen.firstSeen,
        last_seen: seen.lastSeen,
      })
      .onConflict((oc) => oc.columns(['device_id', 'ip']).doNothing())
      .execute();
  }
}

export interface DeviceFilter {
  /** Substring of the host name, case-insensitive. */
  name?: string;
  ip?: string;
  seenSince?: number;
  hasOpenCase?: boolean;
}

/** Most recently seen first; `after` is the previous page's last (last_seen, seq). */
export function listDevices(
  db: Kysely<Tables>,
  tenantId: number,
  filter: DeviceFilter,
  page: { limit: number; after?: { lastSeen: number; seq: number } },
): Promise<DeviceRow[]> {
  let query = db.selectFrom('devices').selectAll('devices').where('devices.tenant_id', '=', tenantId);
  // host_key is the host name lower-cased.
  if (filter.name !== undefined) query = query.where(likeContains('host_key', filter.name.toLowerCase()));
  if (filter.ip !== undefined) {
    const ip = filter.ip.toLowerCase();
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('device_addresses as a')
          .select('a.ip')
          .whereRef('a.device_id', '=', 'devices.id')
          .where('a.tenant_id', '=', tenantId)
          .where('a.ip', '=', ip),
      ),
    );
  }
  if (filter.seenSince !== undefined) query = query.where('last_seen', '>=', filter.seenSince);
  if (filter.hasOpenCase !== undefined) {
    const open = (eb: ExpressionBuilder<Tables, 'devices'>) =>
      eb.exists(
        eb
          .selectFrom('case_devices as cd')
          .innerJoin('cases as c', 'c.id', 'cd.case_id')
          .select('cd.case_id')
          .whereRef('cd.device_id', '=', 'devices.id')
          .where('cd.tenant_id', '=', tenantId)
          .where('c.status', '!=', 'closed'),
      );
    query = query.where((eb) => (filter.hasOpenCase ? open(eb) : eb.not(open(eb))));
  }
  const after = page.after;
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('last_seen', '<', after.lastSeen),
        eb.and([eb('last_seen', '=', after.lastSeen), eb('seq', '<', after.seq)]),
      ]),
    );
  return query.orderBy('last_seen', 'desc').orderBy('seq', 'desc').limit(page.limit).execute();
}

export function findDevice(db: Db, tenantId: number, id: string): Promise<DeviceRow | undefined> {
  return db.selectFrom('devices').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

export function findDevicesByIds(db: Db, tenantId: number, ids: readonly string[]): Promise<DeviceRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('devices')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
}

export function findAddresses(db: Db, tenantId: number, deviceIds: readonly string[]): Promise<AddressRow[]> {
  if (deviceIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('device_addresses')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('device_id', 'in', [...deviceIds])
    .orderBy('last_seen', 'desc')
    .execute();
}

export interface ProcessSeen {
  process_name: string | null;
  pid: number | null;
  executable_path: string | null;
  user_name: string | null;
  last_seen: number;
}

/** The processes seen on a device (from the endpoint-process table), most recent first. */
export async function findProcesses(
  db: Db,
  tenantId: number,
  device: DeviceRow,
  limit: number,
): Promise<ProcessSeen[]> {
  // Bounded scan of the device's newest rows (index endpoint_process_events_device), then
  // one entry per (name, PID, path).
  const rows = await db
    .selectFrom('endpoint_process_events')
    .select(['process_name', 'pid', 'executable_path', 'user_name', 'event_time'])
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', device.id)
    .orderBy('event_time', 'desc')
    .limit(limit * 20)
    .execute();
  const seen = new Map<string, ProcessSeen>();
  for (const row of rows) {
    const key = `${row.process_name}\u0000${row.pid}\u0000${row.executable_path}`;
    if (!seen.has(key))
      seen.set(key, {
        process_name: row.process_name,
        pid: row.pid,
        executable_path: row.executable_path,
        user_name: row.user_name,
        last_seen: row.event_time,
      });
    if (seen.size >= limit) break;
  }
  return [...seen.values()];
}

export async function updateDevice(
  db: Db,
  tenantId: number,
  id: string,
  changes: { description?: string; criticality?: Criticality },
  now: number,
): Promise<DeviceRow | undefined> {
  return db
    .updateTable('devices')
    .set({ ...changes, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Devices named by observations' hosts: created (first seen at the observation) when unknown. */
export async function ensureDevice(
  db: Db,
  tenantId: number,
  hostName: string,
  hostKeyValue: string,
  seenAt: number,
  now: number,
): Promise<string> {
  const row = await db
    .insertInto('devices')
    .values({
      id: newId('dev'),
      tenant_id: tenantId,
      host_key: hostKeyValue,
      host_name: hostName,
      first_seen: seenAt,
      last_seen: seenAt,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'host_key']).doUpdateSet({ last_seen: later('last_seen') }))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The open cases of each device. */
export async function openCasesByDevice(
  db: Db,
  tenantId: number,
  deviceIds: readonly string[],
): Promise<Map<string, string[]>> {
  if (deviceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('case_devices as cd')
    .innerJoin('cases as c', 'c.id', 'cd.case_id')
    .select(['cd.device_id', 'c.id'])
    .where('cd.tenant_id', '=', tenantId)
    .where('cd.device_id', 'in', [...deviceIds])
    .where('c.status', '!=', 'closed')
    .execute();
  const byDevice = new Map<string, string[]>();
  for (const row of rows) byDevice.set(row.device_id, [...(byDevice.get(row.device_id) ?? []), row.id]);
  return byDevice;
}
