// What the provider's claims say about a person, judged against the tenant's settings: a
// verified email in an allowed domain, and the role its role claim maps to. Pure functions, so
// the rules read in one place.
import type { SsoConfig, TenantRole } from './sso-service.js';

export type ClaimRefusal = 'email_not_verified' | 'domain_not_allowed';

/** Most privileged first: when several claim values map, the person gets the highest role. */
const rank: readonly TenantRole[] = ['admin', 'analyst', 'viewer'];

/** The verified, allowed email of the claims (lower-cased), or why there is none. */
export function allowedEmail(
  claims: Record<string, unknown>,
  config: Pick<SsoConfig, 'domains'>,
): { email: string } | { refusal: ClaimRefusal } {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  // Some providers send the boolean as a string; anything else is not a verification.
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  if (email === '' || !verified) return { refusal: 'email_not_verified' };
  const at = email.lastIndexOf('@');
  const domain = at > 0 ? email.slice(at + 1) : '';
  // The domain itself, not its subdomains: each allowed domain is named.
  if (!config.domains.includes(domain)) return { refusal: 'domain_not_allowed' };
  return { email };
}

/**
 * The role the claims map to: `mapped` when a claim value names one (the highest if several
 * do), else the default role, else none.
 */
export function claimedRole(
  claims: Record<string, unknown>,
  config: Pick<SsoConfig, 'roleClaim' | 'mapping' | 'defaultRole'>,
): { role: TenantRole; mapped: boolean } | undefined {
  const claim = claims[config.roleClaim];
  const values = (Array.isArray(claim) ? claim : [claim]).filter((value): value is string => typeof value === 'string');
  const mapped = values.flatMap((value) => (Object.hasOwn(config.mapping, value) ? [config.mapping[value]] : []));
  const best = rank.find((role) => mapped.includes(role));
  if (best) return { role: best, mapped: true };
  return config.defaultRole ? { role: config.defaultRole, mapped: false } : undefined;
}
