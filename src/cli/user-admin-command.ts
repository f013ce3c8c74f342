// `sightline user invite|set|delete|reset-password|reset-second-factor|sessions`: the Users page from the shell, for
// operators who manage a tenant's people where the server runs. Each acts exactly as the API does
// (same rules, same audit entries), with `cli` as the actor.
import type { Command } from 'commander';
import { loadConfig, resolvePublicUrl } from '../config/config.js';
import { AppError } from '../core/errors.js';
import { openDatabase, type Db } from '../storage/database.js';
import { readInstanceSetting } from '../storage/instance-settings.js';
import { migrateToLatest } from '../storage/migrate.js';
import type { Role } from '../storage/schema.js';
import { tenantRoles } from '../identity/permissions.js';
import { cliActor } from '../identity/principal.js';
import { endSessions, listSessions } from '../identity/sessions/session-list.js';
import { requireTenantByCodeName } from '../identity/tenants/tenant-service.js';
import {
  deleteUser,
  inviteUser,
  issuePasswordReset,
  updateUser,
  type OneTimeCode,
  type UserUpdate,
} from '../identity/users/user-admin-service.js';
import { resetSecondFactor } from '../identity/second-factor/second-factor-service.js';
import { findOperatorByEmail, findTenantUserByEmail, type UserRow } from '../identity/users/user-store.js';
import { addSettingOptions, settingValues, storageSettings } from './options.js';

const change = { actor: cliActor, ip: null };

/** Opens the database, finds the tenant, and runs `work` with them; closes the database after. */
async function inTenant(
  options: Record<string, unknown>,
  work: (db: Db, tenantId: number, publicUrl: string) => Promise<void>,
): Promise<void> {
  const config = loadConfig(settingValues(options, storageSettings));
  const database = await openDatabase(config, { existing: true });
  try {
    await migrateToLatest(database);
    const tenant = await requireTenantByCodeName(database.db, String(options.tenant));
    const publicUrl = (await readInstanceSetting(database.db, 'public_url')) ?? resolvePublicUrl(config);
    await work(database.db, tenant.id, publicUrl);
  } finally {
    await database.close();
  }
}

/** A person of the tenant by email (or user id); another tenant's people are not found. */
async function personIn(db: Db, tenantId: number, who: string): Promise<UserRow> {
  const row = who.includes('@')
    ? await findTenantUserByEmail(db, tenantId, who.trim().toLowerCase())
    : await db.selectFrom('users').selectAll().where('id', '=', who).executeTakeFirst();
  if (row?.tenant_id !== tenantId || row.deleted_at !== null)
    throw new AppError('not_found', `no user ${JSON.stringify(who)} in this tenant`);
  return row;
}

function printCode(code: OneTimeCode, publicUrl: string): void {
  process.stderr.write(
    `Hand this ${code.purpose === 'invitation' ? 'invitation' : 'password reset'} link to the person over a channel you trust; it works once, until ${code.expires_at}, and is shown this once.\n`,
  );
  process.stdout.write(`${new URL(code.path, publicUrl).toString()}\n`);
}

function role(value: unknown): Role {
  if (!(tenantRoles as readonly unknown[]).includes(value))
    throw new AppError(
      'invalid_request',
      `--role must be one of ${tenantRoles.join(', ')}; got ${JSON.stringify(value)}`,
    );
  return value as Role;
}

export function registerUserAdmin(user: Command): void {
  const tenantOption = (command: Command) =>
    addSettingOptions(command.requiredOption('--tenant <code_name>', "the person's tenant"), storageSettings);

  tenantOption(
    user
      .command('invite <email>')
      .description('Add a person to a tenant and print a one-time link (7 days) with which they choose their password')
      .requiredOption('--role <role>', tenantRoles.join(', '))
      .option('--name <name>', 'display name (default: the email)'),
  ).action(async (email: string, options: Record<string, unknown>) => {
    await inTenant(options, async (db, tenantId, publicUrl) => {
      const created = await inviteUser(
        db,
        tenantId,
        { email, role: role(options.role), ...(typeof options.name === 'string' ? { name: options.name } : {}) },
        change,
      );
      process.stderr.write(`invited ${created.user.role} ${created.user.email} (${created.user.id})\n`);
      if (created.invitation) printCode(created.invitation, publicUrl);
    });
  });

  tenantOption(
    user
      .command('set <email_or_id>')
      .description('Change a person: --role, --name, --disable (sessions end, tokens are revoked at once) or --enable')
      .option('--role <role>', tenantRoles.join(', '))
      .option('--name <name>', 'display name')
      .option('--disable', 'stop the person signing in; end their sessions and revoke their API tokens')
      .option('--enable', 're-enable a disabled person (revoked tokens stay revoked)'),
  ).action(async (who: string, options: Record<string, unknown>) => {
    if (options.disable && options.enable)
      throw new AppError('invalid_request', 'give --disable or --enable, not both');
    const update: UserUpdate = {
      ...(options.role !== undefined ? { role: role(options.role) } : {}),
      ...(typeof options.name === 'string' ? { name: options.name } : {}),
      ...(options.disable ? { disabled: true } : options.enable ? { disabled: false } : {}),
    };
    if (Object.keys(update).length === 0)
      throw new AppError('invalid_request', 'nothing to change: give --role, --name, --disable or --enable');
    await inTenant(options, async (db, tenantId) => {
      const row = await personIn(db, tenantId, who);
      const changed = await updateUser(db, tenantId, row.id, update, change);
      process.stdout.write(`${changed.id}\t${changed.email}\t${changed.role}\t${changed.status}\t${changed.name}\n`);
    });
  });

  tenantOption(
    user
      .command('delete <email_or_id>')
      .description('Delete a person: they never sign in again; what they did keeps their name; the email is freed'),
  ).action(async (who: string, options: Record<string, unknown>) => {
    await inTenant(options, async (db, tenantId) => {
      const row = await personIn(db, tenantId, who);
      await deleteUser(db, tenantId, row.id, change);
      process.stdout.write(`deleted ${row.email} (${row.id})\n`);
    });
  });

  tenantOption(
    user
      .command('reset-password <email_or_id>')
      .description(
        'Print a one-time link (24 hours) with which the person sets a new password; it ends their sessions',
      ),
  ).action(async (who: string, options: Record<string, unknown>) => {
    await inTenant(options, async (db, tenantId, publicUrl) => {
      const row = await personIn(db, tenantId, who);
      printCode(await issuePasswordReset(db, tenantId, row.id, change), publicUrl);
    });
  });

  tenantOption(
    user
      .command('sessions <email_or_id>')
      .description("List a person's web sessions (id, last seen, address, browser), or end them all with --end")
      .option('--end', 'end every session of the person'),
  ).action(async (who: string, options: Record<string, unknown>) => {
    await inTenant(options, async (db, tenantId) => {
      const row = await personIn(db, tenantId, who);
      if (options.end) {
        process.stdout.write(`ended ${await endSessions(db, row, { all: true }, change)} sessions\n`);
        return;
      }
      for (const session of await listSessions(db, row.id))
        process.stdout.write(`${session.id}\t${session.last_seen_at}\t${session.ip}\t${session.user_agent}\n`);
    });
  });

  addSettingOptions(
    user
      .command('reset-second-factor <email_or_id>')
      .description(
        "Remove a person's two-step sign-in (a lost phone): they sign in with the password alone and may set it up again. Platform operators: leave out --tenant",
      )
      .option('--tenant <code_name>', "the person's tenant (not for operators)"),
    storageSettings,
  ).action(async (who: string, options: Record<string, unknown>) => {
    const database = await openDatabase(loadConfig(settingValues(options, storageSettings)), { existing: true });
    try {
      await migrateToLatest(database);
      const db = database.db;
      let row: UserRow | undefined;
      if (typeof options.tenant === 'string') {
        row = await personIn(db, (await requireTenantByCodeName(db, options.tenant)).id, who);
      } else {
        const found = await findOperatorByEmail(db, who.trim().toLowerCase());
        if (found?.deleted_at !== null)
          throw new AppError(
            'not_found',
            `no platform operator ${JSON.stringify(who)}; for a tenant member give --tenant`,
          );
        row = found;
      }
      await resetSecondFactor(db, row.tenant_id, row.id, change);
      process.stdout.write(`two-step sign-in removed for ${row.email}\n`);
    } finally {
      await database.close();
    }
  });
}
