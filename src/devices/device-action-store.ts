// SQL for device response actions and the device's isolation state. Every query names the tenant.
import type { Selectable } from 'kysely';
import type { Db } from '../storage/database.js';
import type { DeviceActionsTable } from '../storage/schema.js';

export type DeviceActionRow = Selectable<DeviceActionsTable>;

export function insertDeviceAction(db: Db, row: DeviceActionRow): Promise<unknown> {
  return db.insertInto('device_actions').values(row).execute();
}

export function findDeviceAction(
  db: Db,
  tenantId: number,
  deviceId: string,
  id: string,
): Promise<DeviceActionRow | undefined> {
  return db
    .selectFrom('device_actions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', deviceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Newest first, up to `limit`. */
export function listDeviceActions(
  db: Db,
  tenantId: number,
  deviceId: string,
  limit: number,
): Promise<DeviceActionRow[]> {
  return db
    .selectFrom('device_actions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('device_id', '=', deviceId)
    .orderBy('requested_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Records the outcome, only while the action still waits for one; false if it had one already. */
export async function completeDeviceAction(
  db: Db,
  tenantId: number,
  id: string,
  set: Pick<DeviceActionRow, 'status' | 'completed_at' | 'completed_by' | 'outcome_detail'>,
): Promise<boolean> {
  const result = await db
    .updateTable('device_actions')
    .set(set)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', '=', 'requested')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setIsolationState(
  db: Db,
  tenantId: number,
  deviceId: string,
  state: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('devices')
    .set({ isolation_state: state, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', deviceId)
    .execute();
}
