// `sightline user` as an operator uses it: the real command against a data directory, then the
// accounts it made signing in to a real server over HTTP. Tokens: cli-tokens.e2e.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { lastLine, useCliDeployment } from '../helpers/cli-deployment.js';
import type { TestServer } from '../helpers/server.js';
import { apiClient } from '../helpers/api.js';
import type { SessionAnswer } from '../helpers/responses.js';

let counter = 0;
function uniqueEmail(role: string): string {
  counter += 1;
  return `${role}-${counter}-${process.pid}@example.com`;
}

describe('sightline user', () => {
  let server: TestServer;
  let data: string[];
  let tenant: string;
  const deployment = useCliDeployment();
  before(() => {
    ({ server, data, tenant } = deployment());
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
      assert.match(duplicate.stderr, /user_exists.*already a member of this tenant/);
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
});
