// `sightline token` as an operator uses it: the real command against a data directory, then the
// tokens it made used against a real server over HTTP. Users: cli-identity.e2e.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { lastLine, useCliDeployment } from '../helpers/cli-deployment.js';
import type { TestServer } from '../helpers/server.js';
import { apiClient, bearer, type Problem } from '../helpers/api.js';
import type { Me } from '../helpers/responses.js';
import { allPermissions } from '../../src/identity/permissions.js';

describe('sightline token', () => {
  let server: TestServer;
  let data: string[];
  let tenant: string;
  const deployment = useCliDeployment();
  before(() => {
    ({ server, data, tenant } = deployment());
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
