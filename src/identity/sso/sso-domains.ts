// The email domains a tenant proved it holds. Single sign-on accepts a provider's email only in
// an allowed domain that is also verified, so that a tenant's provider cannot vouch for another
// company's people. A domain is verified by a DNS TXT record `sightline-verification=<token>` on
// the domain itself (the token is the tenant's own, derived from a key of the deployment, and
// shown with the settings), checked when the tenant admin asks; or by a platform operator's
// approval, for a domain whose DNS the tenant cannot change. Both are audited.
import dns from 'node:dns';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError, errorMessage } from '../../core/errors.js';
import { recordAudit } from '../audit/audit-service.js';
import type { AuditActor } from '../principal.js';
import type { TenantRow } from '../tenants/tenant-store.js';
import { ssoSealer } from './sso-seal.js';
import { deleteVerifiedDomain, listVerifiedDomains, saveVerifiedDomain, type SsoDomainRow } from './sso-store.js';

const RECORD_PREFIX = 'sightline-verification=';
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

/** Reads a name's TXT records, each as its character strings (node:dns's shape). */
export type TxtResolver = (name: string) => Promise<string[][]>;

/** The system's DNS servers (as node:dns knows them now), a few seconds per try, two tries. */
export const systemTxtResolver: TxtResolver = (name) => {
  const resolver = new dns.promises.Resolver({ timeout: 3_000, tries: 2 });
  resolver.setServers(dns.getServers());
  return resolver.resolveTxt(name);
};

export interface EmailDomain {
  domain: string;
  verified: boolean;
  /** Null until verified. */
  verified_by: 'dns' | 'operator' | null;
  verified_at: string | null;
  /** The record that verifies the domain. */
  dns_record: { type: 'TXT'; name: string; value: string };
}

/** A domain as stored and compared: lower-cased, without a leading `@`; 400 when it is not a domain name. */
export function domainName(raw: string, field = 'domain'): string {
  const domain = raw.trim().toLowerCase().replace(/^@/, '');
  if (!DOMAIN.test(domain))
    throw new AppError('invalid_request', `${field}: ${JSON.stringify(raw)} is not a domain name`, {
      extensions: { field },
    });
  return domain;
}

async function recordValue(db: Kysely<Tables>, tenantId: number, domain: string): Promise<string> {
  const sealer = await ssoSealer(db);
  return `${RECORD_PREFIX}${sealer.tag(`${tenantId}\0${domain}`, 'sso domain verification').slice(0, 32)}`;
}

function present(domain: string, value: string, row: SsoDomainRow | undefined): EmailDomain {
  return {
    domain,
    verified: row !== undefined,
    verified_by: row ? (row.verified_by === 'operator' ? 'operator' : 'dns') : null,
    verified_at: row ? new Date(row.verified_at).toISOString() : null,
    dns_record: { type: 'TXT', name: domain, value },
  };
}

/** The tenant's allowed domains with their verification and the record that verifies each. */
export async function describeDomains(
  db: Kysely<Tables>,
  tenantId: number,
  domains: readonly string[],
): Promise<EmailDomain[]> {
  const verified = new Map((await listVerifiedDomains(db, tenantId)).map((row) => [row.domain, row]));
  return Promise.all(
    domains.map(async (domain) => present(domain, await recordValue(db, tenantId, domain), verified.get(domain))),
  );
}

export interface DomainContext {
  db: Kysely<Tables>;
  tenant: TenantRow;
  actor: AuditActor;
  ip: string | null;
}

async function markVerified(ctx: DomainContext, domain: string, by: 'dns' | 'operator'): Promise<EmailDomain> {
  const row: SsoDomainRow = {
    tenant_id: ctx.tenant.id,
    domain,
    verified_by: by,
    verified_at: Date.now(),
    approved_by: by === 'operator' ? ctx.actor.label : null,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await saveVerifiedDomain(trx, row);
    await recordAudit(trx, {
      tenantId: ctx.tenant.id,
      action: 'sso.domain_verified',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'tenant', id: ctx.tenant.code_name },
      details: { domain, verified_by: by },
    });
  });
  return present(domain, await recordValue(ctx.db, ctx.tenant.id, domain), row);
}

/** Looks for the tenant's TXT record on the domain now; verified when it is there (422 otherwise). */
export async function verifyByDns(ctx: DomainContext, raw: string, resolveTxt: TxtResolver): Promise<EmailDomain> {
  const domain = domainName(raw);
  const expected = await recordValue(ctx.db, ctx.tenant.id, domain);
  let found: string[];
  try {
    found = (await resolveTxt(domain)).map((chunks) => chunks.join(''));
  } catch (error) {
    found = [];
    if (!/ENODATA|ENOTFOUND/.test(errorMessage(error)))
      throw new AppError('sso_domain_not_verified', `the DNS lookup of ${domain} failed; try again later`, {
        extensions: { dns_record: { type: 'TXT', name: domain, value: expected } },
      });
  }
  if (!found.includes(expected))
    throw new AppError('sso_domain_not_verified', `${domain} has no TXT record ${JSON.stringify(expected)}`, {
      extensions: { dns_record: { type: 'TXT', name: domain, value: expected } },
    });
  return markVerified(ctx, domain, 'dns');
}

/** A platform operator vouches that the tenant holds the domain. */
export function approveDomain(ctx: DomainContext, raw: string): Promise<EmailDomain> {
  return markVerified(ctx, domainName(raw), 'operator');
}

/** Withdraws a domain's verification, however it was made: single sign-on stops accepting it. */
export async function withdrawDomain(ctx: DomainContext, raw: string): Promise<void> {
  const domain = domainName(raw);
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await deleteVerifiedDomain(trx, ctx.tenant.id, domain)))
      throw new AppError('not_found', `${domain} is not a verified domain of tenant ${ctx.tenant.code_name}`);
    await recordAudit(trx, {
      tenantId: ctx.tenant.id,
      action: 'sso.domain_unverified',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'tenant', id: ctx.tenant.code_name },
      details: { domain },
    });
  });
}
