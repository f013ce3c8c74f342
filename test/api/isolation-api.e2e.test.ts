// Tenant isolation over every route that takes an id, on SQLite and PostgreSQL: each object kind
// is made in one tenant (a case with its device, observation, comment, observable and task; a
// case template; a token; a person with a session; an ingest key), then every registered
// id-taking route is called from globex with every permission.
// Each answers 404 `not_found`, exactly as for an id that does not exist, and the first tenant's
// objects are unchanged after. A route added with a parameter this file has no object for fails
// the suite by name, so new endpoints cannot skip the check. A partner serving acme and globex
// (every permission) calls every tenant route too, naming each of its tenants, the first tenant,
// and none: it reaches acme's and globex's cases and never an object of the first tenant.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, issueToken, signIn, type ApiClient, type Session } from '../helpers/api.js';
import { approvedTenant, caseFor, observe, setTenant } from '../helpers/summaries.js';
import type { CaseSearch } from '../helpers/responses.js';
import { allPermissions } from '../../src/identity/permissions.js';

/** A valid body for each write, so that validation passes and only the lookup can refuse. */
const bodies: Record<string, unknown> = {
  'PATCH /v1/cases/:case_id': { version: 1, status: 'in_progress' },
  'POST /v1/cases/:case_id/comments': { body: 'from another tenant' },
  'PATCH /v1/cases/:case_id/comments/:comment_id': { body: 'edited from another tenant' },
  'POST /v1/cases/:case_id/summary/feedback': { rating: 'up' },
  'POST /v1/cases/:case_id/observables': { type: 'ip', value: '198.51.100.66' },
  'PATCH /v1/cases/:case_id/observables/:observable_id': { tags: ['benign'] },
  'PATCH /v1/devices/:device_id': { criticality: 'low' },
  'PATCH /v1/users/:user_id': { role: 'viewer' },
  'POST /v1/users/:user_id/password-reset': {},
  'PATCH /v1/webhooks/:webhook_id': { enabled: false },
  'POST /v1/devices/:device_id/actions': { action: 'release', reason: 'from another tenant' },
  'POST /v1/devices/:device_id/actions/:action_id': { outcome: 'failed' },
  'POST /v1/cases/:case_id/tasks': { title: 'from another tenant' },
  'PATCH /v1/cases/:case_id/tasks/:task_id': { status: 'done' },
  'POST /v1/cases/:case_id/templates': { template_id: 'tpl_of_the_caller_none' },
  'PUT /v1/case-templates/:template_id': { name: 'from another tenant', tasks: [] },
};

/**
 * Routes whose parameter names no object of a tenant but a value each tenant holds on its own:
 * another tenant's email domain is checked against the caller's own DNS record, so it answers as
 * any domain the caller has not verified would.
 */
const ownValueAnswers: Record<string, string> = {
  'POST /v1/sso/domains/:domain/verify': '422 sso_domain_not_verified',
};

for (const target of databaseTargets) {
  describe(`every id-taking route keeps tenants apart on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let acmeAdmin: ApiClient;
    let outsider: ApiClient;
    let outsiderPerson: Session;
    let partner: ApiClient;
    /** A case in each tenant the partner serves, by tenant code name. */
    const servedCases: Record<string, string> = {};
    const ids: Record<string, string> = {};

    before(async () => {
      const operator = await signIn(suite.server, { tenant: null, role: 'operator', email: 'op@platform.test' });
      // A tenant approved to write observations, so that a case can be made through the API.
      const acme = await approvedTenant(suite.server, operator, 'initech');
      acmeAdmin = acme.client;
      const host = `iso-host-${process.pid}`;
      // Subscribed before the observation, so that its event leaves a delivery in the log.
      const webhook = await acmeAdmin.post<{ webhook: { id: string } }>('/v1/webhooks', {
        url: 'https://hooks.example.com/sightline',
        events: ['observation.created'],
      });
      assert.equal(webhook.status, 201, JSON.stringify(webhook.body));
      const observation = await observe(acmeAdmin, { host });
      const found = await caseFor(acmeAdmin, host);
      const comment = await acmeAdmin.post<{ id: string }>(`/v1/cases/${found.id}/comments`, { body: 'acme note' });
      assert.equal(comment.status, 201, JSON.stringify(comment.body));
      const observable = await acmeAdmin.post<{ id: string }>(`/v1/cases/${found.id}/observables`, {
        type: 'domain',
        value: 'c2.initech.example',
        tags: ['ioc'],
      });
      assert.equal(observable.status, 201, JSON.stringify(observable.body));
      const token = await issueToken(suite.server, acme.tenant, ['cases:read']);
      const person = await signIn(suite.server, { tenant: acme.tenant, role: 'analyst', email: 'p@initech.test' });
      const sessions = await person.client.get<{ sessions: { id: string }[] }>('/v1/me/sessions');
      const user = await person.client.get<{ id: string }>('/v1/me');
      const ingestKey = await acmeAdmin.post<{ ingest_key: { id: string } }>('/v1/ingest-keys', { name: 'forwarders' });
      assert.equal(ingestKey.status, 201, JSON.stringify(ingestKey.body));
      const saved = await person.client.post<{ id: string }>(
        '/v1/telemetry/saved-searches',
        { name: 'mine', query: 'error' },
        { 'x-csrf-token': person.csrf },
      );
      assert.equal(saved.status, 201, JSON.stringify(saved.body));
      const deviceId = found.devices[0]?.id ?? '';
      const action = await acmeAdmin.post<{ id: string }>(`/v1/devices/${deviceId}/actions`, {
        action: 'isolate',
        reason: 'isolation test',
      });
      assert.equal(action.status, 201, JSON.stringify(action.body));
      const task = await acmeAdmin.post<{ id: string }>(`/v1/cases/${found.id}/tasks`, { title: 'acme task' });
      assert.equal(task.status, 201, JSON.stringify(task.body));
      const template = await acmeAdmin.post<{ id: string }>('/v1/case-templates', { name: 'acme template', tasks: [] });
      assert.equal(template.status, 201, JSON.stringify(template.body));
      const deliveries = await acmeAdmin.get<{ deliveries: { id: string }[] }>(
        `/v1/webhooks/${webhook.body.webhook.id}/deliveries`,
      );
      Object.assign(ids, {
        case_id: found.id,
        device_id: found.devices[0]?.id ?? '',
        observation_id: observation.id,
        comment_id: comment.body.id,
        observable_id: observable.body.id,
        token_id: token.id,
        user_id: user.body.id,
        session_id: sessions.body.sessions[0]?.id ?? '',
        key_id: ingestKey.body.ingest_key.id,
        saved_search_id: saved.body.id,
        webhook_id: webhook.body.webhook.id,
        delivery_id: deliveries.body.deliveries[0]?.id ?? '',
        action_id: action.body.id,
        task_id: task.body.id,
        template_id: template.body.id,
      });
      const domain = await operator.client.request('PUT', '/v1/tenants/initech/sso-domains/initech.example', {
        headers: { 'x-csrf-token': operator.csrf },
      });
      assert.equal(domain.status, 200, JSON.stringify(domain.body));
      ids.domain = 'initech.example';
      outsider = apiClient(suite.server, bearer((await issueToken(suite.server, suite.globex, allPermissions)).value));
      outsiderPerson = await signIn(suite.server, { tenant: suite.globex, role: 'admin', email: 'a@globex.test' });

      for (const tenant of [suite.acme, suite.globex]) {
        await setTenant(operator, tenant.codeName, { observation_write_approved: true });
        const admin = apiClient(suite.server, bearer((await issueToken(suite.server, tenant, allPermissions)).value));
        await observe(admin, { host: `served-${tenant.codeName}-${process.pid}` });
        servedCases[tenant.codeName] = (await caseFor(admin, `served-${tenant.codeName}-${process.pid}`)).id;
      }
      const csrf = { 'x-csrf-token': operator.csrf };
      const created = await operator.client.post(
        '/v1/partners',
        { code_name: 'watch', tenants: ['acme', 'globex'] },
        csrf,
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const watchToken = await operator.client.post<{ value: string }>(
        '/v1/partners/watch/tokens',
        { name: 'watch queue', permissions: ['all'] },
        csrf,
      );
      assert.equal(watchToken.status, 201, JSON.stringify(watchToken.body));
      partner = apiClient(suite.server, bearer(watchToken.body.value));
    });

    test('every tenant or account route with an id answers 404 to another tenant', async () => {
      const routes = suite.server.sightline.server.apiRoutes.filter(
        (route) => route.url.includes(':') && (route.access.scope === 'tenant' || route.access.scope === 'account'),
      );
      const params = new Set(routes.flatMap((route) => [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]!)));
      const missing = [...params].filter((param) => !ids[param]);
      assert.deepEqual(missing, [], 'every id parameter has an object of another tenant to try');

      const answers: string[] = [];
      for (const route of routes) {
        const path = route.url.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(ids[name]!));
        const key = `${route.method} ${route.url}`;
        const body = bodies[key];
        const client = route.access.scope === 'account' ? outsiderPerson.client : outsider;
        const headers = route.access.scope === 'account' ? { 'x-csrf-token': outsiderPerson.csrf } : undefined;
        const response = await client.request<{ code?: string }>(route.method, path, {
          ...(body !== undefined ? { body } : {}),
          ...(headers ? { headers } : {}),
        });
        answers.push(`${key} → ${response.status} ${response.body.code ?? ''}`.trim());
      }
      const leaks = answers.filter((answer) => {
        const [key = ''] = answer.split(' → ');
        return !answer.endsWith(`→ ${ownValueAnswers[key] ?? '404 not_found'}`);
      });
      assert.deepEqual(leaks, [], `all ${answers.length} calls answer 404 not_found`);
    });

    test("a partner's token reaches its tenants' cases, across them and in each", async () => {
      const queue = await partner.post<CaseSearch>('/v1/cases', { limit: 500 });
      assert.equal(queue.status, 200, JSON.stringify(queue.body));
      assert.deepEqual(
        queue.body.cases.map((item) => `${item.tenant.code_name} ${item.id}`).sort(),
        [`acme ${servedCases.acme}`, `globex ${servedCases.globex}`].sort(),
      );
      for (const [codeName, id] of Object.entries(servedCases)) {
        const across = await partner.get<{ tenant: { code_name: string } }>(`/v1/cases/${id}`);
        assert.equal(across.status, 200, JSON.stringify(across.body));
        assert.equal(across.body.tenant.code_name, codeName);
        const named = await partner.get(`/v1/cases/${id}/comments`, { 'sightline-tenant': codeName });
        assert.equal(named.status, 200, JSON.stringify(named.body));
      }
    });

    test("every tenant route with an id answers a partner's token for another tenant's object as not found", async () => {
      const routes = suite.server.sightline.server.apiRoutes.filter(
        (route) => route.url.includes(':') && route.access.scope === 'tenant',
      );
      const expected = (key: string, named: string | undefined, across: boolean) => {
        if (named === 'initech') return '404 tenant_not_found';
        if (named === undefined && !across) return '400 tenant_required';
        return ownValueAnswers[key] ?? '404 not_found';
      };
      const leaks: string[] = [];
      let calls = 0;
      for (const route of routes) {
        const path = route.url.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(ids[name]!));
        const key = `${route.method} ${route.url}`;
        const body = bodies[key];
        const across = route.access.scope === 'tenant' && route.access.acrossTenants === true;
        for (const named of ['acme', 'globex', 'initech', undefined]) {
          const response = await partner.request<{ code?: string }>(route.method, path, {
            ...(body !== undefined ? { body } : {}),
            ...(named ? { headers: { 'sightline-tenant': named } } : {}),
          });
          calls++;
          const answer = `${response.status} ${response.body.code ?? ''}`.trim();
          if (answer !== expected(key, named, across)) leaks.push(`${key} as ${named ?? '(no tenant)'} → ${answer}`);
        }
      }
      assert.deepEqual(leaks, [], `all ${calls} calls answer as for an object that does not exist`);
    });

    test("no tenant list a partner's token reads names an object of a tenant it does not serve", async () => {
      const secrets = Object.values(ids).filter((id) => id !== '' && id !== 'initech.example');
      const lists = suite.server.sightline.server.apiRoutes.filter(
        (route) => !route.url.includes(':') && route.access.scope === 'tenant' && route.method === 'GET',
      );
      const seen: string[] = [];
      for (const route of lists) {
        for (const named of ['acme', 'globex', undefined]) {
          const response = await partner.request(route.method, route.url, {
            ...(named ? { headers: { 'sightline-tenant': named } } : {}),
          });
          const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
          for (const secret of secrets)
            if (text.includes(secret)) seen.push(`${route.url} as ${named ?? '-'}: ${secret}`);
        }
      }
      const queue = JSON.stringify((await partner.post('/v1/cases', { limit: 500, track_total: true })).body);
      for (const secret of secrets) if (queue.includes(secret)) seen.push(`POST /v1/cases: ${secret}`);
      assert.deepEqual(seen, []);
    });

    test("the first tenant's objects are unchanged after the outsider's attempts", async () => {
      const shown = await acmeAdmin.get<{ status: string; version: number }>(`/v1/cases/${ids.case_id}`);
      assert.equal(shown.status, 200);
      assert.equal(shown.body.status, 'new');
      const comments = await acmeAdmin.get<{ comments: { body: string }[] }>(`/v1/cases/${ids.case_id}/comments`);
      assert.deepEqual(
        comments.body.comments.map((comment) => comment.body),
        ['acme note'],
      );
      const observables = await acmeAdmin.get<{ observables: { id: string; tags: string[] }[] }>(
        `/v1/cases/${ids.case_id}/observables`,
      );
      assert.deepEqual(
        observables.body.observables.filter((item) => item.id === ids.observable_id).map((item) => item.tags),
        [['ioc']],
      );
      const token = await acmeAdmin.get<{ status: string }>(`/v1/tokens/${ids.token_id}`);
      assert.equal(token.body.status, 'active');
      const user = await acmeAdmin.get<{ role: string; status: string }>(`/v1/users/${ids.user_id}`);
      assert.deepEqual([user.body.role, user.body.status], ['analyst', 'active']);
      const sessions = await acmeAdmin.get<{ sessions: { id: string }[] }>(`/v1/users/${ids.user_id}/sessions`);
      assert.deepEqual(
        sessions.body.sessions.map((session) => session.id),
        [ids.session_id],
      );
      const keys = await acmeAdmin.get<{ ingest_keys: { id: string }[] }>('/v1/ingest-keys');
      assert.deepEqual(
        keys.body.ingest_keys.map((key) => key.id),
        [ids.key_id],
      );
      const device = await acmeAdmin.get<{ criticality: string; isolation_state: string }>(
        `/v1/devices/${ids.device_id}`,
      );
      assert.notEqual(device.body.criticality, 'low');
      assert.equal(device.body.isolation_state, 'isolation_requested');
      const webhook = await acmeAdmin.get<{ enabled: boolean }>(`/v1/webhooks/${ids.webhook_id}`);
      assert.equal(webhook.body.enabled, true);
    });
  });
}
