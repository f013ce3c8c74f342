// API tokens through HTTP, on SQLite and PostgreSQL: every permission-guarded operation answers
// 403 naming the permission, other tenants' objects answer 404 on every endpoint, and an operator
// acts in the tenant named in Sightline-Tenant. Token life cycle: tokens-api.e2e.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { useTwoTenants } from '../helpers/two-tenants-fixture.js';
import { apiClient, bearer, issueToken, signIn, type ApiClient, type Problem } from '../helpers/api.js';
import type { CaseCounts, CaseDetail, CaseSearch, CreatedToken, Me, Page } from '../helpers/responses.js';
import { allPermissions, type Permission } from '../../src/identity/permissions.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import type { ApiToken } from '../../src/identity/tokens/token-service.js';
import type { ObservationView } from '../../src/observations/observation-service.js';

for (const target of databaseTargets) {
  describe(`API token permissions and tenant isolation on ${target.kind}`, { skip: target.skip }, () => {
    let server: TestServer;
    let acme: Tenant;
    let globex: Tenant;
    let admin: ApiClient;
    const suite = useTwoTenants(target);
    before(() => {
      ({ server, acme, globex, admin } = suite());
    });

    async function approveObservationWrites(label: string): Promise<void> {
      const operator = await signIn(server, {
        tenant: null,
        role: 'operator',
        email: `op-${label}-${target.kind}@example.com`,
      });
      const approved = await operator.client.patch(
        '/v1/tenants/acme',
        { observation_write_approved: true },
        { 'sightline-tenant': 'acme', 'x-csrf-token': operator.csrf },
      );
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
    }

    test('every permission-guarded operation answers 403 naming the permission it needs', async () => {
      const spec = (
        await admin.get<{ paths: Record<string, Record<string, { description: string }>> }>('/v1/openapi.json')
      ).body;
      const guarded = Object.entries(spec.paths).flatMap(([path, operations]) =>
        Object.entries(operations).flatMap(([method, operation]) => {
          // "**Requires** the permission `a:b` (…) and `c:d`": the first is tested, the others granted.
          const requires = operation.description.split('**Requires** the permission ')[1] ?? '';
          const needed = /^`([a-z]+:[a-z]+)`/.exec(requires)?.[1] as Permission | undefined;
          const also = [...requires.matchAll(/ and `([a-z]+:[a-z]+)`/g)].map((m) => m[1] as Permission);
          return needed
            ? [{ method: method.toUpperCase(), path: path.replace(/\{[a-z_]+\}/g, 'tok_missing'), needed, also }]
            : [];
        }),
      );
      assert.ok(guarded.length >= 5, 'the document names the permissions of the guarded operations');
      // observations:write also needs the platform's approval: grant it, so only the permission is tested.
      await approveObservationWrites('perm');
      for (const { method, path, needed, also } of guarded) {
        const without = apiClient(
          server,
          bearer(
            (
              await issueToken(
                server,
                acme,
                allPermissions.filter((p) => p !== needed),
              )
            ).value,
          ),
        );
        const denied = await without.request<Problem>(
          method,
          path,
          method === 'GET' || method === 'DELETE' ? {} : { body: {} },
        );
        assert.equal(denied.status, 403, `${method} ${path} without ${needed}`);
        assert.equal(denied.body.code, 'permission_denied');
        assert.equal(denied.body.required_permission, needed);
        const withIt = apiClient(server, bearer((await issueToken(server, acme, [needed, ...also])).value));
        const allowed = await withIt.request<Problem>(
          method,
          path,
          method === 'GET' || method === 'DELETE' ? {} : { body: {} },
        );
        // With the permission the permission check passes; what comes after may refuse for its own
        // reason (saved searches belong to a person: 403 session_required to a token no person made).
        assert.ok(
          !(allowed.status === 403 && allowed.body.code === 'permission_denied'),
          `${method} ${path} with ${needed}: ${JSON.stringify(allowed.body)}`,
        );
      }
    });

    test("another tenant's objects answer 404 on every endpoint, never 403", async () => {
      const acmeToken = await issueToken(server, acme, ['cases:read'], { name: 'acme only' });
      const outsider = apiClient(server, bearer((await issueToken(server, globex, allPermissions)).value));
      await approveObservationWrites('matrix');
      const written = await admin.post<ObservationView>('/v1/observations', {
        external_id: `edr-${target.kind}-1`,
        title: 'EDR alert',
        level: 'high',
        techniques: ['T1059'],
        host: 'edr-host-1',
        first_time: '2026-11-20T10:00:00Z',
      });
      assert.equal(written.status, 201, JSON.stringify(written.body));
      // The observation opened a case on its device.
      const found = await admin.post<CaseSearch>('/v1/cases', { text: 'edr-host-1' });
      assert.equal(found.status, 200, JSON.stringify(found.body));
      const acmeCase = found.body.cases[0]!;
      const acmeDevice = acmeCase.devices[0]!;
      const comment = await admin.post<{ id: string }>(`/v1/cases/${acmeCase.id}/comments`, { body: 'acme only' });
      assert.equal(comment.status, 201, JSON.stringify(comment.body));
      // A summary exists, so a 404 for the outsider cannot come from there being none.
      assert.equal((await admin.post(`/v1/cases/${acmeCase.id}/summary`, {})).status, 201);
      const matrix: Record<string, { method: string; path: string; body?: unknown }[]> = {
        '/v1/observations/{observation_id}': [{ method: 'GET', path: `/v1/observations/${written.body.id}` }],
        '/v1/cases/{case_id}': [
          { method: 'GET', path: `/v1/cases/${acmeCase.id}` },
          { method: 'GET', path: `/v1/cases/${acmeCase.number}` },
          {
            method: 'PATCH',
            path: `/v1/cases/${acmeCase.id}`,
            body: { version: acmeCase.version, status: 'in_progress' },
          },
        ],
        '/v1/cases/{case_id}/comments': [
          { method: 'GET', path: `/v1/cases/${acmeCase.id}/comments` },
          { method: 'POST', path: `/v1/cases/${acmeCase.id}/comments`, body: { body: 'outsider' } },
        ],
        '/v1/cases/{case_id}/comments/{comment_id}': [
          { method: 'PATCH', path: `/v1/cases/${acmeCase.id}/comments/${comment.body.id}`, body: { body: 'outsider' } },
          { method: 'DELETE', path: `/v1/cases/${acmeCase.id}/comments/${comment.body.id}` },
        ],
        '/v1/cases/{case_id}/history': [{ method: 'GET', path: `/v1/cases/${acmeCase.id}/history` }],
        '/v1/cases/{case_id}/summary': [
          { method: 'POST', path: `/v1/cases/${acmeCase.id}/summary` },
          { method: 'GET', path: `/v1/cases/${acmeCase.id}/summary` },
        ],
        '/v1/cases/{case_id}/summary/feedback': [
          { method: 'POST', path: `/v1/cases/${acmeCase.id}/summary/feedback`, body: { rating: 'up' } },
          { method: 'GET', path: `/v1/cases/${acmeCase.id}/summary/feedback` },
        ],
        '/v1/devices/{device_id}': [
          { method: 'GET', path: `/v1/devices/${acmeDevice.id}` },
          { method: 'PATCH', path: `/v1/devices/${acmeDevice.id}`, body: { criticality: 'low' } },
        ],
        '/v1/tokens/{token_id}': [
          { method: 'GET', path: `/v1/tokens/${acmeToken.id}` },
          { method: 'DELETE', path: `/v1/tokens/${acmeToken.id}` },
        ],
      };
      const spec = (
        await admin.get<{ paths: Record<string, Record<string, { security?: unknown }>> }>('/v1/openapi.json')
      ).body;
      // This matrix tries the case paths by number too and with a summary present; that every
      // id-taking route is covered at all is isolation-api.e2e.test.ts's check, made from the
      // registered routes. Here: no entry names a path that no longer exists.
      const stale = Object.keys(matrix).filter((path) => !Object.hasOwn(spec.paths, path));
      assert.deepEqual(stale, [], 'every matrix path is a documented path');
      for (const calls of Object.values(matrix)) {
        for (const call of calls) {
          const response = await outsider.request(call.method, call.path, call.body ? { body: call.body } : {});
          assert.equal(response.status, 404, `${call.method} ${call.path}`);
        }
      }
      // Ids in bodies and filters are scoped too: another tenant's case cannot be merged or found.
      const merge = await outsider.post('/v1/cases/merge', { target: acmeCase.id, sources: [String(acmeCase.number)] });
      assert.equal(merge.status, 404, JSON.stringify(merge.body));
      const bulk = await outsider.request<{ results: { status: number }[] }>('PATCH', '/v1/cases', {
        body: { cases: [{ id: acmeCase.id, version: acmeCase.version, status: 'in_progress' }] },
      });
      assert.equal(bulk.body.results[0]!.status, 404);
      const filtered = await outsider.post<CaseSearch>('/v1/cases', { device_id: acmeDevice.id });
      assert.equal(filtered.body.total, 0);
      // Paths without an id are the caller's tenant's: acme's case is not in the outsider's counts.
      const counts = await outsider.get<CaseCounts>('/v1/cases/counts');
      assert.equal(counts.status, 200, JSON.stringify(counts.body));
      assert.deepEqual(counts.body.by_status, { new: 0, in_progress: 0, on_hold: 0, closed: 0 });
      const unchanged = await admin.get<CaseDetail>(`/v1/cases/${acmeCase.id}`);
      assert.equal(unchanged.body.version, acmeCase.version, 'nothing the outsider did changed the case');
      assert.equal(unchanged.body.comments.length, 1);
      // Naming the other tenant outright is no better than naming one that does not exist.
      const named = await outsider.get<Problem>('/v1/tokens', { 'sightline-tenant': 'acme' });
      assert.equal(named.status, 404);
      assert.equal(named.body.code, 'tenant_not_found');
      // The acme token is untouched.
      assert.equal((await apiClient(server, bearer(acmeToken.value)).get('/v1/me')).status, 200);
      // And tenant members cannot reach the operators' tenant registry.
      const registry = await outsider.get<Problem>('/v1/tenants');
      assert.equal(registry.status, 403);
      assert.equal(registry.body.code, 'operator_required');
    });

    test('an operator acts in the tenant named in Sightline-Tenant, and must name one', async () => {
      const operator = await signIn(server, { tenant: null, role: 'operator', email: `op-${target.kind}@example.com` });
      const unnamed = await operator.client.get<Problem>('/v1/tokens');
      assert.equal(unnamed.status, 400);
      assert.equal(unnamed.body.code, 'tenant_required');
      const globexToken = await issueToken(server, globex, ['cases:read'], { name: 'globex reader' });
      const named = await operator.client.get<Page<'tokens', ApiToken>>('/v1/tokens?limit=500', {
        'sightline-tenant': 'globex',
      });
      assert.equal(named.status, 200);
      assert.ok(
        named.body.tokens.some((token) => token.id === globexToken.id),
        "globex's token is listed",
      );
      assert.ok(
        named.body.tokens.every((token) => token.name !== 'acme admin'),
        "acme's tokens are not listed under globex",
      );
      const created = await operator.client.post<CreatedToken>(
        '/v1/tokens',
        { name: 'by operator', permissions: ['cases:read'] },
        { 'sightline-tenant': 'acme', 'x-csrf-token': operator.csrf },
      );
      assert.equal(created.status, 201);
      assert.equal(
        (await apiClient(server, bearer(created.body.value)).get<Me>('/v1/me')).body.tenant!.code_name,
        'acme',
      );
      const unknown = await operator.client.get('/v1/tokens', { 'sightline-tenant': 'initech' });
      assert.equal(unknown.status, 404);
    });
  });
}
