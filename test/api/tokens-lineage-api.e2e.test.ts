// Token rules through HTTP, on SQLite and PostgreSQL: a token mints tokens no broader and no
// longer-lived than itself, and deleting it revokes them (and theirs), listed as revoked with the
// reason; every token gets the default lifetime unless it names one, never beyond the maximum;
// people without tokens:write create, see and delete their own tokens only; the review-request
// list needs a permission.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, signIn, type ApiClient } from '../helpers/api.js';
import type { CreatedToken, Me, Page } from '../helpers/responses.js';
import { allPermissions } from '../../src/identity/permissions.js';
import type { ApiToken } from '../../src/identity/tokens/token-service.js';

const DAY = 86_400_000;

for (const target of databaseTargets) {
  describe(`token lineage, lifetime and ownership on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, { tokenLifetime: '30d', tokenMaxLifetime: '90d' });
    let admin: ApiClient;
    before(async () => {
      admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
    });

    const mint = async (client: ApiClient, name: string, body: Record<string, unknown> = {}) => {
      const created = await client.post<CreatedToken>('/v1/tokens', { name, permissions: ['cases:read'], ...body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    };
    const meStatus = async (value: string) => (await apiClient(suite.server, bearer(value)).get('/v1/me')).status;

    test('deleting a token revokes what it minted, and what those minted, each saying why', async () => {
      const parent = await mint(admin, 'parent', { permissions: ['cases:read', 'tokens:write', 'tokens:read'] });
      const parentClient = apiClient(suite.server, bearer(parent.value));
      const child = await mint(parentClient, 'child', { permissions: ['cases:read', 'tokens:write'] });
      const grandchild = await mint(apiClient(suite.server, bearer(child.value)), 'grandchild');
      const sibling = await mint(admin, 'unrelated');
      assert.equal(child.token.parent_token_id, parent.token.id);
      assert.equal(grandchild.token.parent_token_id, child.token.id);
      assert.equal(await meStatus(grandchild.value), 200);

      assert.equal((await admin.delete(`/v1/tokens/${parent.token.id}`)).status, 200);
      for (const value of [parent.value, child.value, grandchild.value]) assert.equal(await meStatus(value), 401);
      assert.equal(await meStatus(sibling.value), 200, 'a token the parent did not mint keeps working');

      for (const revoked of [child.token, grandchild.token]) {
        const shown = await admin.get<ApiToken>(`/v1/tokens/${revoked.id}`);
        assert.equal(shown.body.status, 'deleted');
        assert.match(shown.body.revoked_reason ?? '', /"parent" \(tok_[^)]+\).*was deleted/);
      }
      assert.equal((await admin.get<ApiToken>(`/v1/tokens/${parent.token.id}`)).body.revoked_reason, null);
      const audit = await admin.get<{ events: { action: string; target: { id: string } | null }[] }>(
        '/v1/audit-events?limit=50',
      );
      const revokedIds = audit.body.events.filter((event) => event.action === 'token.revoked').map((e) => e.target?.id);
      assert.deepEqual(new Set(revokedIds), new Set([child.token.id, grandchild.token.id]));
    });

    test('a minted token is no broader and no longer-lived than its parent', async () => {
      const end = new Date(Date.now() + 10 * DAY).toISOString();
      const parent = await mint(admin, 'short parent', {
        permissions: ['cases:read', 'tokens:write'],
        expires_at: end,
      });
      const parentClient = apiClient(suite.server, bearer(parent.value));
      expectProblem(
        await parentClient.post('/v1/tokens', { name: 'broader', permissions: ['audit:read'] }),
        403,
        'permission_denied',
      );
      const later = new Date(Date.now() + 20 * DAY).toISOString();
      expectProblem(
        await parentClient.post('/v1/tokens', { name: 'longer', permissions: ['cases:read'], expires_at: later }),
        400,
        'invalid_request',
      );
      // Without an expiry, the child gets the default, cut to its parent's end.
      const child = await mint(parentClient, 'defaulted');
      assert.equal(child.token.expires_at, parent.token.expires_at);
    });

    test('one default lifetime, and a maximum that no request passes', async () => {
      const before = Date.now();
      const defaulted = await mint(admin, 'default lifetime');
      const expires = Date.parse(defaulted.token.expires_at ?? '');
      assert.ok(Math.abs(expires - (before + 30 * DAY)) < 60_000, defaulted.token.expires_at ?? 'null');

      const never = expectProblem(
        await admin.post('/v1/tokens', { name: 'forever', permissions: ['cases:read'], expires_at: null }),
        400,
        'invalid_request',
      );
      assert.equal(never.max_lifetime_days, 90);
      const far = new Date(Date.now() + 91 * DAY).toISOString();
      expectProblem(
        await admin.post('/v1/tokens', { name: 'too far', permissions: ['cases:read'], expires_at: far }),
        400,
        'invalid_request',
      );
      const me = await admin.get<Me>('/v1/me');
      assert.deepEqual(me.body.token_lifetime, { default_days: 30, max_days: 90 });
    });

    test('people without tokens:write create, list and delete their own tokens, within their role', async () => {
      const alice = await signIn(suite.server, { tenant: suite.acme, role: 'analyst', email: 'alice@acme.test' });
      const bob = await signIn(suite.server, { tenant: suite.acme, role: 'viewer', email: 'bob@acme.test' });
      const withCsrf = (session: typeof alice) => ({ 'x-csrf-token': session.csrf });

      const created = await alice.client.post<CreatedToken>(
        '/v1/tokens',
        { name: 'alice script', permissions: ['cases:read', 'cases:write'] },
        withCsrf(alice),
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      expectProblem(
        await alice.client.post('/v1/tokens', { name: 'too much', permissions: ['audit:read'] }, withCsrf(alice)),
        403,
        'permission_denied',
      );
      const bobs = await bob.client.post<CreatedToken>(
        '/v1/tokens',
        { name: 'bob script', permissions: ['cases:read'] },
        withCsrf(bob),
      );
      assert.equal(bobs.status, 201);

      // Each sees only their own; the admin sees both.
      const aliceList = await alice.client.get<Page<'tokens', ApiToken>>('/v1/tokens');
      assert.deepEqual(
        aliceList.body.tokens.map((token) => token.name),
        ['alice script'],
      );
      const adminList = await admin.get<Page<'tokens', ApiToken>>('/v1/tokens?q=script');
      assert.deepEqual(adminList.body.tokens.map((token) => token.name).sort(), ['alice script', 'bob script']);

      // Another person's token is not found, neither to read nor to delete; one's own is deleted.
      expectProblem(await alice.client.get(`/v1/tokens/${bobs.body.token.id}`), 404, 'not_found');
      expectProblem(await alice.client.delete(`/v1/tokens/${bobs.body.token.id}`, withCsrf(alice)), 404, 'not_found');
      assert.equal(await meStatus(bobs.body.value), 200);
      const deleted = await alice.client.delete<ApiToken>(`/v1/tokens/${created.body.token.id}`, withCsrf(alice));
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.status, 'deleted');
      assert.equal(await meStatus(created.body.value), 401);

      // A token without tokens:read or tokens:write is refused, not narrowed to "its own".
      const plain = apiClient(suite.server, bearer(bobs.body.value));
      expectProblem(await plain.get('/v1/tokens'), 403, 'permission_denied');
      expectProblem(
        await plain.post('/v1/tokens', { name: 'x', permissions: ['cases:read'] }),
        403,
        'permission_denied',
      );
    });

    test('the observation-write review list needs observations:read', async () => {
      const casesOnly = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['cases:read'])).value),
      );
      expectProblem(await casesOnly.get('/v1/observation-write-requests'), 403, 'permission_denied');
      const reader = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['observations:read'])).value),
      );
      assert.equal((await reader.get('/v1/observation-write-requests')).status, 200);
    });
  });
}
