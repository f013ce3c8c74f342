// `sightline partner create|list|add-tenant|remove-tenant`: partner organisations (managed
// security providers) and the tenants each serves, as a platform operator manages them. Their
// tokens: `sightline token create --partner`. Each change is audited (the tenant's log records
// a partner given or denied access), and a running server applies it from its next call.
import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { loadConfig } from '../config/config.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { cliActor } from '../identity/principal.js';
import {
  addPartnerTenant,
  createPartner,
  listPartners,
  removePartnerTenant,
  type Partner,
} from '../identity/partners/partner-service.js';
import { addSettingOptions, settingValues, storageSettings } from './options.js';

const change = { actor: cliActor, ip: null };

/** Runs `work` on the deployment's database (which must exist), brought up to date. */
async function withDatabase<T>(options: Record<string, unknown>, work: (db: Kysely<Tables>) => Promise<T>): Promise<T> {
  const database = await openDatabase(loadConfig(settingValues(options, storageSettings)), { existing: true });
  try {
    await migrateToLatest(database);
    return await work(database.db);
  } finally {
    await database.close();
  }
}

function codeNames(list: unknown): string[] {
  if (typeof list !== 'string') return [];
  return list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

function printPartner(partner: Partner): void {
  process.stdout.write(`${JSON.stringify(partner)}\n`);
}

function partnerLine(partner: Partner): string {
  return [partner.code_name, partner.name, partner.tenants.map((tenant) => tenant.code_name).join(',')].join('\t');
}

export function registerPartner(program: Command): void {
  const partner = program
    .command('partner')
    .description("Manage partner organisations: managed security providers that work several tenants' cases");

  addSettingOptions(
    partner
      .command('create <code_name>')
      .description('Create a partner serving the tenants named, and print it as JSON')
      .option('--tenants <list>', 'comma-separated code names of the tenants it serves (each must exist)')
      .option('--name <display_name>', 'display name'),
    storageSettings,
  ).action(async (codeName: string, options: Record<string, unknown>) => {
    const created = await withDatabase(options, (db) =>
      createPartner(
        db,
        {
          codeName,
          tenants: codeNames(options.tenants),
          ...(typeof options.name === 'string' ? { name: options.name } : {}),
        },
        change,
      ),
    );
    printPartner(created);
  });

  addSettingOptions(
    partner
      .command('list')
      .description('List partners, by code name. Tab-separated: code name, name, its tenants (comma-separated)')
      .option('--json', 'one JSON object per line'),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const partners = await withDatabase(options, (db) => listPartners(db));
    for (const p of partners) process.stdout.write(options.json ? `${JSON.stringify(p)}\n` : `${partnerLine(p)}\n`);
  });

  addSettingOptions(
    partner
      .command('add-tenant <code_name>')
      .description("Let the partner's tokens act in one more tenant, and print the partner as JSON")
      .requiredOption('--tenant <code_name>', 'the tenant it is to serve'),
    storageSettings,
  ).action(async (codeName: string, options: Record<string, unknown>) => {
    printPartner(await withDatabase(options, (db) => addPartnerTenant(db, codeName, String(options.tenant), change)));
  });

  addSettingOptions(
    partner
      .command('remove-tenant <code_name>')
      .description("End the partner's access to a tenant (what it did there stays), and print the partner as JSON")
      .requiredOption('--tenant <code_name>', 'the tenant it is to serve no more'),
    storageSettings,
  ).action(async (codeName: string, options: Record<string, unknown>) => {
    printPartner(
      await withDatabase(options, (db) => removePartnerTenant(db, codeName, String(options.tenant), change)),
    );
  });
}
