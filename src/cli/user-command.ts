// `sightline user create|list` (and invite|set|delete|reset-password|sessions): accounts for people, made by whoever runs the server. Passwords
// never travel as arguments (they would show in `ps` and shell history): they come on stdin, or
// are generated and printed once.
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { AppError } from '../core/errors.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import type { Role } from '../storage/schema.js';
import { roles, tenantRoles } from '../identity/permissions.js';
import { cliActor } from '../identity/principal.js';
import { requireTenantByCodeName } from '../identity/tenants/tenant-service.js';
import { checkPassword, createUser, presentUser } from '../identity/users/user-service.js';
import { setPasswordHashCost } from '../identity/users/password.js';
import { listTenantUsers } from '../identity/users/user-store.js';
import { addSettingOptions, settingValues, storageSettings } from './options.js';
import { registerUserAdmin } from './user-admin-command.js';

const createHelp = `
Output:
  stdout  "created <role> <email> (<user id>) …"; with a generated password, the password
          alone on the last line (capture it with \`| tail -n 1\`). It is shown this once.
  stderr  a reminder that the generated password is shown once.

Examples:
  sightline user create --tenant acme --email alice@example.com --role analyst
  printf '%s' "$PASSWORD" | sightline user create --tenant acme --email bob@example.com --role admin --password-stdin
  sightline user create --email root@example.com --role operator`;

export function registerUser(program: Command): void {
  const user = program.command('user').description('Manage people who sign in: tenant members and platform operators');

  addSettingOptions(
    user
      .command('create')
      .description(
        `Create a user. Tenant roles (${tenantRoles.join(', ')}) need --tenant; --role operator creates a platform operator and takes no --tenant`,
      )
      .option('--tenant <code_name>', "the user's tenant (not for operators)")
      .requiredOption('--email <email>', 'email address, used to sign in')
      .requiredOption('--role <role>', `one of ${roles.join(', ')}`)
      .option('--name <name>', 'display name (default: the email)')
      .option(
        '--password-stdin',
        'read the password from standard input (one trailing newline is dropped) instead of generating one',
      )
      .addHelpText('after', createHelp),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const config = loadConfig(settingValues(options, storageSettings));
    setPasswordHashCost(config.passwordHashCost);
    const tenantCode = typeof options.tenant === 'string' ? options.tenant : undefined;
    const role = String(options.role);
    checkRoleAndTenant(role, tenantCode);
    const password = options.passwordStdin ? await readPasswordFromStdin() : undefined;
    const database = await openDatabase(config);
    try {
      await migrateToLatest(database);
      const tenant = tenantCode === undefined ? undefined : await requireTenantByCodeName(database.db, tenantCode);
      const created = await createUser(database.db, {
        tenantId: tenant?.id ?? null,
        email: String(options.email),
        ...(typeof options.name === 'string' ? { name: options.name } : {}),
        // createUser rejects a role outside `roles` with the list of valid ones.
        role: role as Role,
        ...(password !== undefined ? { password } : {}),
        actor: cliActor,
      });
      const where = tenant ? ` in tenant ${tenant.code_name}` : ' (platform operator)';
      process.stdout.write(`created ${created.user.role} ${created.user.email} (${created.user.id})${where}\n`);
      if (created.generatedPassword !== undefined) {
        process.stderr.write(
          'The generated password is on the last line of stdout. It is shown this once and cannot be read again: store it now.\n',
        );
        process.stdout.write(`${created.generatedPassword}\n`);
      }
    } finally {
      await database.close();
    }
  });

  addSettingOptions(
    user
      .command('list')
      .description(
        "List a tenant's users: id, email, role, name, created_at, status (tab-separated, or --json with the API's user fields)",
      )
      .requiredOption('--tenant <code_name>', 'tenant whose users to list')
      .option('--json', 'one JSON object per line'),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const database = await openDatabase(loadConfig(settingValues(options, storageSettings)), { existing: true });
    try {
      await migrateToLatest(database);
      const tenant = await requireTenantByCodeName(database.db, String(options.tenant));
      for (const row of await listTenantUsers(database.db, tenant.id)) {
        const u = presentUser(row);
        const status = row.disabled_at === null ? 'active' : 'disabled';
        process.stdout.write(
          options.json
            ? `${JSON.stringify({ ...u, status })}\n`
            : `${u.id}\t${u.email}\t${u.role}\t${u.name}\t${u.created_at}\t${status}\n`,
        );
      }
    } finally {
      await database.close();
    }
  });

  registerUserAdmin(user);
}

/** Says which flag is wrong before anything is read or opened; createUser enforces the same rule. */
function checkRoleAndTenant(role: string, tenantCode: string | undefined): void {
  if (role === 'operator' && tenantCode !== undefined) {
    throw new AppError(
      'invalid_request',
      '--role operator creates a platform operator, who belongs to no tenant; leave out --tenant',
    );
  }
  if ((tenantRoles as readonly string[]).includes(role) && tenantCode === undefined) {
    throw new AppError('tenant_required', `--role ${role} is a tenant role: name the tenant with --tenant <code_name>`);
  }
}

async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  // No encoding is set on stdin, so it yields Buffers.
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // `echo` adds one newline; anything else is part of the password.
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (password === '') {
    throw new AppError(
      'invalid_request',
      `--password-stdin read no password: pipe it in, e.g. printf '%s' "$PASSWORD" | sightline user create … --password-stdin`,
      {
        extensions: { field: 'password' },
      },
    );
  }
  checkPassword(password);
  return password;
}
