// The person a single sign-on signs in: the tenant's member with the provider's email (looked up
// in that tenant only: a person's identity belongs to their tenant), provisioned on first
// sign-in, signed in only through a link of the provider's subject (sso-links.ts), their role
// kept in step with the provider's.
import type { Kysely } from 'kysely';
import type { Role, Tables } from '../../storage/schema.js';
import { newId } from '../../core/ids.js';
import { recordAudit } from '../audit/audit-service.js';
import { rolePermissions } from '../permissions.js';
import { isActiveUser } from '../sessions/session-service.js';
import type { TenantRow } from '../tenants/tenant-store.js';
import { revokePersonTokens } from '../tokens/token-service.js';
import { countActiveAdmins, findTenantUserByEmail, type UserRow } from '../users/user-store.js';
import type { claimedRole } from './sso-claims.js';
import { checkLink, newLink, SSO_ONLY_PASSWORD, type ProviderIdentity } from './sso-links.js';
import type { TenantRole } from './sso-service.js';
import { SsoRefusal } from './sso-refusal.js';
import { insertTenantUser, saveSsoLink, updateTenantUserRole } from './sso-store.js';

const rank: Record<Role, number> = { viewer: 0, analyst: 1, admin: 2, operator: 3 };
const ssoActor = { type: 'system', id: null, label: 'single sign-on' } as const;

/**
 * A member's role after signing in through the provider: the mapped role when a claim value maps
 * to one; with none, never above the default role (someone removed from the provider's admin
 * group stops being admin). Lowering it revokes the tokens the new role could not hold, as an
 * admin's change does, and the tenant's last active admin is never demoted this way (kept and
 * audited as refused).
 */
async function followProviderRole(
  db: Kysely<Tables>,
  tenant: TenantRow,
  existing: UserRow,
  role: { role: TenantRole; mapped: boolean },
): Promise<UserRow> {
  const next = role.mapped || rank[existing.role] > rank[role.role] ? role.role : existing.role;
  if (next === existing.role) return existing;
  return db.transaction().execute(async (trx) => {
    const audit = (outcome: 'success' | 'failure', details: Record<string, unknown>) =>
      recordAudit(trx, {
        tenantId: tenant.id,
        action: 'user.role_changed',
        outcome,
        actor: ssoActor,
        target: { type: 'user', id: existing.id },
        details: { email: existing.email, from: existing.role, to: next, method: 'sso', ...details },
      });
    if (existing.role === 'admin' && (await countActiveAdmins(trx, tenant.id)) <= 1) {
      await audit('failure', { reason: 'last_admin' });
      return existing;
    }
    await updateTenantUserRole(trx, tenant.id, existing.id, next);
    const revoked = await revokePersonTokens(trx, tenant.id, existing.id, {
      actor: ssoActor,
      ip: null,
      keep: rolePermissions[next],
      reason: `revoked because its creator ${existing.email} became ${next} at the identity provider, a role without some of its permissions`,
    });
    await audit('success', { tokens_revoked: revoked });
    return { ...existing, role: next };
  });
}

export interface ProviderPerson extends ProviderIdentity {
  email: string;
  name: string;
  role: ReturnType<typeof claimedRole>;
}

/**
 * The tenant member with this email, provisioned (and linked) on first sign-in; their role
 * follows the provider's when a claim value maps to one. A disabled or deleted member is
 * refused; so, until they confirm the link, is a member with a password or second factor of
 * their own (`link_required`, with the pending link for the browser).
 */
export async function signedInUser(
  db: Kysely<Tables>,
  tenant: TenantRow,
  person: ProviderPerson,
  retried = false,
): Promise<UserRow> {
  const { email, role } = person;
  const existing = await findTenantUserByEmail(db, tenant.id, email);
  if (existing && !isActiveUser(existing))
    throw new SsoRefusal('account_unavailable', { audit: 'disabled', tenant, email });
  if (!role) throw new SsoRefusal('no_role', { tenant, email });
  if (existing) {
    const link = await checkLink(db, tenant, { ...existing, tenant_id: tenant.id }, person);
    if (!link.linked) throw new SsoRefusal('link_required', { tenant, email, linkCookie: link.cookie });
    return followProviderRole(db, tenant, existing, role);
  }
  const user: UserRow = {
    id: newId('usr'),
    tenant_id: tenant.id,
    email,
    name: person.name === '' ? email : person.name,
    role: role.role,
    // No password opens it: the person signs in through the provider.
    password_hash: SSO_ONLY_PASSWORD,
    created_at: Date.now(),
    disabled_at: null,
    deleted_at: null,
    last_login_at: null,
  };
  const created = await db.transaction().execute(async (trx) => {
    if (!(await insertTenantUser(trx, tenant.id, user))) return false;
    await saveSsoLink(trx, newLink(tenant.id, user.id, person, 'created'));
    await recordAudit(trx, {
      tenantId: tenant.id,
      action: 'user.created',
      actor: ssoActor,
      target: { type: 'user', id: user.id },
      details: { email, role: user.role, method: 'sso' },
    });
    return true;
  });
  if (created) return user;
  // Someone took the email meanwhile (a second sign-in at once): judge that account instead.
  if (retried) throw new SsoRefusal('account_unavailable', { audit: 'email_not_available', tenant, email });
  return signedInUser(db, tenant, person, true);
}
