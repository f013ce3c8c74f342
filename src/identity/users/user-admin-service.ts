// Managing a tenant's people (docs/security.md, People and sessions): invite or create, change role,
// disable and re-enable, delete, and one-time codes to set a password. Every change that takes
// access away takes it away at once: sessions end, outstanding codes die, and the person's API
// tokens (and what those minted) are revoked, each saying why. Every change is audited.
import type { Kysely } from 'kysely';
import type { Role, Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { randomBase62 } from '../../core/ids.js';
import { sha256 } from '../../core/secrets.js';
import { recordAudit, type AuditAction } from '../audit/audit-service.js';
import { hashPassword } from './password.js';
import { rolePermissions, tenantRoles } from '../permissions.js';
import type { AuditActor } from '../principal.js';
import { deleteSecondFactor } from '../second-factor/second-factor-store.js';
import { deleteUserSessions } from '../sessions/session-store.js';
import { revokePersonTokens } from '../tokens/token-service.js';
import { checkPassword, createUser, NO_PASSWORD, presentUser, type User } from './user-service.js';
import {
  countActiveAdmins,
  deleteUserCodes,
  findTenantUser,
  findUserCode,
  insertUserCode,
  lockTenantAdmins,
  updateUserRow,
  type UserRow,
} from './user-store.js';

export const INVITATION_LIFETIME_MS = 7 * 86_400_000;
export const RESET_LIFETIME_MS = 24 * 3_600_000;

export type UserStatus = 'active' | 'invited' | 'disabled';

export interface ManagedUser extends User {
  status: UserStatus;
  disabled_at: string | null;
  last_login_at: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** `invited`: the person has not set a password yet (whether or not their link is still live). */
export function presentManagedUser(row: UserRow): ManagedUser {
  return {
    ...presentUser(row),
    status: row.disabled_at !== null ? 'disabled' : row.password_hash === NO_PASSWORD ? 'invited' : 'active',
    disabled_at: iso(row.disabled_at),
    last_login_at: iso(row.last_login_at),
  };
}

/** A one-time code as its holder receives it: the value, when it stops working, where to use it. */
export interface OneTimeCode {
  code: string;
  purpose: 'invitation' | 'password_reset';
  expires_at: string;
  /** The web UI page that takes it (the code rides in the fragment, which never reaches a server log). */
  path: string;
}

export interface Change {
  actor: AuditActor;
  ip: string | null;
  /** The person behind the call (a token's creator too): they may not lock themselves out. */
  personId?: string | null;
}

async function issueCode(
  trx: Kysely<Tables>,
  user: UserRow,
  purpose: OneTimeCode['purpose'],
  actor: AuditActor,
): Promise<OneTimeCode> {
  const code = `slc_${randomBase62(32)}`;
  const now = Date.now();
  const expiresAt = now + (purpose === 'invitation' ? INVITATION_LIFETIME_MS : RESET_LIFETIME_MS);
  // One live code per person: a new one replaces the last.
  await deleteUserCodes(trx, user.id);
  await insertUserCode(trx, {
    code_hash: sha256(code),
    user_id: user.id,
    purpose,
    created_at: now,
    expires_at: expiresAt,
    created_by: actor.label,
  });
  return { code, purpose, expires_at: new Date(expiresAt).toISOString(), path: `/set-password#code=${code}` };
}

/**
 * Adds a person to the tenant. With a password they can sign in at once; without one they get an
 * invitation code (7 days) to choose it themselves.
 */
export async function inviteUser(
  db: Kysely<Tables>,
  tenantId: number,
  input: { email: string; name?: string; role: Role; password?: string },
  change: Change,
): Promise<{ user: ManagedUser; invitation: OneTimeCode | null }> {
  if (!(tenantRoles as readonly string[]).includes(input.role))
    throw new AppError('invalid_request', `role must be one of ${tenantRoles.join(', ')}`, {
      extensions: { field: 'role' },
    });
  const created = await createUser(db, {
    tenantId,
    email: input.email,
    ...(input.name !== undefined ? { name: input.name } : {}),
    role: input.role,
    ...(input.password !== undefined ? { password: input.password } : { noPassword: true }),
    actor: change.actor,
  });
  const row = await requireUser(db, tenantId, created.user.id);
  if (input.password !== undefined) return { user: presentManagedUser(row), invitation: null };
  // Should this fail, the person stays invited and an admin issues a new link.
  const invitation = await db.transaction().execute((trx) => issueCode(trx, row, 'invitation', change.actor));
  return { user: presentManagedUser(row), invitation };
}

export async function requireUser(db: Kysely<Tables>, tenantId: number, id: string): Promise<UserRow> {
  const row = await findTenantUser(db, tenantId, id);
  if (!row) throw new AppError('not_found', `no user ${JSON.stringify(id)}`);
  return row;
}

export async function getManagedUser(db: Kysely<Tables>, tenantId: number, id: string): Promise<ManagedUser> {
  return presentManagedUser(await requireUser(db, tenantId, id));
}

/**
 * Refuses a change that would leave the tenant without an active admin, or lock out the caller.
 * The count holds the tenant's admins locked until the change commits: concurrent changes are
 * judged one after the other.
 */
async function guardAdmins(trx: Kysely<Tables>, row: UserRow, change: Change, losing: string): Promise<void> {
  if (change.personId === row.id)
    throw new AppError('user_change_refused', `you cannot ${losing} yourself; ask another admin`);
  if (row.role !== 'admin' || row.disabled_at !== null || row.tenant_id === null) return;
  if ((await countActiveAdmins(trx, row.tenant_id)) <= 1)
    throw new AppError(
      'user_change_refused',
      `${row.email} is the tenant's only active admin; make someone else admin first`,
    );
}

/** Takes every form of access away from a person at once (inside the caller's transaction). */
async function cutAccess(trx: Kysely<Tables>, row: UserRow, change: Change, reason: string): Promise<void> {
  await deleteUserSessions(trx, row.id);
  await deleteUserCodes(trx, row.id);
  if (row.tenant_id !== null) await revokePersonTokens(trx, row.tenant_id, row.id, { ...change, reason });
}

export interface UserUpdate {
  role?: Role;
  name?: string;
  disabled?: boolean;
}

export async function updateUser(
  db: Kysely<Tables>,
  tenantId: number,
  id: string,
  update: UserUpdate,
  change: Change,
): Promise<ManagedUser> {
  if (update.role !== undefined && !(tenantRoles as readonly string[]).includes(update.role))
    throw new AppError('invalid_request', `role must be one of ${tenantRoles.join(', ')}`, {
      extensions: { field: 'role' },
    });
  const name = update.name?.trim();
  if (name === '') throw new AppError('invalid_request', 'name must not be blank', { extensions: { field: 'name' } });
  await db.transaction().execute(async (trx) => {
    // Taken before the person is read: a concurrent change to the tenant's admins has ended.
    if (update.role !== undefined || update.disabled === true) await lockTenantAdmins(trx, tenantId);
    let row = await requireUser(trx, tenantId, id);
    const audit = (action: AuditAction, details: Record<string, unknown>) =>
      recordAudit(trx, { tenantId, action, actor: change.actor, ip: change.ip, target: { type: 'user', id }, details });
    if (update.role !== undefined && update.role !== row.role) {
      if (row.role === 'admin') await guardAdmins(trx, row, change, 'demote');
      await updateUserRow(trx, tenantId, id, { role: update.role });
      const revoked = await revokePersonTokens(trx, tenantId, id, {
        ...change,
        keep: rolePermissions[update.role],
        reason: `revoked because its creator ${row.email} became ${update.role}, a role without some of its permissions`,
      });
      await audit('user.role_changed', { email: row.email, from: row.role, to: update.role, tokens_revoked: revoked });
      row = { ...row, role: update.role };
    }
    if (name !== undefined && name !== row.name) {
      await updateUserRow(trx, tenantId, id, { name });
      await audit('user.renamed', { email: row.email, from: row.name, to: name });
    }
    if (update.disabled === true && row.disabled_at === null) {
      await guardAdmins(trx, row, change, 'disable');
      await updateUserRow(trx, tenantId, id, { disabled_at: Date.now() });
      await cutAccess(trx, row, change, `revoked because its creator ${row.email} was disabled`);
      await audit('user.disabled', { email: row.email });
    } else if (update.disabled === false && row.disabled_at !== null) {
      await updateUserRow(trx, tenantId, id, { disabled_at: null });
      await audit('user.enabled', { email: row.email });
    }
  });
  return getManagedUser(db, tenantId, id);
}

/**
 * Deletes a person: the row stays (with its name, so cases, comments and the audit log still say
 * who), the email is freed for a new account, and they can never sign in again.
 */
export async function deleteUser(db: Kysely<Tables>, tenantId: number, id: string, change: Change): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockTenantAdmins(trx, tenantId);
    const row = await requireUser(trx, tenantId, id);
    await guardAdmins(trx, row, change, 'delete');
    const now = Date.now();
    await updateUserRow(trx, tenantId, id, {
      deleted_at: now,
      disabled_at: row.disabled_at ?? now,
      email: `deleted+${id}@users.invalid`,
      password_hash: NO_PASSWORD,
    });
    await cutAccess(trx, row, change, `revoked because its creator ${row.email} was deleted`);
    await deleteSecondFactor(trx, tenantId, id);
    await recordAudit(trx, {
      tenantId,
      action: 'user.deleted',
      actor: change.actor,
      ip: change.ip,
      target: { type: 'user', id },
      details: { email: row.email, name: row.name },
    });
  });
}

/** A one-time code (24 hours) with which the person sets a new password; it replaces any other. */
export async function issuePasswordReset(
  db: Kysely<Tables>,
  tenantId: number,
  id: string,
  change: Change,
): Promise<OneTimeCode> {
  return db.transaction().execute(async (trx) => {
    const row = await requireUser(trx, tenantId, id);
    // Another tenant's user is not found, whoever asks; then only a person may go on: a leaked
    // token must not open a way into someone's account.
    if (change.actor.type === 'token')
      throw new AppError('session_required', 'only a signed-in admin may issue a password reset code');
    if (row.disabled_at !== null)
      throw new AppError('user_change_refused', `${row.email} is disabled; enable them before resetting the password`);
    // Someone who never set a password gets a new invitation instead.
    const code = await issueCode(
      trx,
      row,
      row.password_hash === NO_PASSWORD ? 'invitation' : 'password_reset',
      change.actor,
    );
    await recordAudit(trx, {
      tenantId,
      action: 'user.password_reset_issued',
      actor: change.actor,
      ip: change.ip,
      target: { type: 'user', id },
      details: { email: row.email, expires_at: code.expires_at },
    });
    return code;
  });
}

/** The person a live one-time code belongs to, or a 404 that says nothing more. */
async function liveCode(db: Kysely<Tables>, code: string) {
  const found = code.startsWith('slc_') ? await findUserCode(db, sha256(code)) : undefined;
  if (!found || found.code.expires_at <= Date.now() || found.user.disabled_at !== null)
    throw new AppError('invalid_code', 'this link or code is not valid: it was used, replaced or expired');
  return found;
}

export async function describeCode(db: Kysely<Tables>, code: string) {
  const { code: row, user } = await liveCode(db, code);
  return {
    email: user.email,
    name: user.name,
    purpose: row.purpose,
    expires_at: new Date(row.expires_at).toISOString(),
  };
}

/** Sets the password a one-time code allows, ends every session the person had, and spends the code. */
export async function redeemCode(db: Kysely<Tables>, code: string, password: string, ip: string): Promise<string> {
  const { code: row, user } = await liveCode(db, code);
  checkPassword(password, [user.email, user.name]);
  const hash = await hashPassword(password);
  await db.transaction().execute(async (trx) => {
    // Spent inside the transaction: of two concurrent uses, one finds nothing to delete.
    if ((await deleteUserCodes(trx, user.id, row.code_hash)) === 0)
      throw new AppError('invalid_code', 'this link or code is not valid: it was used, replaced or expired');
    if (user.tenant_id !== null) await updateUserRow(trx, user.tenant_id, user.id, { password_hash: hash });
    await deleteUserSessions(trx, user.id);
    await recordAudit(trx, {
      tenantId: user.tenant_id,
      action: row.purpose === 'invitation' ? 'user.invitation_accepted' : 'user.password_reset',
      actor: { type: 'user', id: user.id, label: user.email },
      ip,
      target: { type: 'user', id: user.id },
    });
  });
  return user.email;
}
