// Single sign-on with OpenID Connect through HTTP, on SQLite and PostgreSQL, against a real
// provider (oidc-provider on loopback, which the operator's outbound policy lets the server
// reach): settings that keep the client secret to themselves and stay in their tenant, and a
// sign-in that provisions people in the right tenant with the mapped role and refuses everything
// else (unverified or foreign emails, tampered state, disabled people, off-site return paths)
// with a reason the login page can show.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, signIn, type ApiClient } from '../helpers/api.js';
import type { Me } from '../helpers/responses.js';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { approveEmailDomain, CookieJar, finishAt, loopback, signInWithSso, throughProvider } from '../helpers/sso.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { createUser } from '../../src/identity/users/user-service.js';
import { cliActor } from '../../src/identity/principal.js';
import { DISCOVERY_FAILED_DETAIL } from '../../src/identity/sso/sso-provider.js';

interface SsoSettings {
  issuer: string;
  client_id: string;
  client_secret_set: boolean;
  redirect_uri: string;
  default_role: string | null;
  enabled: boolean;
}
interface AuditPage {
  events: { action: string; actor: { label: string }; details: Record<string, unknown> }[];
}

let unique = 0;
const login = (prefix: string) => `${prefix}-${++unique}`;

/** A port nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

for (const target of databaseTargets) {
  describe(`single sign-on with OpenID Connect on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, { authMaxFailures: '1000', webhookAllowLoopback: true });
    let provider: TestProvider;
    let admin: ApiClient;
    let publicUrl: string;
    const settings = (overrides: Record<string, unknown> = {}) => ({
      issuer: provider.issuer,
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
      allowed_email_domains: ['acme.example'],
      role_claim: 'groups',
      role_mapping: { 'soc-admins': 'admin', 'soc-analysts': 'analyst' },
      default_role: null,
      enabled: true,
      ...overrides,
    });
    const put = (client: ApiClient, body: unknown, headers: Record<string, string> = {}) =>
      client.request<SsoSettings>('PUT', '/v1/sso', { body, headers });
    /** A provider account, made for one test. */
    const account = (prefix: string, claims: Record<string, unknown>) => {
      const id = login(prefix);
      provider.accounts.set(id, claims);
      return id;
    };
    const sso = (id: string, returnTo = '/') =>
      signInWithSso(
        publicUrl,
        `/v1/auth/sso/acme/start?return_to=${encodeURIComponent(returnTo)}`,
        id,
        provider.issuer,
      );
    const me = (session: string | undefined) =>
      apiClient(suite.server, { cookie: `sightline_session=${session ?? ''}` }).get<Me>('/v1/me');
    const audit = async (action: string) =>
      (await admin.get<AuditPage>(`/v1/audit-events?action=${action}&limit=100`)).body.events;

    before(async () => {
      publicUrl = suite.server.sightline.collectorAddress.publicUrl;
      provider = await startTestProvider(`${publicUrl}/v1/auth/sso/callback`);
      admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
      const saved = await put(admin, settings());
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      await approveEmailDomain(suite.server, suite.acme, 'acme.example');
    });
    after(() => provider.close());

    test('settings show the redirect URI and that a secret is set, never the secret, which is stored sealed', async () => {
      const shown = await admin.get<SsoSettings>('/v1/sso');
      assert.equal(shown.status, 200);
      assert.equal(shown.body.client_secret_set, true);
      assert.equal(shown.body.redirect_uri, `${publicUrl}/v1/auth/sso/callback`);
      assert.ok(!JSON.stringify(shown.body).includes(provider.clientSecret), 'GET /v1/sso never returns the secret');

      const db = suite.server.sightline.database.db;
      const row = await db.selectFrom('sso_configs').selectAll().where('tenant_id', '=', suite.acme.id).execute();
      assert.equal(row.length, 1);
      assert.ok(!JSON.stringify(row).includes(provider.clientSecret), 'the stored row holds no clear secret');
      const events = await db.selectFrom('audit_events').select('details').execute();
      assert.ok(!JSON.stringify(events).includes(provider.clientSecret), 'the audit log holds no secret');
      if (suite.database.kind === 'sqlite') {
        for (const file of ['sightline.db', 'sightline.db-wal']) {
          const at = path.join(suite.database.dataDir, file);
          if (fs.existsSync(at)) assert.ok(!fs.readFileSync(at).includes(provider.clientSecret), `${file} holds it`);
        }
      }
    });

    test('settings that cannot work are refused: not a URL, an operator role or a bad domain (400), discovery failing (422, one answer)', async () => {
      expectProblem(await put(admin, settings({ issuer: 'login.acme.example' })), 400, 'invalid_request');
      for (const role_mapping of [{ everyone: 'operator' }, { '': 'admin' }])
        expectProblem(await put(admin, settings({ role_mapping })), 400, 'invalid_request');
      expectProblem(await put(admin, settings({ default_role: 'operator' })), 400, 'invalid_request');
      expectProblem(await put(admin, settings({ allowed_email_domains: ['not a domain'] })), 400, 'invalid_request');
      // Loopback is allowed here, yet plain http elsewhere, a closed port, a link-local address
      // and a private one all answer the same.
      for (const issuer of [
        'http://login.acme.example',
        `http://127.0.0.1:${await closedPort()}`,
        'https://169.254.169.254',
        'https://10.0.0.1',
      ]) {
        const failed = expectProblem(await put(admin, settings({ issuer })), 422, 'sso_discovery_failed');
        assert.equal(failed.detail, DISCOVERY_FAILED_DETAIL, issuer);
      }
      assert.equal((await admin.get<SsoSettings>('/v1/sso')).body.issuer, provider.issuer);
    });

    test('a person of an allowed domain is created in the tenant with the mapped role and lands where they asked', async () => {
      const email = `${login('ana')}@acme.example`;
      const id = account('ana', { email, email_verified: true, name: 'Ana Analyst', groups: ['soc-analysts'] });
      const outcome = await sso(id, '/cases?status=open');
      assert.equal(outcome.location, '/cases?status=open');
      const who = await me(outcome.session);
      assert.equal(who.status, 200);
      assert.equal(who.body.label, email);
      assert.equal(who.body.role, 'analyst');
      assert.equal(who.body.tenant?.code_name, 'acme');
      const created = (await audit('user.created')).find((event) => event.details.email === email);
      assert.deepEqual(created?.details, { email, role: 'analyst', method: 'sso' });
      const signedIn = await audit('auth.login');
      assert.ok(signedIn.some((event) => event.actor.label === email && event.details.method === 'sso'));
    });

    test("the role follows the provider's groups at each sign-in, and no mapped group with no default is refused", async () => {
      const email = `${login('rory')}@acme.example`;
      const id = account('rory', { email, email_verified: true, groups: ['soc-analysts'] });
      assert.equal((await me((await sso(id)).session)).body.role, 'analyst');
      provider.accounts.set(id, { email, email_verified: true, groups: ['soc-analysts', 'soc-admins'] });
      const asAdmin = (await sso(id)).session;
      assert.equal((await me(asAdmin)).body.role, 'admin', 'the highest mapped role wins');

      // A token the admin made with an admin-only permission stops when the provider demotes them.
      const adminSession = apiClient(suite.server, { cookie: `sightline_session=${asAdmin ?? ''}` });
      const csrf = { 'x-csrf-token': (await me(asAdmin)).body.csrf_token ?? '' };
      const minted = await adminSession.post<{ value: string }>(
        '/v1/tokens',
        { name: 'audit export', permissions: ['audit:read'] },
        csrf,
      );
      assert.equal(minted.status, 201, JSON.stringify(minted.body));
      provider.accounts.set(id, { email, email_verified: true, groups: ['soc-analysts'] });
      // The tenant's only active admin (its other admins are API tokens) is not demoted this way...
      assert.equal((await me((await sso(id)).session)).body.role, 'admin', 'the last active admin stays admin');
      const refusals = (await audit('user.role_changed')).filter((event) => event.details.reason === 'last_admin');
      assert.equal(refusals.length, 1);
      // ...once someone else is admin, the provider's word holds, and admin-only tokens stop.
      await createUser(suite.server.sightline.database.db, {
        tenantId: suite.acme.id,
        email: `${login('boss')}@acme.example`,
        role: 'admin',
        actor: cliActor,
      });
      assert.equal((await me((await sso(id)).session)).body.role, 'analyst');
      assert.equal((await apiClient(suite.server, bearer(minted.body.value)).get('/v1/me')).status, 401);

      const stranger = account('mark', { email: `${login('mark')}@acme.example`, email_verified: true, groups: ['x'] });
      const refused = await sso(stranger);
      assert.equal(refused.location, '/login?sso_error=no_role&tenant=acme');
      assert.equal(refused.session, undefined);
    });

    test('with a default role, someone no longer in a mapped group falls to it, never stays above it', async () => {
      assert.equal((await put(admin, settings({ default_role: 'viewer' }))).status, 200);
      try {
        const email = `${login('vera')}@acme.example`;
        const id = account('vera', { email, email_verified: true, groups: ['soc-analysts'] });
        assert.equal((await me((await sso(id)).session)).body.role, 'analyst');
        provider.accounts.set(id, { email, email_verified: true, groups: ['marketing'] });
        assert.equal((await me((await sso(id)).session)).body.role, 'viewer', 'removed from the mapped group');
        const newcomer = account('nico', { email: `${login('nico')}@acme.example`, email_verified: true, groups: [] });
        assert.equal((await me((await sso(newcomer)).session)).body.role, 'viewer');
      } finally {
        assert.equal((await put(admin, settings())).status, 200);
      }
    });

    test('an unverified email and a domain not allowed are refused with the reason, and audited', async () => {
      const unverified = account('una', {
        email: `${login('una')}@acme.example`,
        email_verified: false,
        groups: ['soc-admins'],
      });
      const outsider = account('otto', {
        email: `${login('otto')}@elsewhere.example`,
        email_verified: true,
        groups: ['soc-admins'],
      });
      const first = await sso(unverified);
      assert.equal(first.location, '/login?sso_error=email_not_verified&tenant=acme');
      assert.equal(first.session, undefined);
      const second = await sso(outsider);
      assert.equal(second.location, '/login?sso_error=domain_not_allowed&tenant=acme');
      assert.equal(second.session, undefined);
      const reasons = (await audit('auth.login_failed')).map((event) => event.details.reason);
      assert.ok(reasons.includes('email_not_verified') && reasons.includes('domain_not_allowed'), String(reasons));
    });

    test("a disabled member is refused; another tenant's person and an operator with the email stay as they are", async () => {
      const db = suite.server.sightline.database.db;
      const disabled = `${login('dora')}@acme.example`;
      await createUser(db, { tenantId: suite.acme.id, email: disabled, role: 'viewer', actor: cliActor });
      await db.updateTable('users').set({ disabled_at: Date.now() }).where('email', '=', disabled).execute();
      const refused = await sso(account('x', { email: disabled, email_verified: true, groups: ['soc-admins'] }));
      assert.equal(refused.location, '/login?sso_error=account_unavailable&tenant=acme');
      assert.equal(refused.session, undefined);

      // A person's identity belongs to their tenant: the same email elsewhere is another account.
      const elsewhere = `${login('gabe')}@acme.example`;
      await createUser(db, { tenantId: suite.globex.id, email: elsewhere, role: 'viewer', actor: cliActor });
      const operator = `${login('opal')}@acme.example`;
      await createUser(db, { tenantId: null, email: operator, role: 'operator', actor: cliActor });
      for (const email of [elsewhere, operator]) {
        const outcome = await sso(account('x', { email, email_verified: true, groups: ['soc-analysts'] }));
        const who = await me(outcome.session);
        assert.deepEqual([who.body.label, who.body.role, who.body.tenant?.code_name], [email, 'analyst', 'acme']);
      }
      const rows = await db
        .selectFrom('users')
        .select(['email', 'tenant_id', 'role'])
        .where('email', 'in', [elsewhere, operator])
        .orderBy('email')
        .orderBy('tenant_id')
        .execute();
      const byTenant = (tenantId: number | null) =>
        rows.filter((row) => row.tenant_id === tenantId).map((row) => [row.email, row.role]);
      assert.deepEqual(byTenant(suite.globex.id), [[elsewhere, 'viewer']]);
      assert.deepEqual(byTenant(null), [[operator, 'operator']]);
      assert.deepEqual(
        byTenant(suite.acme.id),
        [elsewhere, operator].sort().map((email) => [email, 'analyst']),
      );
    });

    test('a tampered state, or a callback without the sign-in cookie, is refused', async () => {
      const id = account('tess', {
        email: `${login('tess')}@acme.example`,
        email_verified: true,
        groups: ['soc-admins'],
      });
      const jar = new CookieJar();
      const callback = await throughProvider(jar, `${publicUrl}/v1/auth/sso/acme/start`, id, provider.issuer);
      const tampered = new URL(callback);
      tampered.searchParams.set('state', `${callback.searchParams.get('state') ?? ''}x`);
      const refused = await finishAt(jar, tampered);
      assert.equal(refused.location, '/login?sso_error=invalid_state&tenant=acme');
      assert.equal(refused.session, undefined);

      const again = await throughProvider(new CookieJar(), `${publicUrl}/v1/auth/sso/acme/start`, id, provider.issuer);
      const withoutCookie = await finishAt(new CookieJar(), again);
      assert.equal(withoutCookie.location, '/login?sso_error=invalid_state');
      assert.equal(withoutCookie.session, undefined);
    });

    test('a return path that leaves the site lands on / instead', async () => {
      const id = account('ravi', {
        email: `${login('ravi')}@acme.example`,
        email_verified: true,
        groups: ['soc-analysts'],
      });
      for (const returnTo of ['//evil.example', '/\\evil.example', 'https://evil.example/x']) {
        const outcome = await sso(id, returnTo);
        assert.equal(outcome.location, '/', returnTo);
        assert.equal((await me(outcome.session)).status, 200);
      }
    });

    test('an unknown tenant looks exactly like a tenant without single sign-on', async () => {
      const answers = await Promise.all(
        ['nosuch', 'globex'].map((code) =>
          fetch(loopback(`${publicUrl}/v1/auth/sso/${code}/start`), { redirect: 'manual' }),
        ),
      );
      assert.deepEqual(
        answers.map((response) => [response.status, response.headers.get('location'), response.headers.getSetCookie()]),
        [
          [302, '/login?sso_error=sso_unavailable&tenant=nosuch', []],
          [302, '/login?sso_error=sso_unavailable&tenant=globex', []],
        ],
      );
    });

    test("another site cannot start a sign-in (login CSRF): the browser is sent back with the reason, not that site's tenant", async () => {
      const fromElsewhere = await fetch(loopback(`${publicUrl}/v1/auth/sso/acme/start`), {
        redirect: 'manual',
        headers: { 'sec-fetch-site': 'cross-site' },
      });
      assert.equal(fromElsewhere.status, 302);
      assert.equal(fromElsewhere.headers.get('location'), '/login?sso_error=cross_site');
      assert.deepEqual(fromElsewhere.headers.getSetCookie(), [], 'no sign-in flow was started');
      const fromHere = await fetch(loopback(`${publicUrl}/v1/auth/sso/acme/start`), {
        redirect: 'manual',
        headers: { 'sec-fetch-site': 'same-origin' },
      });
      assert.ok((fromHere.headers.get('location') ?? '').startsWith(provider.issuer), 'to the provider');
    });

    test("another tenant's admin reads and changes only their own tenant's settings", async () => {
      const globexAdmin = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.globex, allPermissions)).value),
      );
      const none = expectProblem(await globexAdmin.get('/v1/sso'), 404, 'sso_not_configured');
      assert.equal(none.redirect_uri, `${publicUrl}/v1/auth/sso/callback`, 'where to register, before configuring');
      expectProblem(await globexAdmin.get('/v1/sso', { 'sightline-tenant': 'acme' }), 404, 'tenant_not_found');
      expectProblem(await put(globexAdmin, settings(), { 'sightline-tenant': 'acme' }), 404, 'tenant_not_found');
      const own = await put(globexAdmin, settings({ client_id: 'globex-client', enabled: false }));
      assert.equal(own.status, 200, JSON.stringify(own.body));
      assert.equal((await admin.get<SsoSettings>('/v1/sso')).body.client_id, provider.clientId);
      assert.equal((await globexAdmin.delete('/v1/sso')).status, 204);
      assert.equal((await admin.get<SsoSettings>('/v1/sso')).status, 200, "acme's settings stay");
    });

    test('a viewer may neither read nor change the settings (403)', async () => {
      const viewer = await signIn(suite.server, {
        tenant: suite.acme,
        role: 'viewer',
        email: `${login('vic')}@acme.example`,
      });
      const headers = { 'x-csrf-token': viewer.csrf };
      expectProblem(
        await viewer.client.request('PUT', '/v1/sso', { body: settings(), headers }),
        403,
        'permission_denied',
      );
      expectProblem(await viewer.client.delete('/v1/sso', headers), 403, 'permission_denied');
      expectProblem(await viewer.client.get('/v1/sso'), 403, 'permission_denied');
    });
  });
}
