// Single sign-on links, through HTTP on SQLite and PostgreSQL, against a real provider: a tenant
// admin's provider cannot sign in as a member who has a password or a second factor of their
// own. The first single sign-on opens no session, says a link is required (and audits it); the
// member signs in with their password and confirms the link; from then on the provider signs
// them in, as long as the tenant keeps that provider. People with no other way in (provisioned
// by single sign-on, or invited and never set a password) are signed in and linked at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, signIn, type ApiClient } from '../helpers/api.js';
import type { Me } from '../helpers/responses.js';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { approveEmailDomain, CookieJar, loopback, signInWithSso } from '../helpers/sso.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { createUser } from '../../src/identity/users/user-service.js';
import { cliActor } from '../../src/identity/principal.js';

interface LinkState {
  linked: { issuer: string; how: string } | null;
  pending: { issuer: string; email: string } | null;
}
interface AuditPage {
  events: {
    action: string;
    actor: { label: string };
    target: { id: string } | null;
    details: Record<string, unknown>;
  }[];
}

const password = 'a long enough test password';
let unique = 0;
const next = (prefix: string) => `${prefix}-${++unique}`;

for (const target of databaseTargets) {
  describe(`single sign-on links on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, { authMaxFailures: '1000', webhookAllowLoopback: true });
    let provider: TestProvider;
    let other: TestProvider;
    let admin: ApiClient;
    let publicUrl: string;
    const settings = (issuer: TestProvider) => ({
      issuer: issuer.issuer,
      client_id: issuer.clientId,
      client_secret: issuer.clientSecret,
      allowed_email_domains: ['acme.example'],
      role_claim: 'groups',
      role_mapping: { 'soc-admins': 'admin' },
      default_role: 'viewer',
      enabled: true,
    });
    /** The provider's account claiming this email, as a tenant admin's own provider could. */
    const claim = (at: TestProvider, email: string, groups = ['soc-admins']) => {
      const id = next('acct');
      at.accounts.set(id, { email, email_verified: true, groups });
      return id;
    };
    const sso = (at: TestProvider, id: string, jar = new CookieJar()) =>
      signInWithSso(publicUrl, '/v1/auth/sso/acme/start', id, at.issuer, jar);
    const asSession = (session: string | undefined, more = '') =>
      apiClient(suite.server, { cookie: `sightline_session=${session ?? ''}${more}` });
    const me = async (session: string | undefined) => (await asSession(session).get<Me>('/v1/me')).body;
    const audit = async (action: string) =>
      (await admin.get<AuditPage>(`/v1/audit-events?action=${action}&limit=100`)).body.events;
    /** A password sign-in: the session cookie's value and its CSRF token. */
    const passwordSignIn = async (email: string) => {
      const response = await apiClient(suite.server).post<{ csrf_token: string }>('/v1/auth/login', {
        email,
        password,
      });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const session = /sightline_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
      return { session, csrf: response.body.csrf_token };
    };
    const linkCookie = (jar: CookieJar) => jar.get(loopback(publicUrl), 'sightline_sso_link') ?? '';
    const confirm = (signedIn: { session: string | undefined; csrf: string }, jar: CookieJar) =>
      asSession(signedIn.session, `; sightline_sso_link=${linkCookie(jar)}`).post<LinkState>(
        '/v1/account/sso-link',
        undefined,
        { 'x-csrf-token': signedIn.csrf },
      );

    before(async () => {
      publicUrl = suite.server.sightline.collectorAddress.publicUrl;
      provider = await startTestProvider(`${publicUrl}/v1/auth/sso/callback`);
      other = await startTestProvider(`${publicUrl}/v1/auth/sso/callback`);
      admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
      assert.equal((await admin.request('PUT', '/v1/sso', { body: settings(provider) })).status, 200);
      await approveEmailDomain(suite.server, suite.acme, 'acme.example');
    });
    after(async () => {
      await provider.close();
      await other.close();
    });

    test('a member with a password is signed in by the provider only after confirming the link with that password', async () => {
      const email = `${next('ana')}@acme.example`;
      const before = await signIn(suite.server, { tenant: suite.acme, role: 'analyst', email, password });
      const id = claim(provider, email);

      const jar = new CookieJar();
      const refused = await sso(provider, id, jar);
      assert.equal(refused.location, '/account/sso-link?sso_error=link_required');
      assert.equal(refused.session, undefined, 'no session before the link is confirmed');
      assert.notEqual(linkCookie(jar), '', 'the browser keeps the pending link');
      assert.equal((await sso(provider, id)).session, undefined, 'asking again changes nothing');
      const required = (await audit('auth.login_failed')).filter((event) => event.actor.label === email);
      assert.deepEqual(
        required.map((event) => event.details),
        [
          { method: 'sso', reason: 'link_required' },
          { method: 'sso', reason: 'link_required' },
        ],
      );

      // A session from before single sign-on asked cannot confirm; nor can one without the pending link.
      const stale = { session: /sightline_session=([^;]+)/.exec(before.cookie)?.[1], csrf: before.csrf };
      expectProblem(await confirm(stale, jar), 403, 'sso_link_needs_sign_in');
      const fresh = await passwordSignIn(email);
      expectProblem(await confirm(fresh, new CookieJar()), 404, 'sso_link_not_pending');
      const shown = await asSession(fresh.session, `; sightline_sso_link=${linkCookie(jar)}`).get<LinkState>(
        '/v1/account/sso-link',
      );
      assert.deepEqual(
        [shown.body.linked, shown.body.pending?.issuer, shown.body.pending?.email],
        [null, provider.issuer, email],
      );

      const linked = await confirm(fresh, jar);
      assert.equal(linked.status, 200, JSON.stringify(linked.body));
      assert.deepEqual(
        [linked.body.linked?.issuer, linked.body.linked?.how, linked.body.pending],
        [provider.issuer, 'confirmed', null],
      );
      const confirmed = (await audit('sso.linked')).find((event) => event.details.email === email);
      assert.deepEqual(confirmed?.details, { email, issuer: provider.issuer, how: 'confirmed' });
      assert.equal(confirmed.actor.label, email);

      const now = await sso(provider, id);
      assert.equal(now.location, '/');
      assert.deepEqual([(await me(now.session)).label, (await me(now.session)).role], [email, 'admin']);
    });

    test('a second factor alone also needs the link; someone with no other way in is signed in and linked at once', async () => {
      const db = suite.server.sightline.database.db;
      const invited = `${next('ivy')}@acme.example`;
      await createUser(db, {
        tenantId: suite.acme.id,
        email: invited,
        role: 'viewer',
        noPassword: true,
        actor: cliActor,
      });
      const direct = await sso(provider, claim(provider, invited, []));
      assert.equal((await me(direct.session)).label, invited);
      const linked = (await audit('sso.linked')).find((event) => event.details.email === invited);
      assert.deepEqual(linked?.details, { email: invited, issuer: provider.issuer, how: 'no_password' });

      const guarded = `${next('tom')}@acme.example`;
      const { user } = await createUser(db, {
        tenantId: suite.acme.id,
        email: guarded,
        role: 'viewer',
        noPassword: true,
        actor: cliActor,
      });
      await db
        .insertInto('second_factors')
        .values({
          user_id: user.id,
          tenant_id: suite.acme.id,
          secret_encrypted: 'not read here',
          created_at: Date.now(),
          confirmed_at: Date.now(),
          last_used_step: null,
        })
        .execute();
      const refused = await sso(provider, claim(provider, guarded));
      assert.equal(refused.location, '/account/sso-link?sso_error=link_required');
      assert.equal(refused.session, undefined);
    });

    test('a link holds for its provider: pointed at another one, single sign-on asks members with a password again', async () => {
      const email = `${next('lee')}@acme.example`;
      await signIn(suite.server, { tenant: suite.acme, role: 'viewer', email, password });
      const jar = new CookieJar();
      await sso(provider, claim(provider, email), jar);
      assert.equal((await confirm(await passwordSignIn(email), jar)).status, 200);
      const created = `${next('new')}@acme.example`;
      assert.equal((await me((await sso(provider, claim(provider, created, []))).session)).label, created);

      assert.equal((await admin.request('PUT', '/v1/sso', { body: settings(other) })).status, 200);
      try {
        const elsewhere = await sso(other, claim(other, email));
        assert.equal(elsewhere.location, '/account/sso-link?sso_error=link_required');
        assert.equal(elsewhere.session, undefined);
        // Someone single sign-on created has no other way in: the tenant's provider is theirs.
        assert.equal((await me((await sso(other, claim(other, created, []))).session)).label, created);
      } finally {
        assert.equal((await admin.request('PUT', '/v1/sso', { body: settings(provider) })).status, 200);
      }
    });

    test('a member removes their link, and single sign-on asks again; tokens have no link of their own', async () => {
      const email = `${next('rio')}@acme.example`;
      await signIn(suite.server, { tenant: suite.acme, role: 'viewer', email, password });
      const jar = new CookieJar();
      const id = claim(provider, email);
      await sso(provider, id, jar);
      const signedIn = await passwordSignIn(email);
      assert.equal((await confirm(signedIn, jar)).status, 200);
      const removed = await asSession(signedIn.session).delete('/v1/account/sso-link', {
        'x-csrf-token': signedIn.csrf,
      });
      assert.equal(removed.status, 204);
      assert.deepEqual((await asSession(signedIn.session).get<LinkState>('/v1/account/sso-link')).body, {
        linked: null,
        pending: null,
      });
      assert.ok((await audit('sso.unlinked')).some((event) => event.actor.label === email));
      assert.equal((await sso(provider, id)).location, '/account/sso-link?sso_error=link_required');
      expectProblem(await admin.get('/v1/account/sso-link'), 403, 'session_required');
    });
  });
}
