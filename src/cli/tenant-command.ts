// `sightline tenant create|list`: the operator's tenant registry.
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { collectorUrl, createTenant, presentTenant } from '../identity/tenant-service.js';
import { listTenants } from '../identity/tenant-store.js';
import { addSettingOptions, settingValues, storageSettings } from './options.js';

const addressSettings = ['baseDomain', 'port', 'tlsCert'] as const;

export function registerTenant(program: Command): void {
  const tenant = program.command('tenant').description('Manage tenants (customer organisations)');

  addSettingOptions(
    tenant.command('create <code_name>').description("Create a tenant and print its collector URL").option('--name <display_name>', 'display name'),
    [...storageSettings, ...addressSettings],
  ).action(async (codeName: string, options: Record<string, unknown>) => {
    const config = loadConfig(settingValues(options, [...storageSettings, ...addressSettings]));
    const database = await openDatabase(config);
    try {
      await migrateToLatest(database);
      const created = await createTenant(database.db, { codeName, ...(typeof options.name === 'string' ? { name: options.name } : {}) });
      process.stdout.write(`${collectorUrl(config, created.codeName)}\n`);
    } finally {
      await database.close();
    }
  });

  addSettingOptions(
    tenant.command('list').description('List tenants with their collector URLs').option('--json', 'one JSON object per line'),
    [...storageSettings, ...addressSettings],
  ).action(async (options: Record<string, unknown>) => {
    const config = loadConfig(settingValues(options, [...storageSettings, ...addressSettings]));
    const database = await openDatabase(config);
    try {
      await migrateToLatest(database);
      const tenants = (await listTenants(database.db)).map(presentTenant);
      for (const t of tenants) {
        const url = collectorUrl(config, t.codeName);
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
}
