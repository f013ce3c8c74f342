// A tenant's single sign-on settings: read (never the client secret), replaced after discovery
// against the provider succeeds, deleted; every change audited, and so is a discovery that
// failed (its reason goes to the server log only). Sign-in itself is in sso-sign-in.ts.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { recordAudit } from '../audit/audit-service.js';
import { tenantRoles } from '../permissions.js';
import type { AuditActor } from '../principal.js';
import type { TenantRow } from '../tenants/tenant-store.js';
import { discoverProvider, DiscoveryFailed, type ProviderCache } from './sso-provider.js';
import { describeDomains, domainName, type EmailDomain } from './sso-domains.js';
import { ssoSealer, type Sealer } from './sso-seal.js';
import { deleteSsoConfig, findSsoConfig, saveSsoConfig, type SsoConfigRow } from './sso-store.js';

export type TenantRole = (typeof tenantRoles)[number];

/** The path of the one redirect URI every tenant registers at its provider. */
export const SSO_CALLBACK_PATH = '/v1/auth/sso/callback';

export interface SsoSettingsInput {
  issuer: string;
  client_id: string;
  /** Left out: keep the secret already stored. */
  client_secret?: string;
  allowed_email_domains: string[];
  role_claim: string;
  role_mapping: Record<string, TenantRole>;
  default_role: TenantRole | null;
  enabled: boolean;
}

export interface SsoSettings extends Omit<SsoSettingsInput, 'client_secret'> {
  client_secret_set: true;
  /** The allowed domains, each with its verification: single sign-on accepts verified ones only. */
  email_domains: EmailDomain[];
  redirect_uri: string;
  sign_in_url: string;
  updated_at: string;
}

/** The settings as sign-in uses them, secret opened. */
export interface SsoConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  domains: string[];
  roleClaim: string;
  mapping: Record<string, TenantRole>;
  defaultRole: TenantRole | null;
  enabled: boolean;
}

export interface SsoContext {
  db: Kysely<Tables>;
  tenant: TenantRow;
  actor: AuditActor;
  ip: string;
  providers: ProviderCache;
  /** Where browsers reach this deployment (config/public-url.ts). */
  publicUrl: string;
  /** The server log, for what the tenant is not told (why discovery failed). */
  warn(details: Record<string, unknown>, message: string): void;
}

const secretContext = (tenantId: number) => `sso client secret of tenant ${tenantId}`;

export function openSsoConfig(row: SsoConfigRow, sealer: Sealer): SsoConfig {
  const clientSecret = sealer.open(row.client_secret_sealed, secretContext(row.tenant_id));
  if (clientSecret === undefined)
    throw new Error(`the SSO client secret of tenant ${row.tenant_id} does not open with this deployment's key`);
  return {
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret,
    domains: JSON.parse(row.allowed_email_domains) as string[],
    roleClaim: row.role_claim,
    mapping: JSON.parse(row.role_mapping) as Record<string, TenantRole>,
    defaultRole: row.default_role as TenantRole | null,
    enabled: row.enabled === 1,
  };
}

export async function presentSsoSettings(
  db: Kysely<Tables>,
  row: SsoConfigRow,
  tenant: TenantRow,
  publicUrl: string,
): Promise<SsoSettings> {
  const domains = JSON.parse(row.allowed_email_domains) as string[];
  return {
    issuer: row.issuer,
    client_id: row.client_id,
    client_secret_set: true,
    allowed_email_domains: domains,
    email_domains: await describeDomains(db, tenant.id, domains),
    role_claim: row.role_claim,
    role_mapping: JSON.parse(row.role_mapping) as Record<string, TenantRole>,
    default_role: row.default_role as TenantRole | null,
    enabled: row.enabled === 1,
    redirect_uri: `${publicUrl}${SSO_CALLBACK_PATH}`,
    sign_in_url: `${publicUrl}/v1/auth/sso/${tenant.code_name}/start`,
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export async function readSsoSettings(ctx: SsoContext): Promise<SsoSettings> {
  const row = await findSsoConfig(ctx.db, ctx.tenant.id);
  // Where to register the client is worth knowing before anything is configured.
  if (!row)
    throw new AppError('sso_not_configured', `tenant ${ctx.tenant.code_name} has no single sign-on configured`, {
      extensions: {
        redirect_uri: `${ctx.publicUrl}${SSO_CALLBACK_PATH}`,
        sign_in_url: `${ctx.publicUrl}/v1/auth/sso/${ctx.tenant.code_name}/start`,
      },
    });
  return presentSsoSettings(ctx.db, row, ctx.tenant, ctx.publicUrl);
}

function normaliseDomains(domains: readonly string[]): string[] {
  return [...new Set(domains.map((domain) => domainName(domain, 'allowed_email_domains')))];
}

/** Replaces the tenant's settings once discovery at the issuer succeeds (400/422 saying why otherwise). */
export async function saveSsoSettings(ctx: SsoContext, input: SsoSettingsInput): Promise<SsoSettings> {
  const { db, tenant } = ctx;
  const sealer = await ssoSealer(db);
  const existing = await findSsoConfig(db, tenant.id);
  const clientSecret = input.client_secret ?? (existing ? openSsoConfig(existing, sealer).clientSecret : undefined);
  if (clientSecret === undefined)
    throw new AppError('invalid_request', 'client_secret is required the first time single sign-on is configured', {
      extensions: { field: 'client_secret' },
    });
  const domains = normaliseDomains(input.allowed_email_domains);
  // Never operator, whatever reached here: single sign-on makes tenant members only.
  const roles: readonly string[] = tenantRoles;
  const badRole = [input.default_role, ...Object.values(input.role_mapping)].find(
    (role) => role !== null && !roles.includes(role),
  );
  if (badRole !== undefined)
    throw new AppError('invalid_request', `role ${JSON.stringify(badRole)} is not one of ${tenantRoles.join(', ')}`, {
      extensions: { field: 'role_mapping' },
    });
  const issuer = input.issuer.trim();
  await discover(ctx, issuer, input.client_id, clientSecret);
  const now = Date.now();
  const row: SsoConfigRow = {
    tenant_id: tenant.id,
    issuer,
    client_id: input.client_id,
    client_secret_sealed: sealer.seal(clientSecret, secretContext(tenant.id)),
    allowed_email_domains: JSON.stringify(domains),
    role_claim: input.role_claim,
    role_mapping: JSON.stringify(input.role_mapping),
    default_role: input.default_role,
    enabled: input.enabled ? 1 : 0,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  await db.transaction().execute(async (trx) => {
    await saveSsoConfig(trx, tenant.id, row);
    await recordAudit(trx, {
      tenantId: tenant.id,
      action: 'sso.configured',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'tenant', id: tenant.code_name },
      details: {
        issuer,
        client_id: input.client_id,
        client_secret_changed: input.client_secret !== undefined,
        allowed_email_domains: domains,
        role_claim: input.role_claim,
        role_mapping: input.role_mapping,
        default_role: input.default_role,
        enabled: input.enabled,
      },
    });
  });
  ctx.providers.forget(tenant.id);
  return presentSsoSettings(db, row, tenant, ctx.publicUrl);
}

/** Discovery at the issuer; a failure is logged with its reason, audited without it, and rethrown. */
async function discover(ctx: SsoContext, issuer: string, clientId: string, clientSecret: string): Promise<void> {
  try {
    await discoverProvider(issuer, clientId, clientSecret, ctx.providers.access);
  } catch (error) {
    if (!(error instanceof DiscoveryFailed)) throw error;
    ctx.warn({ tenant: ctx.tenant.code_name, issuer, reason: error.reason }, 'single sign-on discovery failed');
    await recordAudit(ctx.db, {
      tenantId: ctx.tenant.id,
      action: 'sso.configured',
      outcome: 'failure',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'tenant', id: ctx.tenant.code_name },
      details: { issuer, client_id: clientId, reason: 'discovery_failed' },
    });
    throw error;
  }
}

export async function deleteSsoSettings(ctx: SsoContext): Promise<void> {
  const { db, tenant } = ctx;
  await db.transaction().execute(async (trx) => {
    if (!(await deleteSsoConfig(trx, tenant.id)))
      throw new AppError('sso_not_configured', `tenant ${tenant.code_name} has no single sign-on configured`);
    await recordAudit(trx, {
      tenantId: tenant.id,
      action: 'sso.deleted',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'tenant', id: tenant.code_name },
    });
  });
  ctx.providers.forget(tenant.id);
}
