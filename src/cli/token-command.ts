// `sightline token create|list|delete`: a tenant's API tokens, managed by whoever runs the server
// (the CLI holds every permission). The token value goes to stdout alone, so scripts can capture
// it with $(…); everything meant for people goes to stderr.
import type { Command } from 'commander';
import { loadConfig, parseDuration, type SettingName } from '../config/config.js';
import { AppError } from '../core/errors.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { allPermissions, parsePermissions } from '../identity/permissions.js';
import { cliActor } from '../identity/principal.js';
import { requireTenantByCodeName } from '../identity/tenants/tenant-service.js';
import { createToken, deleteToken, listTenantTokens, type ApiToken } from '../identity/tokens/token-service.js';
import { addSettingOptions, settingValues, storageSettings } from './options.js';

const LIST_PAGE = 100;

/** Where the database is, and the token lifetime rules the server applies too. */
const tokenSettings: SettingName[] = [...storageSettings, 'tokenLifetime', 'tokenMaxLifetime'];

const createHelp = `
Output:
  stdout  the token value alone (the last and only line): TOKEN=$(sightline token create …)
  stderr  id, name, permissions, expiry, and a reminder that the value is shown this once;
          only a hash of it is stored, so it cannot be read again.

Permissions: all, or any of
  ${allPermissions.join(', ')}

Examples:
  sightline token create --tenant acme --name "SOAR integration" --permissions cases:read,cases:write --expires-in 90d
  sightline token create --tenant acme --name backup --permissions all`;

export function registerToken(program: Command): void {
  const token = program.command('token').description("Manage a tenant's API tokens");

  addSettingOptions(
    token
      .command('create')
      .description('Create an API token and print its value (shown this once)')
      .requiredOption('--tenant <code_name>', 'tenant the token belongs to')
      .requiredOption('--name <name>', 'what the token is for (1 to 100 characters)')
      .requiredOption('--permissions <list>', 'comma-separated permissions, or all')
      .option(
        '--expires-in <span>',
        'lifetime such as 12h, 30d or 90d (units s, m, h, d), or never (only where --token-max-lifetime is none); without it, --token-lifetime (30 days by default)',
      )
      .addHelpText('after', createHelp),
    tokenSettings,
  ).action(async (options: Record<string, unknown>) => {
    const config = loadConfig(settingValues(options, tokenSettings));
    const permissions = parsePermissions([String(options.permissions)]);
    const lifetime = parseLifetime(typeof options.expiresIn === 'string' ? options.expiresIn : undefined);
    const database = await openDatabase(config, { existing: true });
    try {
      await migrateToLatest(database);
      const tenant = await requireTenantByCodeName(database.db, String(options.tenant));
      const created = await createToken(database.db, {
        tenantId: tenant.id,
        name: String(options.name),
        permissions,
        expiresAt: lifetime === undefined || lifetime === null ? lifetime : Date.now() + lifetime,
        creator: { actor: cliActor, userId: null, permissions: new Set(allPermissions), expiresAt: null },
        lifetime: { defaultMs: config.tokenLifetime, maxMs: config.tokenMaxLifetime },
      });
      const t = created.token;
      process.stderr.write(
        [
          `created token ${t.id} ${JSON.stringify(t.name)} for tenant ${tenant.code_name}`,
          `permissions: ${t.permissions.join(', ')}`,
          t.expires_at === null
            ? 'expires: never (delete it with `sightline token delete` when no longer needed)'
            : `expires: ${t.expires_at}`,
          'The token value is on stdout. It is shown this once and cannot be read again: store it now.',
        ].join('\n') + '\n',
      );
      process.stdout.write(`${created.value}\n`);
    } finally {
      await database.close();
    }
  });

  addSettingOptions(
    token
      .command('list')
      .description(
        "List the tenant's tokens, newest first, deleted and expired ones included; never their values. " +
          'Tab-separated: id, name, status, permissions, created_by, created_at, expires_at, last_used_at ("never" when unset); --json: the API\'s token objects',
      )
      .requiredOption('--tenant <code_name>', 'tenant whose tokens to list')
      .option('--json', 'one JSON object per line'),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const database = await openDatabase(loadConfig(settingValues(options, storageSettings)), { existing: true });
    try {
      await migrateToLatest(database);
      const tenant = await requireTenantByCodeName(database.db, String(options.tenant));
      let before: { createdAt: number; id: string } | undefined;
      do {
        const page = await listTenantTokens(
          database.db,
          tenant.id,
          {},
          { limit: LIST_PAGE, ...(before ? { before } : {}) },
        );
        for (const t of page.tokens)
          process.stdout.write(options.json ? `${JSON.stringify(t)}\n` : `${tokenLine(t)}\n`);
        before = page.next;
      } while (before);
    } finally {
      await database.close();
    }
  });

  addSettingOptions(
    token
      .command('delete <token_id>')
      .description('Delete a token (tok_…): it can never authenticate again and stays listed as deleted')
      .requiredOption('--tenant <code_name>', 'tenant the token belongs to'),
    storageSettings,
  ).action(async (tokenId: string, options: Record<string, unknown>) => {
    const database = await openDatabase(loadConfig(settingValues(options, storageSettings)), { existing: true });
    try {
      await migrateToLatest(database);
      const tenant = await requireTenantByCodeName(database.db, String(options.tenant));
      const deleted = await deleteToken(database.db, tenant.id, tokenId, cliActor, null);
      process.stdout.write(
        `deleted token ${deleted.id} ${JSON.stringify(deleted.name)} (at ${deleted.deleted_at ?? 'unknown time'} by ${deleted.deleted_by ?? 'unknown'})\n`,
      );
    } finally {
      await database.close();
    }
  });
}

/**
 * `--expires-in`: a span with its unit (a bare number, in seconds, would be an easy slip for days),
 * `never` (null), or undefined for the default lifetime.
 */
function parseLifetime(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === 'never') return null;
  const span = /^\s*\d+\s*[smhd]\s*$/.test(value) ? parseDuration(value) : undefined;
  if (span === undefined || span <= 0) {
    throw new AppError(
      'invalid_request',
      `--expires-in must be a span greater than zero with a unit, such as 12h, 30d or 90d; got ${JSON.stringify(value)} (or never, for a token that does not expire)`,
    );
  }
  if (Number.isNaN(new Date(Date.now() + span).getTime())) {
    throw new AppError(
      'invalid_request',
      `--expires-in ${value} is too far in the future; use never for a token that does not expire`,
    );
  }
  return span;
}

function tokenLine(t: ApiToken): string {
  return [
    t.id,
    t.name,
    t.status,
    t.permissions.join(','),
    t.created_by,
    t.created_at,
    t.expires_at ?? 'never',
    t.last_used_at ?? 'never',
  ].join('\t');
}
