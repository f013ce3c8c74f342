// `sightline token create|list|delete`: a tenant's API tokens, or with --partner a partner's,
// managed by whoever runs the server (the CLI holds every permission). The token value goes to
// stdout alone, so scripts can capture it with $(…); everything meant for people goes to stderr.
import type { Command } from 'commander';
import { loadConfig, parseDuration, type SettingName } from '../config/config.js';
import { AppError } from '../core/errors.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { allPermissions, parsePermissions, type Permission } from '../identity/permissions.js';
import type { TokenLifetimePolicy } from '../identity/tokens/token-rules.js';
import { cliActor } from '../identity/principal.js';
import { requireTenantByCodeName } from '../identity/tenants/tenant-service.js';
import { createToken, deleteToken, listTenantTokens, type ApiToken } from '../identity/tokens/token-service.js';
import { getPartner, requirePartner } from '../identity/partners/partner-service.js';
import {
  createPartnerToken,
  deletePartnerToken,
  listPartnerTokens,
} from '../identity/partners/partner-token-service.js';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
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

A partner's token (--partner instead of --tenant) acts in every tenant the partner serves, with
the permissions given: it names one in the Sightline-Tenant header, or searches the cases of all
of them at once with POST /v1/cases.

Examples:
  sightline token create --tenant acme --name "SOAR integration" --permissions cases:read,cases:write --expires-in 90d
  sightline token create --tenant acme --name backup --permissions all
  sightline token create --partner mssp --name "SOC queue" --permissions cases:read,cases:write`;

/** Whose tokens a command manages: one of --tenant and --partner, never both (a usage error, exit 2). */
function ownerOf(options: Record<string, unknown>, command: Command): { tenant: string } | { partner: string } {
  const { tenant, partner } = options;
  if (typeof tenant === 'string' && partner === undefined) return { tenant };
  if (typeof partner === 'string' && tenant === undefined) return { partner };
  return command.error("error: give one of the options '--tenant <code_name>' and '--partner <code_name>'");
}

export function registerToken(program: Command): void {
  const token = program.command('token').description("Manage a tenant's or a partner's API tokens");

  addSettingOptions(
    token
      .command('create')
      .description('Create an API token and print its value (shown this once)')
      .option('--tenant <code_name>', 'tenant the token belongs to')
      .option('--partner <code_name>', 'partner the token belongs to (instead of --tenant)')
      .requiredOption('--name <name>', 'what the token is for (1 to 100 characters)')
      .requiredOption('--permissions <list>', 'comma-separated permissions, or all')
      .option(
        '--expires-in <span>',
        'lifetime such as 12h, 30d or 90d (units s, m, h, d), or never (only where --token-max-lifetime is none); without it, --token-lifetime (30 days by default)',
      )
      .addHelpText('after', createHelp),
    tokenSettings,
  ).action(async (options: Record<string, unknown>, command: Command) => {
    const config = loadConfig(settingValues(options, tokenSettings));
    const owner = ownerOf(options, command);
    const permissions = parsePermissions([String(options.permissions)]);
    const lifetime = parseLifetime(typeof options.expiresIn === 'string' ? options.expiresIn : undefined);
    const expiresAt = lifetime === undefined || lifetime === null ? lifetime : Date.now() + lifetime;
    const policy = { defaultMs: config.tokenLifetime, maxMs: config.tokenMaxLifetime };
    const database = await openDatabase(config, { existing: true });
    try {
      await migrateToLatest(database);
      const db = database.db;
      const input = { name: String(options.name), permissions, expiresAt, policy };
      const created =
        'tenant' in owner
          ? await createTenantToken(db, owner.tenant, input)
          : await createForPartner(db, owner.partner, input);
      const t = created.token;
      process.stderr.write(
        [
          `created token ${t.id} ${JSON.stringify(t.name)} for ${created.owner}`,
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
      .option('--tenant <code_name>', 'tenant whose tokens to list')
      .option('--partner <code_name>', 'partner whose tokens to list (instead of --tenant)')
      .option('--json', 'one JSON object per line'),
    storageSettings,
  ).action(async (options: Record<string, unknown>, command: Command) => {
    const owner = ownerOf(options, command);
    const database = await openDatabase(loadConfig(settingValues(options, storageSettings)), { existing: true });
    try {
      await migrateToLatest(database);
      const pages = await tokenPages(database.db, owner);
      let before: { createdAt: number; id: string } | undefined;
      do {
        const page = await pages({ limit: LIST_PAGE, ...(before ? { before } : {}) });
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
      .description(
        "Delete a token (tok_…, or a partner's ptk_…): it can never authenticate again and stays listed as deleted",
      )
      .option('--tenant <code_name>', 'tenant the token belongs to')
      .option('--partner <code_name>', 'partner the token belongs to (instead of --tenant)'),
    storageSettings,
  ).action(async (tokenId: string, options: Record<string, unknown>, command: Command) => {
    const owner = ownerOf(options, command);
    const database = await openDatabase(loadConfig(settingValues(options, storageSettings)), { existing: true });
    try {
      await migrateToLatest(database);
      const db = database.db;
      const deleted =
        'tenant' in owner
          ? await deleteToken(db, (await requireTenantByCodeName(db, owner.tenant)).id, tokenId, cliActor, null)
          : await deletePartnerToken(db, await requirePartner(db, owner.partner), tokenId, {
              actor: cliActor,
              ip: null,
            });
      process.stdout.write(
        `deleted token ${deleted.id} ${JSON.stringify(deleted.name)} (at ${deleted.deleted_at ?? 'unknown time'} by ${deleted.deleted_by ?? 'unknown'})\n`,
      );
    } finally {
      await database.close();
    }
  });
}

interface NewToken {
  name: string;
  permissions: Permission[];
  expiresAt: number | null | undefined;
  policy: TokenLifetimePolicy;
}

interface Created {
  token: ApiToken;
  value: string;
  owner: string;
}

async function createTenantToken(db: Kysely<Tables>, codeName: string, input: NewToken): Promise<Created> {
  const tenant = await requireTenantByCodeName(db, codeName);
  const created = await createToken(db, {
    tenantId: tenant.id,
    name: input.name,
    permissions: input.permissions,
    expiresAt: input.expiresAt,
    creator: { actor: cliActor, userId: null, permissions: new Set(allPermissions), expiresAt: null },
    lifetime: input.policy,
  });
  return { ...created, owner: `tenant ${tenant.code_name}` };
}

async function createForPartner(db: Kysely<Tables>, codeName: string, input: NewToken): Promise<Created> {
  const partner = await requirePartner(db, codeName);
  const created = await createPartnerToken(db, partner, {
    name: input.name,
    permissions: input.permissions,
    expiresAt: input.expiresAt,
    lifetime: input.policy,
    actor: cliActor,
    ip: null,
  });
  const tenants = (await getPartner(db, codeName)).tenants.map((tenant) => tenant.code_name);
  return { ...created, owner: `partner ${partner.code_name} (tenants: ${tenants.join(', ') || 'none yet'})` };
}

interface TokenPage {
  tokens: ApiToken[];
  next?: { createdAt: number; id: string };
}

/** The pages of a tenant's or a partner's tokens, newest first. */
async function tokenPages(
  db: Kysely<Tables>,
  owner: { tenant: string } | { partner: string },
): Promise<(page: { limit: number; before?: { createdAt: number; id: string } }) => Promise<TokenPage>> {
  if ('tenant' in owner) {
    const tenant = await requireTenantByCodeName(db, owner.tenant);
    return (page) => listTenantTokens(db, tenant.id, {}, page);
  }
  const partner = await requirePartner(db, owner.partner);
  return (page) => listPartnerTokens(db, partner, page);
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
