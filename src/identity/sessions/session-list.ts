// A person's web sessions as they and their admins see them: where and when each was used, which
// one is the caller's own, and ending them (one, all, or all but the current one).
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { recordAudit } from '../audit/audit-service.js';
import type { AuditActor } from '../principal.js';
import { SESSION_IDLE_MS, sessionHandle } from './session-service.js';
import { deleteUserSessions, listUserSessions } from './session-store.js';
import type { UserRow } from '../users/user-store.js';

export interface SessionInfo {
  id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ip: string;
  user_agent: string;
  /** The session of this very request. */
  current: boolean;
}

/** The person's live sessions, most recently used first; `currentKey` marks the caller's own. */
export async function listSessions(db: Kysely<Tables>, userId: string, currentKey?: string): Promise<SessionInfo[]> {
  const now = Date.now();
  const rows = await listUserSessions(db, userId, now, now - SESSION_IDLE_MS);
  return rows.map((row) => ({
    id: sessionHandle(row.id),
    created_at: new Date(row.created_at).toISOString(),
    last_seen_at: new Date(row.last_seen_at).toISOString(),
    expires_at: new Date(Math.min(row.expires_at, row.last_seen_at + SESSION_IDLE_MS)).toISOString(),
    ip: row.ip,
    user_agent: row.user_agent,
    current: row.id === currentKey,
  }));
}

/**
 * Ends the person's sessions: the one named by its `ses_…` id (404 when it is not theirs or
 * already ended), or all of them, optionally keeping `keepKey` (sign out everywhere else).
 */
export async function endSessions(
  db: Kysely<Tables>,
  user: Pick<UserRow, 'id' | 'email' | 'tenant_id'>,
  which: { id: string } | { all: true; keepKey?: string },
  change: { actor: AuditActor; ip: string | null },
): Promise<number> {
  const rows = await listUserSessions(db, user.id, 0, 0);
  const doomed =
    'id' in which
      ? rows.filter((row) => sessionHandle(row.id) === which.id)
      : rows.filter((row) => row.id !== which.keepKey);
  if ('id' in which && doomed.length === 0) throw new AppError('not_found', `no session ${JSON.stringify(which.id)}`);
  const ended = await deleteUserSessions(
    db,
    user.id,
    doomed.map((row) => row.id),
  );
  if (ended > 0)
    await recordAudit(db, {
      tenantId: user.tenant_id,
      action: 'session.revoked',
      actor: change.actor,
      ip: change.ip,
      target: { type: 'user', id: user.id },
      details: { email: user.email, sessions: doomed.map((row) => sessionHandle(row.id)) },
    });
  return ended;
}
