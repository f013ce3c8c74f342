// SQL for web sessions. Rows are keyed by the SHA-256 of the cookie value.
import type { Kysely, Selectable } from 'kysely';
import type { SessionsTable, Tables } from '../../storage/schema.js';
import type { UserRow } from '../users/user-store.js';

export type SessionRow = Selectable<SessionsTable>;

export function insertSession(db: Kysely<Tables>, session: SessionRow): Promise<unknown> {
  return db.insertInto('sessions').values(session).execute();
}

export async function findSessionWithUser(
  db: Kysely<Tables>,
  id: string,
): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      's.id',
      's.user_id',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      's.ip',
      's.user_agent',
      'u.tenant_id',
      'u.email',
      'u.name',
      'u.role',
      'u.password_hash',
      'u.created_at as user_created_at',
      'u.disabled_at',
      'u.deleted_at',
      'u.last_login_at',
    ])
    .where('s.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const {
    tenant_id,
    email,
    name,
    role,
    password_hash,
    user_created_at,
    disabled_at,
    deleted_at,
    last_login_at,
    ...session
  } = row;
  return {
    session,
    user: {
      id: session.user_id,
      tenant_id,
      email,
      name,
      role,
      password_hash,
      created_at: user_created_at,
      disabled_at,
      deleted_at,
      last_login_at,
    },
  };
}

export function touchSession(db: Kysely<Tables>, id: string, lastSeenAt: number): Promise<unknown> {
  return db.updateTable('sessions').set({ last_seen_at: lastSeenAt }).where('id', '=', id).execute();
}

export function deleteSession(db: Kysely<Tables>, id: string): Promise<unknown> {
  return db.deleteFrom('sessions').where('id', '=', id).execute();
}

export function deleteExpiredSessions(db: Kysely<Tables>, now: number, idleBefore: number): Promise<unknown> {
  return db
    .deleteFrom('sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleBefore)]))
    .execute();
}

/** A person's live sessions, newest first. */
export function listUserSessions(
  db: Kysely<Tables>,
  userId: string,
  now: number,
  idleBefore: number,
): Promise<SessionRow[]> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>=', idleBefore)
    .orderBy('last_seen_at', 'desc')
    .execute();
}

/** Ends sessions of a person: all of them, or those listed. Returns how many ended. */
export async function deleteUserSessions(db: Kysely<Tables>, userId: string, ids?: readonly string[]): Promise<number> {
  if (ids?.length === 0) return 0;
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (ids) query = query.where('id', 'in', ids);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

export function recordLogin(db: Kysely<Tables>, userId: string, at: number): Promise<unknown> {
  return db.updateTable('users').set({ last_login_at: at }).where('id', '=', userId).execute();
}
