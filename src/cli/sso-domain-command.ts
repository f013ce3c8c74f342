// `sightline sso-domain approve|withdraw|list`: a platform operator vouches that a tenant holds an
// email domain (for a domain whose DNS the tenant cannot change), so that the tenant's single
// sign-on accepts its people; or withdraws a verification, by DNS or by approval. Audited in the
// tenant's log, as the operator API's PUT and DELETE /v1/tenants/{code_name}/sso-domains/{domain}.
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { cliActor } from '../identity/principal.js';
import { requireTenantByCodeName } from '../identity/tenants/tenant-service.js';
import { approveDomain, domainName, withdrawDomain, type DomainContext } from '../identity/sso/sso-domains.js';
import { listVerifiedDomains } from '../identity/sso/sso-store.js';
import { addSettingOptions, settingValues, storageSettings } from './options.js';

/** Opens the database, runs `work` in the tenant's context, and closes the database. */
async function withTenant<T>(options: Record<string, unknown>, work: (ctx: DomainContext) => Promise<T>): Promise<T> {
  const database = await openDatabase(loadConfig(settingValues(options, storageSettings)), { existing: true });
  try {
    await migrateToLatest(database);
    const tenant = await requireTenantByCodeName(database.db, String(options.tenant));
    return await work({ db: database.db, tenant, actor: cliActor, ip: null });
  } finally {
    await database.close();
  }
}

export function registerSsoDomain(program: Command): void {
  const command = program
    .command('sso-domain')
    .description("Verify a tenant's email domains for single sign-on (docs/security.md, Verifying an email domain)");

  addSettingOptions(
    command
      .command('approve <domain>')
      .description("Approve an email domain for the tenant's single sign-on, once you know the tenant holds it")
      .requiredOption('--tenant <code_name>', 'tenant the domain belongs to'),
    storageSettings,
  ).action(async (domain: string, options: Record<string, unknown>) => {
    const approved = await withTenant(options, (ctx) => approveDomain(ctx, domain));
    process.stdout.write(`approved ${approved.domain} for tenant ${String(options.tenant)}\n`);
  });

  addSettingOptions(
    command
      .command('withdraw <domain>')
      .description("Withdraw a domain's verification (by DNS or by approval): single sign-on refuses its people")
      .requiredOption('--tenant <code_name>', 'tenant the domain belongs to'),
    storageSettings,
  ).action(async (domain: string, options: Record<string, unknown>) => {
    await withTenant(options, (ctx) => withdrawDomain(ctx, domain));
    process.stdout.write(`withdrew ${domainName(domain)} from tenant ${String(options.tenant)}\n`);
  });

  addSettingOptions(
    command
      .command('list')
      .description(
        "The tenant's verified email domains. Tab-separated: domain, verified_by (dns or operator), verified_at",
      )
      .requiredOption('--tenant <code_name>', 'tenant whose domains to list'),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const rows = await withTenant(options, (ctx) => listVerifiedDomains(ctx.db, ctx.tenant.id));
    for (const row of rows)
      process.stdout.write(`${row.domain}\t${row.verified_by}\t${new Date(row.verified_at).toISOString()}\n`);
  });
}
