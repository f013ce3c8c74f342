// SQL for single sign-on: the tenant's provider settings, the links between a provider's
// subjects and people, the email domains the tenant proved it holds, and the few user writes a
// sign-in makes (a person provisioned on first sign-in, their role kept in step with the
// provider). Everything is per tenant: a person's identity belongs to their tenant.
import type { Kysely, Selectable } from 'kysely';
import type { Role, SsoConfigsTable, SsoDomainsTable, SsoLinksTable, Tables } from '../../storage/schema.js';
import type { UserRow } from '../users/user-store.js';

export type SsoConfigRow = Selectable<SsoConfigsTable>;
export type SsoLinkRow = Selectable<SsoLinksTable>;
export type SsoDomainRow = Selectable<SsoDomainsTable>;

export function findSsoConfig(db: Kysely<Tables>, tenantId: number): Promise<SsoConfigRow | undefined> {
  return db.selectFrom('sso_configs').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
}

/** Creates or replaces the tenant's settings (the creation time is kept on replace). */
export async function saveSsoConfig(db: Kysely<Tables>, tenantId: number, row: Omit<SsoConfigRow, 'tenant_id'>) {
  const { created_at: _created, ...changes } = row;
  await db
    .insertInto('sso_configs')
    .values({ ...row, tenant_id: tenantId })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(changes))
    .execute();
}

/** Removes the tenant's settings; false when there were none. */
export async function deleteSsoConfig(db: Kysely<Tables>, tenantId: number): Promise<boolean> {
  const deleted = await db.deleteFrom('sso_configs').where('tenant_id', '=', tenantId).returning('tenant_id').execute();
  return deleted.length > 0;
}

/** Adds a tenant member; false when the tenant's email was taken meanwhile. */
export async function insertTenantUser(db: Kysely<Tables>, tenantId: number, user: UserRow): Promise<boolean> {
  const inserted = await db
    .insertInto('users')
    .values({ ...user, tenant_id: tenantId })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export function findSsoLink(db: Kysely<Tables>, tenantId: number, userId: string): Promise<SsoLinkRow | undefined> {
  return db
    .selectFrom('sso_links')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Creates or replaces the person's link (one per person). */
export async function saveSsoLink(db: Kysely<Tables>, row: SsoLinkRow): Promise<void> {
  const { user_id: _user, tenant_id: _tenant, ...changes } = row;
  await db
    .insertInto('sso_links')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet(changes))
    .execute();
}

/** Removes the person's link; false when there was none. */
export async function deleteSsoLink(db: Kysely<Tables>, tenantId: number, userId: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('sso_links')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .returning('user_id')
    .execute();
  return deleted.length > 0;
}

export function listVerifiedDomains(db: Kysely<Tables>, tenantId: number): Promise<SsoDomainRow[]> {
  return db.selectFrom('sso_domains').selectAll().where('tenant_id', '=', tenantId).orderBy('domain').execute();
}

export async function saveVerifiedDomain(db: Kysely<Tables>, row: SsoDomainRow): Promise<void> {
  const { tenant_id: _tenant, domain: _domain, ...changes } = row;
  await db
    .insertInto('sso_domains')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'domain']).doUpdateSet(changes))
    .execute();
}

/** Withdraws a domain's verification; false when it was not verified. */
export async function deleteVerifiedDomain(db: Kysely<Tables>, tenantId: number, domain: string): Promise<boolean> {
  const deleted = await db
    .deleteFrom('sso_domains')
    .where('tenant_id', '=', tenantId)
    .where('domain', '=', domain)
    .returning('domain')
    .execute();
  return deleted.length > 0;
}

export async function updateTenantUserRole(
  db: Kysely<Tables>,
  tenantId: number,
  userId: string,
  role: Role,
): Promise<void> {
  await db.updateTable('users').set({ role }).where('tenant_id', '=', tenantId).where('id', '=', userId).execute();
}
