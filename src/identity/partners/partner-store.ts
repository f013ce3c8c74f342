// SQL for partner organisations and the tenants each serves. A partner is platform-wide, like
// the tenant registry; what it may reach is the rows of partner_tenants, read by partner.
import type { Kysely, Selectable } from 'kysely';
import type { PartnersTable, Tables } from '../../storage/schema.js';
import type { TenantRow } from '../tenants/tenant-store.js';

export type PartnerRow = Selectable<PartnersTable>;

/** Inserts a partner; false when the code name is taken. */
export async function insertPartner(db: Kysely<Tables>, row: PartnerRow): Promise<boolean> {
  const inserted = await db
    .insertInto('partners')
    .values(row)
    .onConflict((oc) => oc.column('code_name').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export function findPartnerByCodeName(db: Kysely<Tables>, codeName: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('partners').selectAll().where('code_name', '=', codeName).executeTakeFirst();
}

export function findPartnerById(db: Kysely<Tables>, id: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('partners').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every partner, by code name. */
export function listPartnerRows(db: Kysely<Tables>): Promise<PartnerRow[]> {
  return db.selectFrom('partners').selectAll().orderBy('code_name').execute();
}

/** The tenants a partner serves, by code name. */
export function partnerTenantRows(db: Kysely<Tables>, partnerId: string): Promise<TenantRow[]> {
  return db
    .selectFrom('partner_tenants as pt')
    .innerJoin('tenants as t', 't.id', 'pt.tenant_id')
    .selectAll('t')
    .where('pt.partner_id', '=', partnerId)
    .orderBy('t.code_name')
    .execute();
}

/** Adds a tenant to a partner; false when it was already there. */
export async function insertPartnerTenant(
  db: Kysely<Tables>,
  row: { partner_id: string; tenant_id: number; added_at: number; added_by: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('partner_tenants')
    .values(row)
    .onConflict((oc) => oc.columns(['partner_id', 'tenant_id']).doNothing())
    .returning('tenant_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Removes a tenant from a partner; false when it was not there. */
export async function deletePartnerTenant(db: Kysely<Tables>, partnerId: string, tenantId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('partner_tenants')
    .where('partner_id', '=', partnerId)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
