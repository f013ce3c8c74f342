// Partner organisations over HTTP on SQLite and PostgreSQL: a platform operator creates a partner
// serving acme and globex and gives it a token; the token's queue (POST /v1/cases without a
// tenant) holds both tenants' cases and never initech's, each naming its tenant, filtered, sorted
// and paged across them with one cursor; a case opens in its tenant's context through the
// Sightline-Tenant header; removing a tenant or deleting the token takes effect at the next call.
// Tenant isolation on every route: isolation-api.e2e.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { apiClient, bearer, expectProblem, signIn, type ApiClient, type Session } from '../helpers/api.js';
import type { CaseSearch, Me, Page } from '../helpers/responses.js';
import { useCaseApi } from '../helpers/case-api-fixture.js';
import type { CaseView } from '../../src/cases/case-service.js';
import type { ApiToken } from '../../src/identity/tokens/token-service.js';
import type { Partner } from '../../src/identity/partners/partner-service.js';

const hosts: Record<string, string[]> = {
  acme: ['acme-web', 'acme-db', 'acme-mail'],
  globex: ['globex-web', 'globex-vpn'],
  initech: ['initech-web'],
};
const served = [...hosts.acme!, ...hosts.globex!];
const hostsOf = (cases: readonly CaseView[]) => cases.map((item) => item.devices[0]?.host_name ?? '?');

for (const target of databaseTargets) {
  describe(`partners on ${target.kind}`, { skip: target.skip }, () => {
    const fixture = useCaseApi(target);
    const { writerFor, observe } = fixture;
    let server: TestServer;
    let operator: Session;
    let writers: Record<string, ApiClient>;
    let partner: ApiClient;
    let tokenId: string;
    const asOperator = <T = unknown>(method: string, path: string, body?: unknown) =>
      operator.client.request<T>(method, path, {
        ...(body !== undefined ? { body } : {}),
        headers: { 'x-csrf-token': operator.csrf },
      });
    const queue = (body: Record<string, unknown> = {}, client = partner) =>
      client.post<CaseSearch>('/v1/cases', { limit: 100, ...body });
    const partnerToken = async (permissions: string[]) => {
      const created = await asOperator<{ value: string; token: ApiToken }>('POST', '/v1/partners/mssp/tokens', {
        name: `only ${permissions.join(' ')}`,
        permissions,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return apiClient(server, bearer(created.body.value));
    };

    before(async () => {
      server = fixture.server;
      operator = await signIn(server, { tenant: null, role: 'operator', email: `op-${target.kind}@partners.test` });
      writers = {
        acme: fixture.acme,
        globex: (await writerFor('globex')).client,
        initech: (await writerFor('initech')).client,
      };
      // One case per host, an hour apart, tenants interleaved in creation order.
      const order = ['acme-web', 'globex-web', 'initech-web', 'acme-db', 'globex-vpn', 'acme-mail'];
      for (const [hour, host] of order.entries()) {
        const codeName = host.split('-')[0]!;
        await observe(writers[codeName]!, { host, hours: hour, level: hour % 2 === 0 ? 'high' : 'low' });
      }
      const created = await asOperator('POST', '/v1/partners', {
        code_name: 'mssp',
        name: 'Managed Security',
        tenants: ['acme', 'globex'],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const token = await asOperator<{ value: string; token: ApiToken }>('POST', '/v1/partners/mssp/tokens', {
        name: 'queue',
        permissions: ['all'],
      });
      assert.equal(token.status, 201, JSON.stringify(token.body));
      tokenId = token.body.token.id;
      partner = apiClient(server, bearer(token.body.value));
    });

    test('operators create, read and list partners; a partner needs existing tenants and a free code name', async () => {
      const shown = await asOperator<Partner>('GET', '/v1/partners/mssp');
      assert.equal(shown.status, 200, JSON.stringify(shown.body));
      assert.equal(shown.body.name, 'Managed Security');
      assert.deepEqual(shown.body.tenants, [
        { code_name: 'acme', name: 'acme display name' },
        { code_name: 'globex', name: 'globex display name' },
      ]);
      const listed = await asOperator<Page<'partners', Partner>>('GET', '/v1/partners');
      assert.deepEqual(
        listed.body.partners.map((p) => p.code_name),
        ['mssp'],
      );
      expectProblem(await asOperator('POST', '/v1/partners', { code_name: 'mssp' }), 409, 'partner_exists');
      expectProblem(await asOperator('POST', '/v1/partners', { code_name: 'X y' }), 400, 'invalid_code_name');
      expectProblem(
        await asOperator('POST', '/v1/partners', { code_name: 'other', tenants: ['nope'] }),
        404,
        'tenant_not_found',
      );
      expectProblem(await asOperator('GET', '/v1/partners/nope'), 404, 'partner_not_found');
      expectProblem(await writers.acme!.get('/v1/partners'), 403, 'operator_required');
      expectProblem(await partner.get('/v1/partners'), 403, 'operator_required');
      expectProblem(
        await partner.post('/v1/partners', { code_name: 'mine', tenants: ['initech'] }),
        403,
        'operator_required',
      );
    });

    test('the token says which partner it acts for and in which tenants; it is listed like other tokens', async () => {
      const me = await partner.get<Me>('/v1/me');
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.kind, 'token');
      assert.equal(me.body.tenant, null);
      assert.deepEqual(me.body.partner, {
        code_name: 'mssp',
        name: 'Managed Security',
        tenants: [
          { code_name: 'acme', name: 'acme display name' },
          { code_name: 'globex', name: 'globex display name' },
        ],
      });
      const tokens = await asOperator<Page<'tokens', ApiToken>>('GET', '/v1/partners/mssp/tokens');
      const listed = tokens.body.tokens.find((token) => token.id === tokenId);
      assert.ok(listed, JSON.stringify(tokens.body));
      assert.equal(listed.status, 'active');
      assert.match(listed.hint, /^slt_…/);
      assert.ok(listed.last_used_at, 'its use is recorded');
      assert.doesNotMatch(JSON.stringify(tokens.body), /"value"/);
    });

    test("the queue holds the partner's tenants' cases, never another's, each naming its tenant", async () => {
      const all = await queue({ sort: 'created', order: 'asc', track_total: true });
      assert.equal(all.status, 200, JSON.stringify(all.body));
      assert.deepEqual(hostsOf(all.body.cases), ['acme-web', 'globex-web', 'acme-db', 'globex-vpn', 'acme-mail']);
      assert.deepEqual(
        all.body.cases.map((item) => item.tenant.code_name),
        ['acme', 'globex', 'acme', 'globex', 'acme'],
      );
      assert.deepEqual([all.body.total, all.body.total_relation], [5, 'eq']);
      const newest = await queue();
      assert.deepEqual(hostsOf(newest.body.cases), [...hostsOf(all.body.cases)].reverse());
      const byScore = (await queue({ sort: 'score' })).body.cases.map((item) => item.score);
      assert.deepEqual(
        byScore,
        [...byScore].sort((a, b) => b - a),
      );
      assert.equal((await queue({ track_total: 3 })).body.total_relation, 'gte');
    });

    test('filters apply in every tenant; the tenants filter narrows the queue to some of them', async () => {
      const hostsFor = async (filter: Record<string, unknown>) =>
        hostsOf((await queue({ ...filter, sort: 'created', order: 'asc' })).body.cases);
      assert.deepEqual(await hostsFor({ tenants: ['globex'] }), ['globex-web', 'globex-vpn']);
      assert.deepEqual(await hostsFor({ tenants: ['initech'] }), []);
      assert.deepEqual(await hostsFor({ tenants: ['initech', 'acme'] }), ['acme-web', 'acme-db', 'acme-mail']);
      assert.deepEqual(await hostsFor({ text: '-web' }), ['acme-web', 'globex-web']);
      assert.deepEqual(await hostsFor({ severity: ['high'] }), ['acme-web', 'globex-vpn']);
      // A tenant's own token is unchanged by the filter: it reads its own tenant or nothing.
      const own = await queue({ tenants: ['globex'] }, writers.acme);
      assert.deepEqual(own.body.cases, []);
      assert.deepEqual(
        (await queue({}, writers.acme)).body.cases.map((item) => item.tenant.code_name),
        ['acme', 'acme', 'acme'],
      );
    });

    test('one cursor pages across the tenants: every case once, in order, whatever the page size', async () => {
      const whole = hostsOf((await queue({ sort: 'updated' })).body.cases);
      for (const limit of [1, 2]) {
        const paged: string[] = [];
        let cursor: string | null = null;
        do {
          const page: Awaited<ReturnType<typeof queue>> = await queue({
            sort: 'updated',
            limit,
            ...(cursor ? { cursor } : {}),
          });
          assert.equal(page.status, 200, JSON.stringify(page.body));
          paged.push(...hostsOf(page.body.cases));
          cursor = page.body.next_cursor;
        } while (cursor);
        assert.deepEqual(paged, whole, `pages of ${limit}`);
      }
      const first = await queue({ limit: 1 });
      const cursor = first.body.next_cursor!;
      // A cursor of the queue works in the queue only: not in one tenant, nor for its tenants' tokens.
      expectProblem(await partner.post('/v1/cases', { cursor }, { 'sightline-tenant': 'acme' }), 400, 'invalid_cursor');
      expectProblem(await writers.acme!.post('/v1/cases', { cursor }), 400, 'invalid_cursor');
    });

    test("a case opens in its tenant's context; a tenant the partner does not serve is never reached", async () => {
      const [acmeCase, globexCase] = [
        (await queue({ tenants: ['acme'] })).body.cases[0]!,
        (await queue({ tenants: ['globex'] })).body.cases[0]!,
      ];
      const initechCase = (await queue({}, writers.initech)).body.cases[0]!;
      const opened = await partner.get<CaseView>(`/v1/cases/${acmeCase.id}`);
      assert.equal(opened.status, 200, JSON.stringify(opened.body));
      assert.deepEqual(opened.body.tenant, { code_name: 'acme', name: 'acme display name' });
      expectProblem(await partner.get(`/v1/cases/${initechCase.id}`), 404, 'not_found');
      expectProblem(await partner.get(`/v1/cases/${acmeCase.number}`), 400, 'tenant_required');
      for (const path of [`/v1/cases/${initechCase.id}`, '/v1/cases/counts', '/v1/devices']) {
        expectProblem(await partner.get(path, { 'sightline-tenant': 'initech' }), 404, 'tenant_not_found');
      }
      expectProblem(await partner.get(`/v1/cases/${globexCase.id}`, { 'sightline-tenant': 'acme' }), 404, 'not_found');
      expectProblem(await partner.get('/v1/cases/counts'), 400, 'tenant_required');
      expectProblem(await partner.get(`/v1/cases/${acmeCase.id}/comments`), 400, 'tenant_required');

      const inAcme = { 'sightline-tenant': 'acme' };
      const byNumber = await partner.get<CaseView>(`/v1/cases/${acmeCase.number}`, inAcme);
      assert.equal(byNumber.body.id, acmeCase.id);
      const comment = await partner.post<{ author: { label: string } }>(
        `/v1/cases/${acmeCase.id}/comments`,
        { body: 'Isolating the host.' },
        inAcme,
      );
      assert.equal(comment.status, 201, JSON.stringify(comment.body));
      assert.equal(comment.body.author.label, 'queue (partner mssp)');
      const moved = await partner.patch<CaseView>(
        `/v1/cases/${acmeCase.id}`,
        { version: byNumber.body.version, status: 'in_progress' },
        inAcme,
      );
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.deepEqual(hostsOf((await queue({ status: ['in_progress'] })).body.cases), [hostsOf([acmeCase])[0]]);

      // The tenant sees who did what, and when the partner was given access.
      const audit = await writers.acme!.get<{ events: { action: string; details: { partner?: string } }[] }>(
        '/v1/audit-events?action=partner.tenant_added',
      );
      assert.deepEqual(
        audit.body.events.map((event) => event.details.partner),
        ['mssp'],
      );
      const initechAudit = await writers.initech!.get<{ events: unknown[] }>(
        '/v1/audit-events?action=partner.tenant_added',
      );
      assert.deepEqual(initechAudit.body.events, []);
      const history = await fixture.history(writers.acme!, acmeCase.id);
      assert.ok(history.some((entry) => entry.actor.label === 'queue (partner mssp)'));
    });

    test("a token's permissions apply in each of the partner's tenants; it creates no tenant tokens", async () => {
      const reader = await partnerToken(['cases:read']);
      assert.equal((await queue({}, reader)).body.cases.length, 5);
      const item = (await queue({ tenants: ['globex'] }, reader)).body.cases[0]!;
      const refused = await reader.patch(
        `/v1/cases/${item.id}`,
        { version: item.version, status: 'in_progress' },
        { 'sightline-tenant': 'globex' },
      );
      expectProblem(refused, 403, 'permission_denied');
      expectProblem(await reader.get('/v1/devices', { 'sightline-tenant': 'acme' }), 403, 'permission_denied');
      const devicesOnly = await partnerToken(['devices:read']);
      expectProblem(await queue({}, devicesOnly), 403, 'permission_denied');
      expectProblem(
        await partner.post(
          '/v1/tokens',
          { name: 'minted', permissions: ['cases:read'] },
          { 'sightline-tenant': 'acme' },
        ),
        403,
        'partner_token_refused',
      );
    });

    test('removing a tenant ends its access at the next call; adding it back restores it', async () => {
      const removed = await asOperator<Partner>('DELETE', '/v1/partners/mssp/tenants/globex');
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      assert.deepEqual(
        removed.body.tenants.map((t) => t.code_name),
        ['acme'],
      );
      assert.deepEqual([...new Set((await queue()).body.cases.map((item) => item.tenant.code_name))], ['acme']);
      expectProblem(await partner.get('/v1/cases/counts', { 'sightline-tenant': 'globex' }), 404, 'tenant_not_found');
      expectProblem(await asOperator('DELETE', '/v1/partners/mssp/tenants/globex'), 404, 'tenant_not_found');
      const audit = await writers.globex!.get<{ events: unknown[] }>('/v1/audit-events?action=partner.tenant_removed');
      assert.equal(audit.body.events.length, 1);

      const added = await asOperator<Partner>('PUT', '/v1/partners/mssp/tenants/globex');
      assert.equal(added.status, 200, JSON.stringify(added.body));
      assert.equal((await queue()).body.cases.length, 5);
      assert.deepEqual(hostsOf((await queue()).body.cases).sort(), [...served].sort());
    });

    test('a deleted partner token never authenticates again and stays listed as deleted', async () => {
      const doomed = await asOperator<{ value: string; token: ApiToken }>('POST', '/v1/partners/mssp/tokens', {
        name: 'doomed',
        permissions: ['cases:read'],
      });
      const client = apiClient(server, bearer(doomed.body.value));
      assert.equal((await queue({}, client)).status, 200);
      const deleted = await asOperator<ApiToken>('DELETE', `/v1/partners/mssp/tokens/${doomed.body.token.id}`);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.equal(deleted.body.status, 'deleted');
      expectProblem(await queue({}, client), 401, 'token_revoked');
      expectProblem(await asOperator('DELETE', '/v1/partners/mssp/tokens/tok_nope'), 404, 'not_found');
      const listed = await asOperator<Page<'tokens', ApiToken>>('GET', '/v1/partners/mssp/tokens');
      assert.equal(listed.body.tokens.find((token) => token.id === doomed.body.token.id)?.status, 'deleted');
    });
  });
}
