// Which tenant a tenant-scoped call acts in. A member acts in their own tenant; a platform
// operator in the one named by the Sightline-Tenant header; a partner's caller in the named tenant
// when the partner serves it, with what it may do there, or, on the routes that say so, across
// every tenant it serves at once. A tenant out of the caller's reach answers exactly as one that
// does not exist.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { AppError } from '../core/errors.js';
import type { Permission } from './permissions.js';
import type { PartnerAccess, Principal } from './principal.js';
import { findTenantById, type TenantRow } from './tenants/tenant-store.js';
import { requireTenantByCodeName } from './tenants/tenant-service.js';

export const TENANT_HEADER = 'sightline-tenant';

export interface TenantScope {
  /** The one tenant the call acts in; null when it acts across a partner's tenants. */
  tenant: TenantRow | null;
  /** Across a partner's tenants: those where the caller holds what the route needs. */
  tenants: TenantRow[] | null;
  /** The caller, with the permissions it holds in the tenant acted in. */
  principal: Principal;
}

export interface ScopedRoute {
  /** The route takes a partner's call without a tenant named, across all its tenants. */
  acrossTenants: boolean;
  /** The permissions the route needs. */
  needs: readonly Permission[];
}

const notFound = (named: unknown) =>
  new AppError('tenant_not_found', `no tenant has the code name ${JSON.stringify(named)}`);

export async function resolveTenantScope(
  db: Kysely<Tables>,
  principal: Principal,
  named: string | string[] | undefined,
  route: ScopedRoute,
): Promise<TenantScope> {
  const name = typeof named === 'string' && named !== '' ? named : undefined;
  if (principal.partner) return partnerScope(principal, principal.partner, name, route);
  if (principal.operator) {
    if (name === undefined) {
      throw new AppError('tenant_required', `operators name the tenant of this call in the ${TENANT_HEADER} header`);
    }
    return { tenant: await requireTenantByCodeName(db, name), tenants: null, principal };
  }
  // A tenant member may repeat their own tenant, but naming another is indistinguishable
  // from naming one that does not exist.
  const tenant = principal.tenantId === null ? undefined : await findTenantById(db, principal.tenantId);
  if (!tenant || (name !== undefined && name !== tenant.code_name)) throw notFound(named);
  return { tenant, tenants: null, principal };
}

function partnerScope(
  principal: Principal,
  partner: PartnerAccess,
  name: string | undefined,
  route: ScopedRoute,
): TenantScope {
  if (name !== undefined) {
    const served = partner.tenants.find((entry) => entry.tenant.code_name === name);
    if (!served) throw notFound(name);
    return { tenant: served.tenant, tenants: null, principal: { ...principal, permissions: served.permissions } };
  }
  if (!route.acrossTenants) {
    throw new AppError(
      'tenant_required',
      'a partner names the tenant of this call in the Sightline-Tenant header: the code name of one of its tenants',
    );
  }
  const tenants = partner.tenants
    .filter((entry) => route.needs.every((permission) => entry.permissions.has(permission)))
    .map((entry) => entry.tenant);
  return { tenant: null, tenants, principal };
}
