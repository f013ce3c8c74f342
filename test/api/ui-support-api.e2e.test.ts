// The two endpoints the web UI's pickers need, through HTTP on SQLite and PostgreSQL:
// GET /v1/users (the tenant's active users for the assignee picker: tenant-scoped, never
// operators or another tenant's people, `q` prefix filter, cursor pages, `cases:read`) and
// GET /v1/attack/techniques (the bundled ATT&CK catalogue searched by id or name, for any
// signed-in caller).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { apiClient, bearer, issueToken, signIn, type ApiClient, type Problem, type Session } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { createUser } from '../../src/identity/users/user-service.js';
import { cliActor } from '../../src/identity/principal.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';

interface Member {
  id: string;
  email: string;
  name: string;
  role: string;
}

/** GET /v1/attack/techniques */
interface Techniques {
  techniques: { id: string; name: string; tactics: string[]; parent: { id: string; name: string } | null }[];
  attack_version: string;
}

for (const target of databaseTargets) {
  describe(`UI support API on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let server: TestServer;
    let acme: Tenant;
    let globex: Tenant;
    let analyst: Session;
    let operator: Session;

    before(async () => {
      ({ server, acme, globex } = suite);
      const db = server.sightline.database.db;
      const add = (
        tenant: Tenant | null,
        email: string,
        role: 'admin' | 'analyst' | 'viewer' | 'operator',
        name?: string,
      ) =>
        createUser(db, {
          tenantId: tenant?.id ?? null,
          email,
          role,
          ...(name ? { name } : {}),
          password: 'a long enough test password',
          actor: cliActor,
        });
      await add(acme, 'bob@acme.test', 'viewer', 'Bob Stone');
      await add(acme, 'carla@acme.test', 'admin', 'Carla Reyes');
      await add(acme, 'dan_ops@acme.test', 'analyst', 'Dan%Percent');
      await add(acme, 'eve@acme.test', 'analyst');
      await add(globex, 'gina@globex.test', 'analyst', 'Gina Acme-fan');
      await add(globex, 'alex@globex.test', 'admin');
      analyst = await signIn(server, { tenant: acme, role: 'analyst', email: 'alice@acme.test' });
      operator = await signIn(server, { tenant: null, role: 'operator', email: `ops-${target.kind}@platform.test` });
    });

    async function users(
      client: ApiClient,
      query = '',
      headers?: Record<string, string>,
    ): Promise<{ users: Member[]; next_cursor: string | null }> {
      const response = await client.get<{ users: Member[]; next_cursor: string | null }>(`/v1/users${query}`, headers);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    }
    const emails = (page: { users: Member[] }) => page.users.map((user) => user.email);

    test("GET /v1/users lists the tenant's own users by email, with id, email, name and role only", async () => {
      const page = await users(analyst.client);
      assert.deepEqual(emails(page), [
        'alice@acme.test',
        'bob@acme.test',
        'carla@acme.test',
        'dan_ops@acme.test',
        'eve@acme.test',
      ]);
      assert.equal(page.next_cursor, null);
      const bob = page.users.find((user) => user.email === 'bob@acme.test')!;
      assert.deepEqual(Object.keys(bob).sort(), ['email', 'id', 'name', 'role']);
      assert.match(bob.id, /^usr_/);
      assert.equal(bob.name, 'Bob Stone');
      assert.equal(bob.role, 'viewer');
      assert.equal(
        page.users.find((user) => user.email === 'eve@acme.test')!.name,
        'eve@acme.test',
        'no name given: the email',
      );
    });

    test("tenant isolation: another tenant's users and platform operators are never listed", async () => {
      const acmeToken = apiClient(server, bearer((await issueToken(server, acme, ['cases:read'])).value));
      const globexToken = apiClient(server, bearer((await issueToken(server, globex, ['cases:read'])).value));
      for (const [client, own, foreign] of [
        [acmeToken, '@acme.test', '@globex.test'],
        [globexToken, '@globex.test', '@acme.test'],
      ] as const) {
        const all = emails(await users(client, '?limit=500'));
        assert.ok(all.length > 0 && all.every((email) => email.endsWith(own)), `only ${own}: ${all.join(', ')}`);
        assert.ok(
          !all.some((email) => email.endsWith(foreign) || email.includes('platform')),
          'no foreign user, no operator',
        );
      }
      // A search that only another tenant's user would match finds nothing.
      assert.deepEqual(emails(await users(acmeToken, '?q=gina')), []);
      assert.deepEqual(emails(await users(globexToken, '?q=bob')), []);
      // A tenant member naming another tenant is answered as if it did not exist.
      const named = await analyst.client.get<Problem>('/v1/users', { 'sightline-tenant': 'globex' });
      assert.equal(named.status, 404);
      assert.equal(named.body.code, 'tenant_not_found');
      // Operators list the tenant they name, and only it; never themselves.
      assert.deepEqual(emails(await users(operator.client, '', { 'sightline-tenant': 'globex' })), [
        'alex@globex.test',
        'gina@globex.test',
      ]);
      const required = await operator.client.get<Problem>('/v1/users');
      assert.equal(required.status, 400);
      assert.equal(required.body.code, 'tenant_required');
    });

    test('q keeps users whose email or name starts with it, case-insensitively; LIKE wildcards are literal', async () => {
      assert.deepEqual(emails(await users(analyst.client, '?q=CAR')), ['carla@acme.test'], 'email prefix, any case');
      assert.deepEqual(emails(await users(analyst.client, '?q=bob%20st')), ['bob@acme.test'], 'name prefix');
      assert.deepEqual(emails(await users(analyst.client, '?q=stone')), [], 'a prefix, not a substring');
      assert.deepEqual(emails(await users(analyst.client, '?q=dan_')), ['dan_ops@acme.test']);
      assert.deepEqual(emails(await users(analyst.client, '?q=d_n')), [], '_ matches itself only');
      assert.deepEqual(
        emails(await users(analyst.client, `?q=${encodeURIComponent('Dan%P')}`)),
        ['dan_ops@acme.test'],
        '% in a name matches itself',
      );
      assert.deepEqual(emails(await users(analyst.client, '?q=%25')), [], '% alone matches nothing');
    });

    test('cursor pages walk every user once', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await users(analyst.client, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.ok(page.users.length <= 2);
        seen.push(...emails(page));
        cursor = page.next_cursor;
        pages++;
      } while (cursor);
      assert.equal(pages, 3);
      assert.deepEqual(seen, [
        'alice@acme.test',
        'bob@acme.test',
        'carla@acme.test',
        'dan_ops@acme.test',
        'eve@acme.test',
      ]);
      const bad = await analyst.client.get<Problem>('/v1/users?cursor=nonsense');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'invalid_cursor');
      const unknown = await analyst.client.get('/v1/users?role=admin');
      assert.equal(unknown.status, 400, 'unknown query parameters are refused');
    });

    test('GET /v1/users needs cases:read (403 permission_denied) and credentials (401)', async () => {
      const without = apiClient(
        server,
        bearer(
          (
            await issueToken(
              server,
              acme,
              allPermissions.filter((permission) => permission !== 'cases:read'),
            )
          ).value,
        ),
      );
      const denied = await without.get<Problem>('/v1/users');
      assert.equal(denied.status, 403);
      assert.equal(denied.body.code, 'permission_denied');
      assert.equal(denied.body.required_permission, 'cases:read');
      const viewer = await signIn(server, { tenant: acme, role: 'viewer', email: 'vera@acme.test' });
      assert.ok(
        emails(await users(viewer.client)).includes('vera@acme.test'),
        'a viewer reads cases, so may list the people',
      );
      assert.equal((await apiClient(server).get('/v1/users')).status, 401);
    });

    test('GET /v1/attack/techniques finds techniques by id and name, best match first', async () => {
      const search = async (query: string) => {
        const response = await analyst.client.get<Techniques>(`/v1/attack/techniques${query}`);
        assert.equal(response.status, 200, JSON.stringify(response.body));
        return response.body;
      };
      const byId = await search('?q=t1059');
      assert.equal(byId.attack_version, '18.1');
      assert.equal(byId.techniques[0]!.id, 'T1059', 'the exact id first');
      assert.deepEqual(byId.techniques[0], {
        id: 'T1059',
        name: 'Command and Scripting Interpreter',
        tactics: ['Execution'],
        parent: null,
      });
      assert.ok(
        byId.techniques.slice(1).every((technique) => technique.id.startsWith('T1059.')),
        'then its sub-techniques',
      );
      const unix = byId.techniques.find((technique) => technique.id === 'T1059.004');
      assert.deepEqual(unix, {
        id: 'T1059.004',
        name: 'Unix Shell',
        tactics: ['Execution'],
        parent: { id: 'T1059', name: 'Command and Scripting Interpreter' },
      });

      const byName = await search('?q=UNIX%20SHELL');
      assert.equal(byName.techniques[0]!.id, 'T1059.004', 'names match case-insensitively');
      const phishing = await search('?q=phish&limit=3');
      assert.equal(phishing.techniques.length, 3, 'limit holds');
      assert.ok(
        phishing.techniques.every(
          (technique) => /phish/i.test(technique.name) || /phish/i.test(technique.parent?.name ?? ''),
        ),
      );
      const parentName = await search('?q=scripting%20interpreter:%20python');
      assert.equal(parentName.techniques[0]!.id, 'T1059.006', 'a sub-technique by "parent: name"');
      assert.deepEqual((await search('?q=no%20such%20technique%20anywhere')).techniques, []);
      const first = await search('?limit=5');
      assert.deepEqual(
        first.techniques.map((technique) => technique.id),
        [...first.techniques.map((technique) => technique.id)].sort(),
        'without q: by id',
      );
      assert.equal(first.techniques.length, 5);
    });

    test('GET /v1/attack/techniques is reference data: any signed-in caller, no tenant needed; bad input is refused', async () => {
      const narrow = apiClient(server, bearer((await issueToken(server, globex, ['tokens:read'])).value));
      assert.equal(
        (await narrow.get<Techniques>('/v1/attack/techniques?q=T1190')).body.techniques[0]!.name,
        'Exploit Public-Facing Application',
      );
      const asOperator = await operator.client.get('/v1/attack/techniques?q=T1190');
      assert.equal(asOperator.status, 200, 'an operator needs no Sightline-Tenant header');
      assert.equal((await apiClient(server).get('/v1/attack/techniques')).status, 401);
      for (const query of ['?limit=0', '?limit=101', `?q=${'x'.repeat(101)}`, '?tactic=execution']) {
        const response = await analyst.client.get<Problem>(`/v1/attack/techniques${query}`);
        assert.equal(response.status, 400, query);
        assert.equal(response.body.code, 'invalid_request');
      }
    });
  });
}
