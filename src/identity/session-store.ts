// SQL for web sessions. Rows are keyed by the SHA-256 of the cookie value.
import type { Kysely, Selectable } from 'kysely';
import type { SessionsTable, Tables } from '../storage/schema.js';
import type { UserRow } from './user-store.js';

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
    ])
    .where('s.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { tenant_id, email, name, role, password_hash, user_created_at, disabled_at, ...session } = row;
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
