// Web sessions for people: sign-in with email and password (and the second factor, when on), an httpOnly cookie whose SHA-256
// keys the session row, a CSRF token derived from the cookie for writes, idle and absolute
// expiry, sign-out.
import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { recordAudit } from '../audit/audit-service.js';
import { decoyHash, verifyPassword } from '../users/password.js';
import { rolePermissions } from '../permissions.js';
import type { Principal } from '../principal.js';
import { randomBase62 } from '../../core/ids.js';
import { sha256 } from '../../core/secrets.js';
import {
  deleteExpiredSessions,
  deleteSession,
  findSessionWithUser,
  insertSession,
  recordLogin,
  touchSession,
} from './session-store.js';
import { findUserByEmail, type UserRow } from '../users/user-store.js';
import { checkSecondFactor, type SecondFactorProof } from '../second-factor/second-factor-service.js';

export const SESSION_COOKIE = 'sightline_session';
/** A session ends this long after its last use... */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** ...and in any case this long after sign-in. */
export const SESSION_MAX_MS = 7 * 86_400_000;
const TOUCH_RESOLUTION_MS = 60_000;

/** The CSRF token of a session: derived from the cookie, so only its holder can know it. */
export function csrfTokenFor(cookieValue: string): string {
  return crypto.createHash('sha256').update(`csrf\0${cookieValue}`).digest('base64url');
}

export interface LoginInput {
  email: string;
  password: string;
  /** The second factor, when the account has one: a TOTP code or a recovery code. */
  secondFactor?: SecondFactorProof;
  ip: string;
  userAgent: string;
}

export interface LoginResult {
  cookieValue: string;
  csrfToken: string;
  expiresAt: number;
  user: UserRow;
}

/** Signs a person in. Unknown email and wrong password fail alike, in the same time. */
export async function login(db: Kysely<Tables>, input: LoginInput): Promise<LoginResult> {
  const email = input.email.trim().toLowerCase();
  const user = await findUserByEmail(db, email);
  // Accounts without a password (invited, not yet accepted) are checked against the decoy too,
  // so that their answer takes as long as any other and does not reveal them.
  const usable = user?.password_hash.startsWith('scrypt$') ? user.password_hash : undefined;
  const valid = (await verifyPassword(input.password, usable ?? (await decoyHash()))) && usable !== undefined;
  if (!user || !valid || !isActiveUser(user)) {
    await recordAudit(db, {
      tenantId: user?.tenant_id ?? null,
      action: 'auth.login_failed',
      outcome: 'failure',
      actor: { type: 'anonymous', id: user?.id ?? null, label: email },
      ip: input.ip,
      details: { reason: !user ? 'unknown_email' : !isActiveUser(user) ? 'disabled' : 'wrong_password' },
    });
    throw new AppError('invalid_credentials', 'email or password is wrong');
  }
  await checkSecondFactor(db, user, input.secondFactor ?? {}, input.ip);
  return startSession(db, user, { ip: input.ip, userAgent: input.userAgent, method: 'password' });
}

/**
 * Opens a web session for a person whose identity was already proven (password, single sign-on):
 * a fresh random cookie, its SHA-256 stored, the sign-in audited.
 */
export async function startSession(
  db: Kysely<Tables>,
  user: UserRow,
  context: { ip: string; userAgent: string; method: 'password' | 'sso' },
): Promise<LoginResult> {
  const now = Date.now();
  await deleteExpiredSessions(db, now, now - SESSION_IDLE_MS);
  await recordLogin(db, user.id, now);
  const cookieValue = randomBase62(43);
  const expiresAt = now + SESSION_MAX_MS;
  await insertSession(db, {
    id: sha256(cookieValue),
    user_id: user.id,
    created_at: now,
    last_seen_at: now,
    expires_at: expiresAt,
    ip: context.ip,
    user_agent: context.userAgent.slice(0, 512),
  });
  await recordAudit(db, {
    tenantId: user.tenant_id,
    action: 'auth.login',
    actor: { type: 'user', id: user.id, label: user.email },
    ip: context.ip,
    ...(context.method === 'password' ? {} : { details: { method: context.method } }),
  });
  return { cookieValue, csrfToken: csrfTokenFor(cookieValue), expiresAt, user };
}

/** A person who may sign in and act: neither disabled nor deleted. */
export function isActiveUser(user: Pick<UserRow, 'disabled_at' | 'deleted_at'>): boolean {
  return user.disabled_at === null && user.deleted_at === null;
}

/**
 * The public id of a session (`ses_…`): derived from the row key, which is itself the SHA-256 of
 * the cookie, so neither the cookie nor the key can be recovered from it.
 */
export function sessionHandle(sessionKey: string): string {
  return `ses_${crypto.createHash('sha256').update(`session-handle\0${sessionKey}`).digest('base64url').slice(0, 22)}`;
}

export function userPrincipal(user: UserRow, csrfToken?: string): Principal {
  return {
    kind: 'user',
    id: user.id,
    label: user.email,
    userId: user.id,
    role: user.role,
    tenantId: user.tenant_id,
    operator: user.role === 'operator',
    permissions: new Set(rolePermissions[user.role]),
    expiresAt: null,
    ...(csrfToken ? { csrfToken } : {}),
  };
}

/** The principal of a session cookie, or why there is none. */
export async function resolveSession(
  db: Kysely<Tables>,
  cookieValue: string,
  now = Date.now(),
): Promise<
  { ok: true; principal: Principal; expiresAt: number } | { ok: false; code: 'session_expired' | 'invalid_credentials' }
> {
  const found = await findSessionWithUser(db, sha256(cookieValue));
  // No such session, or its user is disabled or deleted.
  if (!found || !isActiveUser(found.user)) return { ok: false, code: 'invalid_credentials' };
  const { session, user } = found;
  if (session.expires_at <= now || session.last_seen_at + SESSION_IDLE_MS <= now) {
    await deleteSession(db, session.id);
    return { ok: false, code: 'session_expired' };
  }
  if (now - session.last_seen_at >= TOUCH_RESOLUTION_MS) await touchSession(db, session.id, now);
  return {
    ok: true,
    principal: userPrincipal(user, csrfTokenFor(cookieValue)),
    expiresAt: Math.min(session.expires_at, now + SESSION_IDLE_MS),
  };
}

export async function logout(db: Kysely<Tables>, cookieValue: string, principal: Principal, ip: string): Promise<void> {
  await deleteSession(db, sha256(cookieValue));
  await recordAudit(db, {
    tenantId: principal.tenantId,
    action: 'auth.logout',
    actor: { type: 'user', id: principal.id, label: principal.label },
    ip,
  });
}
