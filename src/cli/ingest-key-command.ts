// `sightline ingest-key create|list|delete`: a tenant's collector ingest keys, managed by whoever
// runs the server. The key goes to stdout alone, so scripts can capture it with $(…); everything
// meant for people goes to stderr. A running server notices keys changed here within seconds
// (it reloads each tenant's keys every 10 seconds).
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { cliActor } from '../identity/principal.js';
import { requireTenantByCodeName } from '../identity/tenants/tenant-service.js';
import {
  createIngestKey,
  deleteIngestKey,
  listTenantIngestKeys,
  type IngestKey,
  type IngestKeyContext,
} from '../collector/ingest-keys/ingest-key-service.js';
import { addSettingOptions, settingValues, storageSettings } from './options.js';

const LIST_PAGE = 100;

const createHelp = `
Output:
  stdout  the key alone (the last and only line): KEY=$(sightline ingest-key create …)
  stderr  id, name, and a reminder that the key is shown this once; only a hash of it is
          stored, so it cannot be read again.

Forwarders send it as "Authorization: Bearer <key>", or as the HTTP Basic password (any user).
Require it with: sightline tenant set <code_name> --require-ingest-key on

Example:
  sightline ingest-key create --tenant acme --name "Fluent Bit, web tier"`;

/** Opens the database, runs `work` in the tenant's context, and closes the database. */
async function withTenant<T>(
  options: Record<string, unknown>,
  work: (ctx: IngestKeyContext) => Promise<T>,
): Promise<T> {
  const database = await openDatabase(loadConfig(settingValues(options, storageSettings)), { existing: true });
  try {
    await migrateToLatest(database);
    const tenant = await requireTenantByCodeName(database.db, String(options.tenant));
    return await work({ db: database.db, tenantId: tenant.id, actor: cliActor, ip: null });
  } finally {
    await database.close();
  }
}

export function registerIngestKey(program: Command): void {
  const command = program.command('ingest-key').description("Manage a tenant's collector ingest keys");

  addSettingOptions(
    command
      .command('create')
      .description('Create a collector ingest key and print it (shown this once)')
      .requiredOption('--tenant <code_name>', 'tenant the key belongs to')
      .requiredOption('--name <name>', 'what the key is for (1 to 100 characters)')
      .addHelpText('after', createHelp),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const created = await withTenant(options, (ctx) => createIngestKey(ctx, { name: String(options.name) }));
    const key = created.ingest_key;
    process.stderr.write(
      [
        `created ingest key ${key.id} ${JSON.stringify(key.name)} for tenant ${String(options.tenant)}`,
        'The key is on stdout. It is shown this once and cannot be read again: store it now.',
      ].join('\n') + '\n',
    );
    process.stdout.write(`${created.value}\n`);
  });

  addSettingOptions(
    command
      .command('list')
      .description(
        "List the tenant's ingest keys, newest first; never their values. " +
          'Tab-separated: id, name, prefix, created_by, created_at, expires_at, last_used_at ("never" when unset); --json: the API\'s key objects',
      )
      .requiredOption('--tenant <code_name>', 'tenant whose keys to list')
      .option('--json', 'one JSON object per line'),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    await withTenant(options, async (ctx) => {
      let before: { createdAt: number; id: string } | undefined;
      do {
        const page = await listTenantIngestKeys(ctx.db, ctx.tenantId, {
          limit: LIST_PAGE,
          ...(before ? { before } : {}),
        });
        for (const key of page.keys)
          process.stdout.write(options.json ? `${JSON.stringify(key)}\n` : `${keyLine(key)}\n`);
        before = page.next;
      } while (before);
    });
  });

  addSettingOptions(
    command
      .command('delete <key_id>')
      .description('Delete an ingest key (ikey_…): the collector refuses it from then on')
      .requiredOption('--tenant <code_name>', 'tenant the key belongs to'),
    storageSettings,
  ).action(async (keyId: string, options: Record<string, unknown>) => {
    const deleted = await withTenant(options, (ctx) => deleteIngestKey(ctx, keyId));
    process.stdout.write(`deleted ingest key ${deleted.id} ${JSON.stringify(deleted.name)}\n`);
  });
}

function keyLine(key: IngestKey): string {
  return [
    key.id,
    key.name,
    key.prefix,
    key.created_by,
    key.created_at,
    key.expires_at ?? 'never',
    key.last_used_at ?? 'never',
  ].join('\t');
}
