// Who is calling: a person signed in with a session, or an API token. Every `/v1` request
// carries one (except login); permission checks and the audit log read it.
import type { Role } from '../storage/schema.js';
import type { Permission } from './permissions.js';
import type { TenantRow } from './tenants/tenant-store.js';

/**
 * A partner organisation's reach: the tenants it serves, each with what the caller may do there.
 * Read from the database at every call, so a tenant removed from the partner is out of reach at once.
 */
export interface PartnerAccess {
  id: string;
  codeName: string;
  name: string;
  /** By code name. */
  tenants: readonly { tenant: TenantRow; permissions: ReadonlySet<Permission> }[];
}

export interface Principal {
  kind: 'user' | 'token';
  /** User id or token id. */
  id: string;
  /** Email, or the token's name: what the audit log and token list show. */
  label: string;
  /** The person behind the call: the user, or the token's creator (null for CLI-made tokens). */
  userId: string | null;
  role: Role | null;
  /** The tenant the principal belongs to; null for platform operators and partners. */
  tenantId: number | null;
  operator: boolean;
  permissions: ReadonlySet<Permission>;
  /** When a token principal stops working (epoch ms); null for people and tokens that never expire. */
  expiresAt: number | null;
  /** Set for a partner's callers: they act in the partner's tenants, one named per call or all at once. */
  partner?: PartnerAccess;
  /** Set when authenticated by the session cookie: the CSRF token that writes must echo. */
  csrfToken?: string;
}

export interface AuditActor {
  type: 'user' | 'token' | 'cli' | 'system' | 'anonymous';
  id: string | null;
  label: string;
}

export function actorOf(principal: Principal): AuditActor {
  return { type: principal.kind, id: principal.id, label: principal.label };
}

export const cliActor: AuditActor = { type: 'cli', id: null, label: 'cli' };
