// SQL for single sign-on: the tenant's provider settings, and the few user writes a sign-in
// makes (a person provisioned on first sign-in, their role kept in step with the provider).
// Finding a person by email is platform-wide on purpose, as for password sign-in: an email that
// belongs to another tenant or to an operator must be recognised in order to refuse it.
import type { Kysely, Selectable } from 'kysely';
import type { Role, SsoConfigsTable, Tables } from '../../storage/schema.js';
import type { UserRow } from '../users/user-store.js';

export type SsoConfigRow = Selectable<SsoConfigsTable>;

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

/** Whoever holds the email on the platform (any tenant, or an operator). */
export function findAnyUserByEmail(db: Kysely<Tables>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

/** Adds a tenant member; false when the email was taken meanwhile. */
export async function insertTenantUser(db: Kysely<Tables>, tenantId: number, user: UserRow): Promise<boolean> {
  const inserted = await db
    .insertInto('users')
    .values({ ...user, tenant_id: tenantId })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function updateTenantUserRole(
  db: Kysely<Tables>,
  tenantId: number,
  userId: string,
  role: Role,
): Promise<void> {
  await db.updateTable('users').set({ role }).where('tenant_id', '=', tenantId).where('id', '=', userId).execute();
}
