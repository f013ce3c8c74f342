// `sightline user` and `sightline token` as an operator uses them: the real command against a
// data directory, then the accounts and tokens it made used against a real server over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets, type TestDatabase } from './helpers/databases.js';
import { runCli } from './helpers/cli.js';
import { startServer, type TestServer } from './helpers/server.js';
import { apiClient, bearer, type Problem } from './helpers/api.js';
import type { Me, SessionAnswer } from './helpers/responses.js';
import { allPermissions } from '../src/identity/permissions.js';

function lastLine(output: string): string {
  return output.trimEnd().split('\n').at(-1) ?? '';
}

let counter = 0;
function uniqueEmail(role: string): string {
  counter += 1;
  return `${role}-${counter}-${process.pid}@example.com`;
}

// SQLite is enough here: the commands only call the identity services, which the API suites
// already run on both dialects.
const sqlite = databaseTargets.find((target) => target.kind === 'sqlite')!;

describe('sightline user and token', () => {
  let database: TestDatabase;
  let server: TestServer;
  let data: string[];
  const tenant = 'acme';

  before(async () => {
    database = await sqlite.create();
    data = ['--data', database.dataDir];
    const created = await runCli(['tenant', 'create', tenant, ...data]);
    assert.equal(created.code, 0, created.stderr);
    server = await startServer(database);
  });

  after(async () => {
    await server.close();
    await database.cleanup();
  });

  async function signIn(email: string, password: string) {
    return apiClient(server).post<SessionAnswer>('/v1/auth/login', { email, password });
  }

  describe('user create', () => {
    test('generates a password, prints it alone on the last line of stdout, and it signs in', async () => {
      const email = uniqueEmail('analyst');
      const result = await runCli([
        'user',
        'create',
        '--tenant',
        tenant,
        '--email',
        email.toUpperCase(),
        '--role',
        'analyst',
        '--name',
        'Alice',
        ...data,
      ]);
      assert.equal(result.code, 0, result.stderr);
      const lines = result.stdout.trimEnd().split('\n');
      assert.equal(lines.length, 2);
      assert.match(
        lines[0]!,
        new RegExp(`^created analyst ${email.replace(/[.]/g, '\\.')} \\(usr_\\w+\\) in tenant acme$`),
      );
      const password = lastLine(result.stdout);
      assert.match(password, /^[0-9A-Za-z]{24}$/);
      assert.match(result.stderr, /shown this once/);

      const login = await signIn(email, password);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      assert.equal(login.body.user.role, 'analyst');
      assert.equal(login.body.user.name, 'Alice');
      assert.deepEqual(login.body.tenant, { code_name: tenant, name: tenant });
    });

    test('--password-stdin takes the password from stdin, dropping one trailing newline', async () => {
      const email = uniqueEmail('admin');
      const password = 'correct horse battery staple';
      const result = await runCli(
        ['user', 'create', '--tenant', tenant, '--email', email, '--role', 'admin', '--password-stdin', ...data],
        {},
        `${password}\n`,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trimEnd().split('\n').length, 1, 'no password is printed');
      assert.doesNotMatch(result.stdout + result.stderr, new RegExp(password));
      assert.equal((await signIn(email, password)).status, 200);
      assert.equal((await signIn(email, `${password}\n`)).status, 401);
    });

    test('--password-stdin refuses an empty, too short, common or guessable password', async () => {
      const empty = await runCli(
        [
          'user',
          'create',
          '--tenant',
          tenant,
          '--email',
          uniqueEmail('viewer'),
          '--role',
          'viewer',
          '--password-stdin',
          ...data,
        ],
        {},
        '\n',
      );
      assert.equal(empty.code, 1);
      assert.match(empty.stderr, /--password-stdin read no password/);
      const short = await runCli(
        [
          'user',
          'create',
          '--tenant',
          tenant,
          '--email',
          uniqueEmail('viewer'),
          '--role',
          'viewer',
          '--password-stdin',
          ...data,
        ],
        {},
        'tooshort\n',
      );
      assert.equal(short.code, 1);
      assert.match(short.stderr, /password must be 12 to 1024 characters/);
      // Long enough, yet a guesser's first tries: a listed common password, a keyboard walk with
      // a year, or the account's own name repeated.
      for (const [password, reason] of [
        ['Password1234', /common passwords/],
        ['qwertyuiop2026', /easy to guess/],
        ['mallorymallory', /easy to guess/],
      ] as const) {
        const weak = await runCli(
          [
            'user',
            'create',
            '--tenant',
            tenant,
            '--email',
            'mallory@example.com',
            '--role',
            'viewer',
            '--password-stdin',
            ...data,
          ],
          {},
          `${password}\n`,
        );
        assert.equal(weak.code, 1, password);
        assert.match(weak.stderr, reason, password);
      }
    });

    test('--role operator without --tenant creates a platform operator; role and tenant must agree', async () => {
      const email = uniqueEmail('operator');
      const result = await runCli(['user', 'create', '--email', email, '--role', 'operator', ...data]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^created operator .* \(platform operator\)$/m);
      const login = await signIn(email, lastLine(result.stdout));
      assert.equal(login.status, 200);
      assert.equal(login.body.user.role, 'operator');
      assert.equal(login.body.tenant, null);

      const withTenant = await runCli([
        'user',
        'create',
        '--tenant',
        tenant,
        '--email',
        uniqueEmail('operator'),
        '--role',
        'operator',
        ...data,
      ]);
      assert.equal(withTenant.code, 1);
      assert.match(withTenant.stderr, /invalid_request.*operator.*leave out --tenant/);

      const withoutTenant = await runCli([
        'user',
        'create',
        '--email',
        uniqueEmail('admin'),
        '--role',
        'admin',
        ...data,
      ]);
      assert.equal(withoutTenant.code, 1);
      assert.match(withoutTenant.stderr, /tenant_required.*--tenant/);
    });

    test('duplicate email, bad email, unknown role and unknown tenant fail with the reason', async () => {
      const email = uniqueEmail('viewer');
      assert.equal(
        (await runCli(['user', 'create', '--tenant', tenant, '--email', email, '--role', 'viewer', ...data])).code,
        0,
      );
      const duplicate = await runCli([
        'user',
        'create',
        '--tenant',
        tenant,
        '--email',
        email.toUpperCase(),
        '--role',
        'admin',
        ...data,
      ]);
      assert.equal(duplicate.code, 1);
      assert.match(duplicate.stderr, /user_exists.*already exists/);
      assert.equal(duplicate.stdout, '');

      const badEmail = await runCli([
        'user',
        'create',
        '--tenant',
        tenant,
        '--email',
        'not-an-email',
        '--role',
        'viewer',
        ...data,
      ]);
      assert.equal(badEmail.code, 1);
      assert.match(badEmail.stderr, /invalid_request.*not an email address/);

      const badRole = await runCli([
        'user',
        'create',
        '--tenant',
        tenant,
        '--email',
        uniqueEmail('x'),
        '--role',
        'superuser',
        ...data,
      ]);
      assert.equal(badRole.code, 1);
      assert.match(badRole.stderr, /role must be one of operator, admin, analyst, viewer/);

      const noTenant = await runCli([
        'user',
        'create',
        '--tenant',
        'nosuch',
        '--email',
        uniqueEmail('viewer'),
        '--role',
        'viewer',
        ...data,
      ]);
      assert.equal(noTenant.code, 1);
      assert.match(noTenant.stderr, /tenant_not_found.*"nosuch"/);
    });

    test('user list shows the tenant members', async () => {
      const email = uniqueEmail('listed');
      assert.equal(
        (await runCli(['user', 'create', '--tenant', tenant, '--email', email, '--role', 'viewer', ...data])).code,
        0,
      );
      const listed = await runCli(['user', 'list', '--tenant', tenant, '--json', ...data]);
      assert.equal(listed.code, 0, listed.stderr);
      const users = listed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { email: string; role: string });
      assert.ok(users.some((u) => u.email === email && u.role === 'viewer'));
      assert.ok(users.every((u) => u.role !== 'operator'));
    });
  });

  describe('token', () => {
    test('create prints the value alone on stdout; only its hash is stored; it authenticates with the permissions given', async () => {
      const result = await runCli([
        'token',
        'create',
        '--tenant',
        tenant,
        '--name',
        'SOAR integration',
        '--permissions',
        'telemetry:read, cases:read',
        ...data,
      ]);
      assert.equal(result.code, 0, result.stderr);
      const value = lastLine(result.stdout);
      assert.match(value, /^slt_[0-9A-Za-z]{36}$/);
      assert.equal(result.stdout, `${value}\n`);
      assert.match(result.stderr, /created token tok_\w+ "SOAR integration" for tenant acme/);
      assert.match(result.stderr, /permissions: cases:read, telemetry:read/);
      // Without --expires-in: the default lifetime, the same as the API's and the web UI's.
      const expires = /expires: (\S+Z)/.exec(result.stderr)?.[1];
      assert.ok(expires, result.stderr);
      assert.ok(Math.abs(Date.parse(expires) - (Date.now() + 30 * 86_400_000)) < 120_000, expires);
      assert.match(result.stderr, /shown this once/);
      assert.doesNotMatch(result.stderr, new RegExp(value));

      const rows = await server.sightline.database.db
        .selectFrom('api_tokens')
        .selectAll()
        .where('name', '=', 'SOAR integration')
        .execute();
      assert.equal(rows.length, 1);
      assert.doesNotMatch(JSON.stringify(rows[0]), new RegExp(value.slice(4)));
      assert.equal(rows[0]!.expires_at, Date.parse(expires));
      assert.equal(rows[0]!.created_by, 'cli');

      const me = await apiClient(server, bearer(value)).get<Me>('/v1/me');
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.kind, 'token');
      assert.equal(me.body.label, 'SOAR integration');
      assert.deepEqual(me.body.permissions, ['cases:read', 'telemetry:read']);
      assert.deepEqual(me.body.tenant, { code_name: tenant, name: tenant });
    });

    test('--permissions all grants every permission; --expires-in sets the expiry', async () => {
      const start = Date.now();
      const result = await runCli([
        'token',
        'create',
        '--tenant',
        tenant,
        '--name',
        'expiring',
        '--permissions',
        'all',
        '--expires-in',
        '30d',
        ...data,
      ]);
      assert.equal(result.code, 0, result.stderr);
      const value = lastLine(result.stdout);
      const row = await server.sightline.database.db
        .selectFrom('api_tokens')
        .selectAll()
        .where('name', '=', 'expiring')
        .executeTakeFirstOrThrow();
      const thirtyDays = 30 * 86_400_000;
      assert.ok(
        row.expires_at !== null && row.expires_at >= start + thirtyDays && row.expires_at <= Date.now() + thirtyDays,
        String(row.expires_at),
      );
      assert.match(result.stderr, new RegExp(`expires: ${new Date(row.expires_at).toISOString()}`));
      const me = await apiClient(server, bearer(value)).get<Me>('/v1/me');
      assert.equal(me.status, 200);
      assert.deepEqual(me.body.permissions, allPermissions);
    });

    test('a bad --expires-in, an unknown permission or an unknown tenant fails with the reason and creates nothing', async () => {
      for (const span of ['0', 'soon', '90']) {
        const result = await runCli([
          'token',
          'create',
          '--tenant',
          tenant,
          '--name',
          'bad-span',
          '--permissions',
          'cases:read',
          `--expires-in=${span}`,
          ...data,
        ]);
        assert.equal(result.code, 1, span);
        assert.match(result.stderr, /--expires-in must be a span greater than zero with a unit/, span);
        assert.equal(result.stdout, '');
      }
      // never, or a span past the maximum lifetime (365 days unless the operator says none).
      for (const span of ['never', '400d']) {
        const args = ['token', 'create', '--tenant', tenant, '--name', 'too-long', '--permissions', 'cases:read'];
        const result = await runCli([...args, `--expires-in=${span}`, ...data]);
        assert.equal(result.code, 1, span);
        assert.match(result.stderr, /tokens live at most 365 days here/, span);
        assert.equal(result.stdout, '');
      }
      const forever = await runCli([
        'token',
        'create',
        '--tenant',
        tenant,
        '--name',
        'forever',
        '--permissions',
        'cases:read',
        '--expires-in=never',
        '--token-max-lifetime=none',
        ...data,
      ]);
      assert.equal(forever.code, 0, forever.stderr);
      assert.match(forever.stderr, /expires: never/);
      const badPermission = await runCli([
        'token',
        'create',
        '--tenant',
        tenant,
        '--name',
        'bad-permission',
        '--permissions',
        'cases:read,cases:delete',
        ...data,
      ]);
      assert.equal(badPermission.code, 1);
      assert.match(badPermission.stderr, /invalid_permission.*"cases:delete".*known: .*cases:read.*audit:read/);
      assert.equal(badPermission.stdout, '');

      const noTenant = await runCli([
        'token',
        'create',
        '--tenant',
        'nosuch',
        '--name',
        'x',
        '--permissions',
        'all',
        ...data,
      ]);
      assert.equal(noTenant.code, 1);
      assert.match(noTenant.stderr, /tenant_not_found.*"nosuch"/);

      const rows = await server.sightline.database.db
        .selectFrom('api_tokens')
        .select('name')
        .where('name', 'in', ['bad-span', 'too-long', 'bad-permission', 'x'])
        .execute();
      assert.deepEqual(rows, []);
    });

    test('list shows tokens without their values; delete marks one deleted and it no longer authenticates', async () => {
      const created = await runCli([
        'token',
        'create',
        '--tenant',
        tenant,
        '--name',
        'to-delete',
        '--permissions',
        'cases:read',
        ...data,
      ]);
      assert.equal(created.code, 0, created.stderr);
      const value = lastLine(created.stdout);
      assert.equal((await apiClient(server, bearer(value)).get('/v1/me')).status, 200);

      const listed = await runCli(['token', 'list', '--tenant', tenant, '--json', ...data]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.doesNotMatch(listed.stdout, new RegExp(value));
      const tokens = listed.stdout
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              id: string;
              name: string;
              status: string;
              last_used_at: string | null;
              created_by: string;
            },
        );
      const token = tokens.find((t) => t.name === 'to-delete');
      assert.ok(token);
      assert.equal(token.status, 'active');
      assert.equal(token.created_by, 'cli');
      assert.notEqual(token.last_used_at, null);

      const text = await runCli(['token', 'list', '--tenant', tenant, ...data]);
      assert.doesNotMatch(text.stdout, new RegExp(value));
      assert.match(
        text.stdout,
        new RegExp(`^${token.id}\\tto-delete\\tactive\\tcases:read\\tcli\\t\\S+Z\\t\\S+Z\\t\\S+Z$`, 'm'),
      );

      const deleted = await runCli(['token', 'delete', '--tenant', tenant, token.id, ...data]);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.match(deleted.stdout, new RegExp(`^deleted token ${token.id} "to-delete"`));

      const rejected = await apiClient(server, bearer(value)).get<Problem>('/v1/me');
      assert.equal(rejected.status, 401);
      assert.equal(rejected.body.code, 'token_revoked');

      const afterDelete = await runCli(['token', 'list', '--tenant', tenant, ...data]);
      assert.match(afterDelete.stdout, new RegExp(`^${token.id}\\tto-delete\\tdeleted\\t`, 'm'));

      const unknown = await runCli(['token', 'delete', '--tenant', tenant, 'tok_doesnotexist', ...data]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /not_found.*tok_doesnotexist/);
    });
  });
});
