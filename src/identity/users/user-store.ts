// SQL for users. Tenant members are read through their tenant; operators (tenant_id null)
// and sign-in, which starts from an email alone, are the two platform-wide reads. An email is
// one person per tenant: the same address may hold accounts in several tenants.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Tables, UserCodesTable, UsersTable } from '../../storage/schema.js';
import { likeStartsWith } from '../../storage/like.js';

export type UserRow = Selectable<UsersTable>;

/** Every account, of any tenant or an operator's, that holds this (lower-cased) email: sign-in's candidates. */
export function findAccountsByEmail(db: Kysely<Tables>, email: string, limit: number): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('email', '=', email).orderBy('id').limit(limit).execute();
}

/** One account by id, in its tenant (null: an operator), deleted ones left out. */
export function findAccount(db: Kysely<Tables>, tenantId: number | null, id: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', tenantId === null ? 'is' : '=', tenantId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The platform operator with this (lower-cased) email. */
export function findOperatorByEmail(db: Kysely<Tables>, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', 'is', null)
    .where('email', '=', email)
    .executeTakeFirst();
}

/** The tenant's person with this (lower-cased) email, deleted ones included. */
export function findTenantUserByEmail(
  db: Kysely<Tables>,
  tenantId: number,
  email: string,
): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('email', '=', email)
    .executeTakeFirst();
}

/** The tenant's people, deleted ones left out. */
export function listTenantUsers(db: Kysely<Tables>, tenantId: number): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .orderBy('email')
    .execute();
}

export async function countUsers(db: Kysely<Tables>): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  // count(*) is int8 on PostgreSQL, which storage/database.ts parses to a number.
  return row.n;
}

/** Inserts a user; returns false when the email is taken in the tenant (or among operators). */
export async function insertUser(db: Kysely<Tables>, user: UserRow): Promise<boolean> {
  const inserted = await db
    .insertInto('users')
    .values(user)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * A page of the tenant's active users by email (unique, so it is the keyset), optionally those
 * whose email or name starts with `prefix` (case-insensitive). Never operators: they have no tenant.
 */
export function pageTenantUsers(
  db: Kysely<Tables>,
  tenantId: number,
  options: { prefix?: string; limit: number; afterEmail?: string },
): Promise<UserRow[]> {
  let query = db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('disabled_at', 'is', null);
  if (options.prefix) {
    // Emails are stored lower-cased; names as typed.
    const prefix = options.prefix.toLowerCase();
    query = query.where((eb) => eb.or([likeStartsWith('email', prefix), likeStartsWith(sql`lower(name)`, prefix)]));
  }
  if (options.afterEmail !== undefined) query = query.where('email', '>', options.afterEmail);
  return query.orderBy('email').limit(options.limit).execute();
}

export type UserCodeRow = Selectable<UserCodesTable>;

/** One person of the tenant, deleted ones left out. */
export function findTenantUser(db: Kysely<Tables>, tenantId: number, id: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export type UserListStatus = 'active' | 'disabled' | 'any';

/** A page of the tenant's people (not deleted) by email, for the Users page: any status. */
export function pageManagedUsers(
  db: Kysely<Tables>,
  tenantId: number,
  options: { prefix?: string; status: UserListStatus; limit: number; afterEmail?: string },
): Promise<UserRow[]> {
  let query = db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('deleted_at', 'is', null);
  if (options.status === 'active') query = query.where('disabled_at', 'is', null);
  if (options.status === 'disabled') query = query.where('disabled_at', 'is not', null);
  if (options.prefix) {
    const prefix = options.prefix.toLowerCase();
    query = query.where((eb) => eb.or([likeStartsWith('email', prefix), likeStartsWith(sql`lower(name)`, prefix)]));
  }
  if (options.afterEmail !== undefined) query = query.where('email', '>', options.afterEmail);
  return query.orderBy('email').limit(options.limit).execute();
}

export function updateUserRow(
  db: Kysely<Tables>,
  tenantId: number,
  id: string,
  patch: Partial<Pick<UserRow, 'role' | 'name' | 'email' | 'disabled_at' | 'deleted_at' | 'password_hash'>>,
): Promise<unknown> {
  return db.updateTable('users').set(patch).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

/**
 * Locks the tenant's set of admins until the transaction ends: a write to the tenant's row that
 * changes nothing. On PostgreSQL it holds the row (not its key: rows referring to the tenant are
 * still written freely), so a second transaction guarding the last admin waits here for the
 * first to end; SQLite's write transactions run one at a time already.
 */
export async function lockTenantAdmins(db: Kysely<Tables>, tenantId: number): Promise<void> {
  await db
    .updateTable('tenants')
    .set((eb) => ({ name: eb.ref('name') }))
    .where('id', '=', tenantId)
    .execute();
}

/**
 * The tenant's active admins, counted after taking lockTenantAdmins: inside the transaction
 * that takes an admin away, two such changes cannot both count the other admin and leave none.
 */
export async function countActiveAdmins(db: Kysely<Tables>, tenantId: number): Promise<number> {
  await lockTenantAdmins(db, tenantId);
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('role', '=', 'admin')
    .where('disabled_at', 'is', null)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return row.n;
}

export function insertUserCode(db: Kysely<Tables>, code: UserCodeRow): Promise<unknown> {
  return db.insertInto('user_codes').values(code).execute();
}

/** Deletes a person's one-time codes (or the one given); returns how many went. */
export async function deleteUserCodes(db: Kysely<Tables>, userId: string, codeHash?: string): Promise<number> {
  let query = db.deleteFrom('user_codes').where('user_id', '=', userId);
  if (codeHash !== undefined) query = query.where('code_hash', '=', codeHash);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

export async function findUserCode(
  db: Kysely<Tables>,
  codeHash: string,
): Promise<{ code: UserCodeRow; user: UserRow } | undefined> {
  const code = await db.selectFrom('user_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  if (!code) return undefined;
  const user = await db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', code.user_id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return user ? { code, user } : undefined;
}
