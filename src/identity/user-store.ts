// SQL for users. Tenant members are read through their tenant; operators (tenant_id null)
// and login, which starts from an email alone, are the two platform-wide reads.
import type { Kysely, Selectable } from 'kysely';
import type { Tables, UsersTable } from '../storage/schema.js';

export type UserRow = Selectable<UsersTable>;

export function findUserByEmail(db: Kysely<Tables>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function listTenantUsers(db: Kysely<Tables>, tenantId: number): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).orderBy('email').execute();
}

export async function countUsers(db: Kysely<Tables>): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Inserts a user; returns false when the email is taken. */
export async function insertUser(db: Kysely<Tables>, user: UserRow): Promise<boolean> {
  const inserted = await db.insertInto('users').values(user).onConflict((oc) => oc.column('email').doNothing()).returning('id').executeTakeFirst();
  return inserted !== undefined;
}
