// `sightline tenant create|list|set`: the operator's tenant registry, and the settings support
// changes for a customer (AI summaries opt-out, summary provider, observation-write approval,
// whether its collector requires an ingest key).
import type { Command } from 'commander';
import { loadConfig, resolvePublicUrl, type Config } from '../config/config.js';
import { openDatabase, type Db } from '../storage/database.js';
import { readInstanceSetting } from '../storage/instance-settings.js';
import { migrateToLatest } from '../storage/migrate.js';
import {
  changeTenant,
  collectorUrl,
  createTenant,
  presentTenant,
  presentTenantResource,
  type CollectorAddressSettings,
  type TenantChanges,
} from '../identity/tenants/tenant-service.js';
import { cliActor } from '../identity/principal.js';
import { listTenants } from '../identity/tenants/tenant-store.js';
import { tenantReactions } from '../app/reactions.js';
import { getIngestKeyPolicy, setIngestKeyPolicy } from '../collector/ingest-keys/ingest-key-service.js';
import { addSettingOptions, settingValues, storageSettings } from './options.js';
import { registerTenantLimits } from './tenant-limits-command.js';

const addressSettings = ['baseDomain', 'publicUrl', 'port', 'tlsCert', 'insecureHttp'] as const;
/** These commands listen on nothing: the server's own settings only shape the addresses they print. */
const addressHelp = {
  port: 'The port the server listens on: printed collector URLs use it when --public-url is empty (this command listens on nothing).',
  tlsCert: "The server's certificate, when it serves HTTPS: printed collector URLs then start with https.",
  insecureHttp:
    'The server serves plain HTTP behind a TLS-terminating proxy: printed collector URLs then use https on its default port.',
} as const;

/**
 * How this command prints collector addresses: --public-url when given, else the public URL the
 * server last started with on this database (so the CLI needs none of the server's flags), else
 * what these settings say the server listens on.
 */
async function collectorAddress(config: Config, db: Db): Promise<CollectorAddressSettings> {
  const publicUrl =
    config.publicUrl !== ''
      ? config.publicUrl
      : ((await readInstanceSetting(db, 'public_url')) ?? resolvePublicUrl(config));
  return { baseDomain: config.baseDomain, publicUrl };
}

export function registerTenant(program: Command): void {
  const tenant = program.command('tenant').description('Manage tenants (customer organisations)');
  registerTenantLimits(tenant);

  addSettingOptions(
    tenant
      .command('create <code_name>')
      .description('Create a tenant and print its collector URL')
      .option('--name <display_name>', 'display name'),
    [...storageSettings, ...addressSettings],
    addressHelp,
  ).action(async (codeName: string, options: Record<string, unknown>) => {
    const config = loadConfig(settingValues(options, [...storageSettings, ...addressSettings]));
    const database = await openDatabase(config);
    try {
      await migrateToLatest(database);
      const created = await createTenant(database.db, {
        codeName,
        ...(typeof options.name === 'string' ? { name: options.name } : {}),
      });
      process.stdout.write(`${collectorUrl(await collectorAddress(config, database.db), created.codeName)}\n`);
    } finally {
      await database.close();
    }
  });

  addSettingOptions(
    tenant
      .command('list')
      .description('List tenants with their collector URLs')
      .option('--json', 'one JSON object per line'),
    [...storageSettings, ...addressSettings],
    addressHelp,
  ).action(async (options: Record<string, unknown>) => {
    const config = loadConfig(settingValues(options, [...storageSettings, ...addressSettings]));
    const database = await openDatabase(config, { existing: true });
    try {
      await migrateToLatest(database);
      const tenants = (await listTenants(database.db)).map(presentTenant);
      const address = await collectorAddress(config, database.db);
      for (const t of tenants) {
        const url = collectorUrl(address, t.codeName);
        process.stdout.write(
          options.json
            ? `${JSON.stringify({ code_name: t.codeName, name: t.name, created_at: t.createdAt, collector_url: url })}\n`
            : `${t.codeName}\t${t.name}\t${url}\n`,
        );
      }
    } finally {
      await database.close();
    }
  });

  addSettingOptions(
    tenant
      .command('set <code_name>')
      .description("Change a tenant's settings (recorded in its audit log) and print the tenant as JSON")
      .option('--name <display_name>', 'display name')
      .option(
        '--ai-summaries <on|off>',
        'off: the organisation opts out of AI summaries (nothing about it is sent to a provider); on: opts back in',
      )
      .option(
        '--summary-provider <builtin|openai|anthropic|default>',
        "this tenant's summary provider; default: the deployment's",
      )
      .option('--observation-writes <approved|revoked>', "the platform's approval for the tenant to write observations")
      .option(
        '--require-ingest-key <on|off>',
        "on: the collector refuses records without one of the tenant's ingest keys (create one first with `sightline ingest-key create`); off: it needs none",
      ),
    [...storageSettings, ...addressSettings],
    addressHelp,
  ).action(async (codeName: string, options: Record<string, unknown>) => {
    const changes: TenantChanges = {};
    if (typeof options.name === 'string') changes.name = options.name;
    if (options.aiSummaries !== undefined) {
      if (options.aiSummaries !== 'on' && options.aiSummaries !== 'off')
        throw new Error('--ai-summaries must be on or off');
      changes.aiSummaries = options.aiSummaries;
    }
    if (options.summaryProvider !== undefined) {
      const provider = options.summaryProvider;
      if (provider !== 'builtin' && provider !== 'openai' && provider !== 'anthropic' && provider !== 'default')
        throw new Error('--summary-provider must be builtin, openai, anthropic or default');
      changes.summaryProvider = provider === 'default' ? null : provider;
    }
    if (options.observationWrites !== undefined) {
      if (options.observationWrites !== 'approved' && options.observationWrites !== 'revoked')
        throw new Error('--observation-writes must be approved or revoked');
      changes.observationWriteApproved = options.observationWrites === 'approved';
    }
    const requireKey = options.requireIngestKey;
    if (requireKey !== undefined && requireKey !== 'on' && requireKey !== 'off')
      throw new Error('--require-ingest-key must be on or off');
    if (Object.keys(changes).length === 0 && requireKey === undefined)
      throw new Error(
        'nothing to change: give --ai-summaries, --summary-provider, --observation-writes, --require-ingest-key or --name',
      );
    const config = loadConfig(settingValues(options, [...storageSettings, ...addressSettings]));
    const database = await openDatabase(config, { existing: true });
    try {
      await migrateToLatest(database);
      const audit = { actor: cliActor, ip: null };
      const row = await changeTenant(database.db, codeName, changes, audit, tenantReactions);
      const ctx = { db: database.db, tenantId: row.id, ...audit };
      const policy =
        requireKey === undefined
          ? await getIngestKeyPolicy(database.db, row.id)
          : await setIngestKeyPolicy(ctx, requireKey === 'on');
      const shown = presentTenantResource(row, await collectorAddress(config, database.db), config.summaryProvider);
      process.stdout.write(`${JSON.stringify({ ...shown, ...policy })}\n`);
    } finally {
      await database.close();
    }
  });
}
