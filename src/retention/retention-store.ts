// SQL for the retention tables: each tenant's policy, hold and usage; the operator's limits;
// the purger's lease. The telemetry deletes themselves are in purge-store.ts.
import { sql, type Selectable } from 'kysely';
import type { Db } from '../storage/database.js';
import type { RetentionLimitsTable, TenantRetentionTable } from '../storage/schema.js';

export type TenantRetentionRow = Selectable<TenantRetentionTable>;
export type RetentionLimitsRow = Selectable<RetentionLimitsTable>;

export interface PolicyChange {
  telemetryDays?: number | null;
  legalHold?: boolean;
  legalHoldReason?: string | null;
}

export async function readTenantRetention(db: Db, tenantId: number): Promise<TenantRetentionRow | undefined> {
  return db.selectFrom('tenant_retention').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
}

/** Every tenant with its retention row (null columns where it has none), for the operator. */
export async function listTenantsWithRetention(db: Db) {
  return db
    .selectFrom('tenants')
    .leftJoin('tenant_retention', 'tenant_retention.tenant_id', 'tenants.id')
    .select([
      'tenants.id as id',
      'tenants.code_name as code_name',
      'tenants.name as name',
      'tenant_retention.telemetry_days as telemetry_days',
      'tenant_retention.legal_hold as legal_hold',
      'tenant_retention.legal_hold_reason as legal_hold_reason',
      'tenant_retention.purged_records as purged_records',
      'tenant_retention.last_purge_at as last_purge_at',
      'tenant_retention.stored_records as stored_records',
      'tenant_retention.stored_bytes as stored_bytes',
      'tenant_retention.oldest_received_at as oldest_received_at',
      'tenant_retention.measured_at as measured_at',
    ])
    .orderBy('tenants.code_name')
    .execute();
}

/** Creates the tenant's row with the defaults when it has none (kept if it has). */
async function ensureRow(db: Db, tenantId: number, now: number, by: string): Promise<void> {
  await db
    .insertInto('tenant_retention')
    .values({
      tenant_id: tenantId,
      telemetry_days: null,
      legal_hold: 0,
      purged_records: 0,
      updated_at: now,
      updated_by: by,
    })
    .onConflict((oc) => oc.column('tenant_id').doNothing())
    .execute();
}

export async function saveTenantPolicy(
  db: Db,
  tenantId: number,
  change: PolicyChange,
  by: string,
  now: number,
): Promise<void> {
  await ensureRow(db, tenantId, now, by);
  await db
    .updateTable('tenant_retention')
    .set({
      updated_at: now,
      updated_by: by,
      ...(change.telemetryDays !== undefined ? { telemetry_days: change.telemetryDays } : {}),
      ...(change.legalHold !== undefined ? { legal_hold: change.legalHold ? 1 : 0 } : {}),
      ...(change.legalHoldReason !== undefined ? { legal_hold_reason: change.legalHoldReason } : {}),
    })
    .where('tenant_id', '=', tenantId)
    .execute();
}

export async function readLimits(db: Db): Promise<RetentionLimitsRow> {
  const row = await db.selectFrom('retention_limits').selectAll().where('id', '=', 1).executeTakeFirst();
  if (!row) throw new Error('retention_limits has no row: the database was not migrated');
  return row;
}

export async function saveLimits(
  db: Db,
  limits: { minDays: number; maxDays: number; defaultDays: number },
  by: string,
  now: number,
): Promise<void> {
  await db
    .updateTable('retention_limits')
    .set({
      min_days: limits.minDays,
      max_days: limits.maxDays,
      default_days: limits.defaultDays,
      updated_at: now,
      updated_by: by,
    })
    .where('id', '=', 1)
    .execute();
}

export async function addPurged(db: Db, tenantId: number, count: number, now: number): Promise<void> {
  await ensureRow(db, tenantId, now, 'purger');
  await db
    .updateTable('tenant_retention')
    .set({ purged_records: sql`purged_records + ${count}`, last_purge_at: now })
    .where('tenant_id', '=', tenantId)
    .execute();
}

export interface Usage {
  records: number;
  bytes: number;
  oldestReceivedAt: number | null;
}

export async function saveUsage(db: Db, tenantId: number, usage: Usage, now: number): Promise<void> {
  await ensureRow(db, tenantId, now, 'purger');
  await db
    .updateTable('tenant_retention')
    .set({
      stored_records: usage.records,
      stored_bytes: usage.bytes,
      oldest_received_at: usage.oldestReceivedAt,
      measured_at: now,
    })
    .where('tenant_id', '=', tenantId)
    .execute();
}

/**
 * Takes or renews the lease `name` for `holder` until now + ttl; true when the holder has it.
 * Another holder's lease is taken over only once it has expired.
 */
export async function takeLease(db: Db, name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
  await db
    .insertInto('retention_leases')
    .values({ name, holder, expires_at: now + ttlMs })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ holder, expires_at: now + ttlMs })
        .where((eb) =>
          eb.or([eb('retention_leases.holder', '=', holder), eb('retention_leases.expires_at', '<', now)]),
        ),
    )
    .execute();
  const row = await db.selectFrom('retention_leases').select('holder').where('name', '=', name).executeTakeFirst();
  return row?.holder === holder;
}

export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.deleteFrom('retention_leases').where('name', '=', name).where('holder', '=', holder).execute();
}
