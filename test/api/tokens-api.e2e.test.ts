// API tokens through HTTP, on SQLite and PostgreSQL: shown once, hashed at rest, Bearer and
// Basic both accepted, deleted and expired tokens listed but rejected, last use recorded, tokens
// listed and filtered. Permissions, tenant isolation and the operator's tenant header:
// tokens-access-api.e2e.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { useTwoTenants } from '../helpers/two-tenants-fixture.js';
import {
  apiClient,
  basic,
  bearer,
  issueToken,
  seedTenant,
  type ApiClient,
  type ApiResponse,
  type Problem,
} from '../helpers/api.js';
import type { CreatedToken, Me, Page } from '../helpers/responses.js';
import { sha256 } from '../../src/core/secrets.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import type { ApiToken } from '../../src/identity/tokens/token-service.js';

const TOKEN_SHAPE = /^slt_[0-9A-Za-z]{36}$/;

for (const target of databaseTargets) {
  describe(`API tokens on ${target.kind}`, { skip: target.skip }, () => {
    let server: TestServer;
    let acme: Tenant;
    let globex: Tenant;
    let admin: ApiClient;
    const suite = useTwoTenants(target);
    before(() => {
      ({ server, acme, globex, admin } = suite());
    });

    test('the value is shown once, at creation, and only its hash is stored', async () => {
      const created = await admin.post<CreatedToken>('/v1/tokens', {
        name: 'SOAR',
        permissions: ['cases:read', 'tokens:read'],
      });
      assert.equal(created.status, 201);
      assert.equal(created.headers.get('cache-control'), 'no-store');
      const value = created.body.value;
      assert.match(value, TOKEN_SHAPE);
      assert.equal(created.body.token.status, 'active');
      assert.deepEqual(created.body.token.permissions, ['cases:read', 'tokens:read']);
      assert.equal(created.body.token.created_by, 'acme admin');

      const read = await admin.get<ApiToken>(`/v1/tokens/${created.body.token.id}`);
      const list = await admin.get('/v1/tokens');
      assert.equal(read.status, 200);
      assert.ok(
        !JSON.stringify(read.body).includes(value) && !JSON.stringify(list.body).includes(value),
        'the value is never returned again',
      );
      assert.equal(read.body.hint, `slt_…${value.slice(-4)}`);

      const row = await server.sightline.database.db
        .selectFrom('api_tokens')
        .selectAll()
        .where('id', '=', created.body.token.id)
        .executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes(value), 'the stored row does not contain the value');
      assert.equal(row.token_hash, sha256(value));

      const me = await apiClient(server, bearer(value)).get<Me>('/v1/me');
      assert.equal(me.status, 200);
      assert.deepEqual(me.body.permissions, ['cases:read', 'tokens:read']);
      assert.deepEqual(me.body.tenant, { code_name: 'acme', name: 'acme display name' });
    });

    test('Bearer and Basic (any username, the token as password) are both accepted', async () => {
      const { value } = await issueToken(server, acme, ['tokens:read']);
      for (const headers of [
        bearer(value),
        basic(value, 'alice'),
        basic(value, ''),
        { authorization: `bearer ${value}` },
      ]) {
        const response = await apiClient(server, headers).get('/v1/tokens');
        assert.equal(response.status, 200, JSON.stringify(headers));
      }
    });

    test('missing or bad credentials answer 401 naming both schemes', async () => {
      const cases: [Record<string, string>, string][] = [
        [{}, 'unauthenticated'],
        [bearer('slt_not-a-token'), 'invalid_credentials'],
        // Well-formed and with a valid checksum shape, but never issued.
        [bearer(`slt_${'a'.repeat(30)}000000`), 'invalid_credentials'],
        [basic('wrong'), 'invalid_credentials'],
        [{ authorization: 'Digest abc' }, 'invalid_credentials'],
      ];
      for (const [headers, code] of cases) {
        const response = await apiClient(server, headers).get<Problem>('/v1/tokens');
        assert.equal(response.status, 401);
        assert.equal(response.body.code, code);
        assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
        assert.match(
          response.headers.get('www-authenticate') ?? '',
          /^Bearer realm="sightline", Basic realm="sightline"/,
        );
      }
    });

    test('a deleted token stays listed, marked deleted, and can never authenticate again', async () => {
      const { value, id } = await issueToken(server, acme, ['cases:read'], { name: 'to delete' });
      assert.equal((await apiClient(server, bearer(value)).get('/v1/me')).status, 200);
      const deleted = await admin.delete<ApiToken>(`/v1/tokens/${id}`);
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.status, 'deleted');
      assert.equal(deleted.body.deleted_by, 'acme admin');
      assert.ok(deleted.body.deleted_at);

      const rejected = await apiClient(server, bearer(value)).get<Problem>('/v1/me');
      assert.equal(rejected.status, 401);
      assert.equal(rejected.body.code, 'token_revoked');
      const listed = (await admin.get<Page<'tokens', ApiToken>>('/v1/tokens?limit=500')).body.tokens.find(
        (token) => token.id === id,
      );
      assert.equal(listed!.status, 'deleted');
      // Deleting again changes nothing.
      const again = await admin.delete<ApiToken>(`/v1/tokens/${id}`);
      assert.equal(again.status, 200);
      assert.equal(again.body.deleted_at, deleted.body.deleted_at);
    });

    test('an expired token is listed as expired and rejected', async () => {
      const { value, id } = await issueToken(server, acme, ['cases:read'], { expiresAt: Date.now() + 60_000 });
      assert.equal((await apiClient(server, bearer(value)).get('/v1/me')).status, 200);
      // Its expiry passes (set in the store rather than waiting).
      await server.sightline.database.db
        .updateTable('api_tokens')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', id)
        .execute();
      const rejected = await apiClient(server, bearer(value)).get<Problem>('/v1/me');
      assert.equal(rejected.status, 401);
      assert.equal(rejected.body.code, 'token_expired');
      assert.equal((await admin.get<ApiToken>(`/v1/tokens/${id}`)).body.status, 'expired');
    });

    test('creating a token that expires in the past, or with an unknown permission, is refused', async () => {
      const past = await admin.post<Problem>('/v1/tokens', {
        name: 'x',
        permissions: ['cases:read'],
        expires_at: '2020-01-01T00:00:00Z',
      });
      assert.equal(past.status, 400);
      assert.equal(past.body.field, 'expires_at');
      const unknown = await admin.post<Problem>('/v1/tokens', { name: 'x', permissions: ['cases:delete'] });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.code, 'invalid_request');
      assert.match(unknown.body.detail, /permissions/);
    });

    test('a token cannot grant what its creator lacks', async () => {
      const { value } = await issueToken(server, acme, ['tokens:write', 'cases:read']);
      const creator = apiClient(server, bearer(value));
      const wider = await creator.post<Problem>('/v1/tokens', { name: 'wider', permissions: ['audit:read'] });
      assert.equal(wider.status, 403);
      assert.deepEqual(wider.body.missing_permissions, ['audit:read']);
      const all = await creator.post<CreatedToken>('/v1/tokens', { name: 'all of mine', permissions: ['all'] });
      assert.equal(all.status, 201);
      assert.deepEqual(all.body.token.permissions, ['cases:read', 'tokens:write']);
    });

    test('last use (time and client address) is recorded', async () => {
      const { value, id } = await issueToken(server, acme, ['cases:read']);
      assert.equal((await admin.get<ApiToken>(`/v1/tokens/${id}`)).body.last_used_at, null);
      const before = Date.now();
      await apiClient(server, bearer(value)).get('/v1/me');
      const token = (await admin.get<ApiToken>(`/v1/tokens/${id}`)).body;
      assert.ok(Date.parse(token.last_used_at!) >= before - 1000, token.last_used_at!);
      assert.equal(token.last_used_ip, '127.0.0.1');
    });

    test('lists page with an opaque cursor, newest first, every token exactly once', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 7; i++)
        ids.push((await issueToken(server, globex, ['cases:read'], { name: `page ${i}` })).id);
      const reader = apiClient(server, bearer((await issueToken(server, globex, ['tokens:read'])).value));
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const response: ApiResponse<Page<'tokens', ApiToken>> = await reader.get(
          `/v1/tokens?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(response.status, 200);
        assert.ok(response.body.tokens.length <= 3);
        seen.push(...response.body.tokens.map((token) => token.id));
        cursor = response.body.next_cursor;
      } while (cursor);
      assert.equal(seen.length, 8);
      assert.equal(new Set(seen).size, 8);
      assert.ok(ids.every((id) => seen.includes(id)));
      const bad = await reader.get<Problem>('/v1/tokens?cursor=nonsense');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'invalid_cursor');
    });

    test('the list filters by status and by text in the name or creator, on every page', async () => {
      const hooli = await seedTenant(server, 'hooli');
      const reader = apiClient(
        server,
        bearer((await issueToken(server, hooli, ['tokens:read', 'tokens:write'], { name: 'Reader' })).value),
      );
      const expiring = await issueToken(server, hooli, ['cases:read'], {
        name: 'Forwarder West',
        expiresAt: Date.now() + 60_000,
      });
      await server.sightline.database.db
        .updateTable('api_tokens')
        .set({ expires_at: Date.now() - 1 })
        .where('id', '=', expiring.id)
        .execute();
      const deleted = await issueToken(server, hooli, ['cases:read'], { name: 'forwarder east' });
      assert.equal((await reader.delete(`/v1/tokens/${deleted.id}`)).status, 200);
      const active: string[] = [];
      for (let i = 0; i < 4; i++)
        active.push(
          (await issueToken(server, hooli, ['cases:read'], { name: `script ${i}`, expiresAt: Date.now() + 3_600_000 }))
            .id,
        );

      async function listed(query: string): Promise<{ id: string; status: string }[]> {
        const all: { id: string; status: string }[] = [];
        let cursor: string | null = null;
        do {
          const response: ApiResponse<Page<'tokens', ApiToken>> = await reader.get(
            `/v1/tokens?limit=2&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          assert.equal(response.status, 200, JSON.stringify(response.body));
          all.push(...response.body.tokens);
          cursor = response.body.next_cursor;
        } while (cursor);
        return all;
      }
      const ids = (tokens: { id: string }[]) => tokens.map((token) => token.id).sort();
      assert.deepEqual(ids(await listed('status=expired')), [expiring.id]);
      assert.deepEqual(ids(await listed('status=deleted')), [deleted.id]);
      const expiredOrDeleted = await listed('status=expired,deleted');
      assert.deepEqual(ids(expiredOrDeleted), [expiring.id, deleted.id].sort());
      const activeOnes = await listed('status=active');
      assert.equal(activeOnes.length, 5, 'the reader and the four scripts');
      assert.ok(activeOnes.every((token) => token.status === 'active'));
      assert.ok(active.every((id) => activeOnes.some((token) => token.id === id)));
      // Case-insensitive, in the name or the creator (every token here was created by the CLI).
      assert.deepEqual(ids(await listed('q=FORWARDER')), [expiring.id, deleted.id].sort());
      assert.deepEqual(ids(await listed('q=forwarder&status=active')), []);
      assert.equal((await listed('q=cli')).length, 7);
      // Wildcards are literal.
      assert.deepEqual(await listed('q=%25'), []);

      const bad = await reader.get<Problem>('/v1/tokens?status=revoked');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'invalid_request');
      assert.match(bad.body.detail, /status/);
    });
  });
}
