// SQL for users. Tenant members are read through their tenant; operators (tenant_id null)
// and login, which starts from an email alone, are the two platform-wide reads.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Tables, UsersTable } from '../storage/schema.js';
import { likeStartsWith } from '../storage/like.js';

export type UserRow = Selectable<UsersTable>;

export function findUserByEmail(db: Kysely<Tables>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function listTenantUsers(db: Kysely<Tables>, tenantId: number): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).orderBy('email').execute();
}

export async function countUsers(db: Kysely<Tables>): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  // count(*) is int8 on PostgreSQL, which storage/database.ts parses to a number.
  return row.n;
}

/** Inserts a user; returns false when the email is taken. */
export async function insertUser(db: Kysely<Tables>, user: UserRow): Promise<boolean> {
  const inserted = await db
    .insertInto('users')
    .values(user)
    .onConflict((oc) => oc.column('email').doNothing())
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
