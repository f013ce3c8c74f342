// People: tenant members with a role, and platform operators. Creates users (CLI, first start)
// and presents them; passwords are only ever handled as scrypt hashes.
import type { Kysely } from 'kysely';
import type { Role, Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { isEmail } from '../../config/config.js';
import { recordAudit } from '../audit/audit-service.js';
import { generatePassword, hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './password.js';
import { weakPasswordReason } from './password-strength.js';
import { rolePermissions, roles, type Permission } from '../permissions.js';
import type { AuditActor } from '../principal.js';
import { newId } from '../../core/ids.js';
import { countUsers, insertUser, pageTenantUsers, type UserRow } from './user-store.js';

/** The password hash of an account without a password: no password matches it. */
export const NO_PASSWORD = '!none';

export interface User {
  id: string;
  email: string;
  name: string;
  role: Role;
  permissions: Permission[];
  created_at: string;
}

export function presentUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    permissions: [...rolePermissions[row.role]],
    created_at: new Date(row.created_at).toISOString(),
  };
}

/**
 * A password must be 12 to 1024 characters and hard to guess (password-strength.ts), judged
 * with the account's email and name as words a guesser would try.
 */
export function checkPassword(password: string, personal: readonly string[] = []): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new AppError(
      'invalid_request',
      `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
      { extensions: { field: 'password' } },
    );
  }
  const weak = weakPasswordReason(password, personal);
  if (weak !== undefined) {
    throw new AppError('invalid_request', `password refused: ${weak}`, {
      extensions: { field: 'password', reason: 'weak_password' },
    });
  }
}

export interface CreateUserInput {
  /** The user's tenant; null for a platform operator. */
  tenantId: number | null;
  email: string;
  name?: string;
  role: Role;
  /** Undefined: generate one (returned once). */
  password?: string;
  /** No password at all: the person sets theirs with an invitation code. */
  noPassword?: boolean;
  actor: AuditActor;
}

export async function createUser(
  db: Kysely<Tables>,
  input: CreateUserInput,
): Promise<{ user: User; generatedPassword?: string }> {
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email))
    throw new AppError('invalid_request', `email ${JSON.stringify(input.email)} is not an email address`, {
      extensions: { field: 'email' },
    });
  if (!roles.includes(input.role))
    throw new AppError('invalid_request', `role must be one of ${roles.join(', ')}`, { extensions: { field: 'role' } });
  if ((input.role === 'operator') !== (input.tenantId === null)) {
    throw new AppError(
      'invalid_request',
      input.role === 'operator' ? 'operators belong to no tenant' : `a ${input.role} belongs to a tenant; name it`,
    );
  }
  const password = input.password ?? generatePassword();
  const generatedPassword = input.password === undefined && !input.noPassword ? password : undefined;
  // A generated password is random (143 bits); a chosen one must pass the strength check.
  if (generatedPassword === undefined) checkPassword(password, [email, input.name ?? '']);
  // A blank name is no name: the email stands in.
  const name = input.name?.trim() ?? '';
  const row: UserRow = {
    id: newId('usr'),
    tenant_id: input.tenantId,
    email,
    name: name === '' ? email : name,
    role: input.role,
    password_hash: input.noPassword ? NO_PASSWORD : await hashPassword(password),
    created_at: Date.now(),
    disabled_at: null,
    deleted_at: null,
    last_login_at: null,
  };
  await db.transaction().execute(async (trx) => {
    if (!(await insertUser(trx, row)))
      throw new AppError(
        'user_exists',
        input.tenantId === null
          ? `an operator with email ${JSON.stringify(email)} already exists`
          : `a person with email ${JSON.stringify(email)} is already a member of this tenant`,
      );
    await recordAudit(trx, {
      tenantId: input.tenantId,
      action: 'user.created',
      actor: input.actor,
      target: { type: 'user', id: row.id },
      details: { email, role: row.role },
    });
  });
  return { user: presentUser(row), ...(generatedPassword ? { generatedPassword } : {}) };
}

/**
 * On first start with no users, create the platform operator so someone can sign in. Returns
 * the generated password when none was configured (to be shown once), or nothing.
 */
export async function ensureFirstOperator(
  db: Kysely<Tables>,
  settings: { adminEmail: string; adminPassword: string },
): Promise<{ user: User; generatedPassword?: string } | undefined> {
  if ((await countUsers(db)) > 0) return undefined;
  return createUser(db, {
    tenantId: null,
    email: settings.adminEmail,
    name: 'Platform operator',
    role: 'operator',
    ...(settings.adminPassword ? { password: settings.adminPassword } : {}),
    actor: { type: 'system', id: null, label: 'first start' },
  });
}

/** A tenant member as pickers show it (assignee, mentions): no permissions, no timestamps. */
export interface Member {
  id: string;
  email: string;
  name: string;
  role: Role;
}

export function presentMember(row: UserRow): Member {
  return { id: row.id, email: row.email, name: row.name, role: row.role };
}

/**
 * The tenant's active users, by email, a page at a time; `q` keeps those whose email or name
 * starts with it. Disabled users are left out: they cannot be assigned anything.
 */
export async function listMembers(
  db: Kysely<Tables>,
  tenantId: number,
  options: { q?: string; limit: number; afterEmail?: string },
): Promise<{ members: Member[]; nextEmail: string | null }> {
  const q = options.q?.trim();
  const rows = await pageTenantUsers(db, tenantId, {
    limit: options.limit + 1,
    ...(q ? { prefix: q } : {}),
    ...(options.afterEmail !== undefined ? { afterEmail: options.afterEmail } : {}),
  });
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    members: page.map(presentMember),
    nextEmail: rows.length > options.limit && last ? last.email : null,
  };
}
