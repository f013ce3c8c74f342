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
import { findAccountsByEmail, findOperatorByEmail, findTenantUserByEmail, type UserRow } from '../users/user-store.js';
import { findTenantByCodeName, findTenantById } from '../tenants/tenant-store.js';
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
  /**
   * Which account, when the email holds several: a tenant's code name, or null for the platform
   * operator's. Undefined: any account this email and password open.
   */
  tenant?: string | null;
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

/** The most accounts one email may hold across tenants that a sign-in tries at once. */
export const MAX_ACCOUNTS_PER_EMAIL = 20;

/** One of the accounts an email and password opened, as the sign-in page offers it. */
export interface AccountChoice {
  /** The tenant's code name; null for the platform operator's account. */
  code_name: string | null;
  name: string;
}

/**
 * Signs a person in. Unknown email and wrong password fail alike, in the same time. An email may
 * hold accounts in several tenants: when the password opens more than one and the sign-in named
 * no tenant, it answers which (to someone who has just proven the password for each).
 */
export async function login(db: Kysely<Tables>, input: LoginInput): Promise<LoginResult> {
  const email = input.email.trim().toLowerCase();
  const accounts = await candidateAccounts(db, email, input.tenant);
  const opened = await accountsOpenedBy(accounts, input.password);
  const active = opened.filter(isActiveUser);
  const [user, ...others] = active;
  if (!user) {
    await auditFailedLogin(db, email, accounts, opened, input.ip);
    throw new AppError('invalid_credentials', 'email or password is wrong');
  }
  if (others.length > 0) {
    throw new AppError('tenant_choice_required', 'this email and password open several accounts: name the tenant', {
      extensions: { tenants: await accountChoices(db, active) },
    });
  }
  await checkSecondFactor(db, user, input.secondFactor ?? {}, input.ip);
  return startSession(db, user, { ip: input.ip, userAgent: input.userAgent, method: 'password' });
}

async function candidateAccounts(db: Kysely<Tables>, email: string, tenant: string | null | undefined) {
  if (tenant === null) {
    const operator = await findOperatorByEmail(db, email);
    return operator ? [operator] : [];
  }
  if (tenant === undefined) return findAccountsByEmail(db, email, MAX_ACCOUNTS_PER_EMAIL);
  const row = await findTenantByCodeName(db, tenant);
  const member = row ? await findTenantUserByEmail(db, row.id, email) : undefined;
  return member ? [member] : [];
}

/**
 * The accounts whose password this is, every hash checked at once. Accounts without a password
 * (invited, not yet accepted), and no account at all, are checked against the decoy, so that
 * the answer takes as long as any other and reveals neither.
 */
async function accountsOpenedBy(accounts: UserRow[], password: string): Promise<UserRow[]> {
  const usable = accounts.filter((account) => account.password_hash.startsWith('scrypt$'));
  if (usable.length === 0) {
    await verifyPassword(password, await decoyHash());
    return [];
  }
  const valid = await Promise.all(usable.map((account) => verifyPassword(password, account.password_hash)));
  return usable.filter((_, i) => valid[i]);
}

/** A failed sign-in, in the audit log of each tenant whose member's email it named. */
async function auditFailedLogin(
  db: Kysely<Tables>,
  email: string,
  accounts: UserRow[],
  opened: UserRow[],
  ip: string,
): Promise<void> {
  const targets: (UserRow | undefined)[] = accounts.length > 0 ? accounts : [undefined];
  for (const account of targets) {
    const reason = !account ? 'unknown_email' : opened.includes(account) ? 'disabled' : 'wrong_password';
    await recordAudit(db, {
      tenantId: account?.tenant_id ?? null,
      action: 'auth.login_failed',
      outcome: 'failure',
      actor: { type: 'anonymous', id: account?.id ?? null, label: email },
      ip,
      details: { reason },
    });
  }
}

async function accountChoices(db: Kysely<Tables>, accounts: UserRow[]): Promise<AccountChoice[]> {
  const choices: AccountChoice[] = [];
  for (const account of accounts) {
    if (account.tenant_id === null) {
      choices.push({ code_name: null, name: 'Platform operator' });
      continue;
    }
    const tenant = await findTenantById(db, account.tenant_id);
    if (tenant) choices.push({ code_name: tenant.code_name, name: tenant.name });
  }
  return choices.sort((a, b) => (a.code_name ?? '').localeCompare(b.code_name ?? ''));
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
