// People and the frame around every call, through HTTP on SQLite and PostgreSQL: sign-in,
// sign-out and CSRF for cookie writes, the failed-attempt limit, the /docs site behind Basic,
// the audit log, and the operators' tenant registry with the observation-write approval.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient, basic, bearer, issueToken, seedTenant, signIn, type Problem } from '../helpers/api.js';
import type { CreatedToken, Me, Page, SessionAnswer } from '../helpers/responses.js';
import { createUser } from '../../src/identity/users/user-service.js';
import { cliActor } from '../../src/identity/principal.js';
import type { Tenant, TenantResource } from '../../src/identity/tenants/tenant-service.js';
import type { AuditEvent } from '../../src/identity/audit/audit-service.js';

type AuditEvents = Page<'events', AuditEvent>;

for (const target of databaseTargets) {
  describe(`sign-in, sessions and the API frame on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let acme: Tenant;

    before(async () => {
      database = await target.create();
      server = await startServer(database, { authMaxFailures: 1000 });
      acme = await seedTenant(server, 'acme');
    });
    after(async () => {
      await server.close();
      await database.cleanup();
    });

    test('sign-in sets an httpOnly SameSite session cookie; the session reads, writes with its CSRF token, and signs out', async () => {
      const wrong = await apiClient(server).post<Problem>('/v1/auth/login', {
        email: 'nobody@example.com',
        password: 'whatever whatever',
      });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.code, 'invalid_credentials');

      await createUser(server.sightline.database.db, {
        tenantId: acme.id,
        email: 'Alice@Example.com',
        role: 'admin',
        password: 'alice has a long password',
        actor: cliActor,
      });
      const badPassword = await apiClient(server).post<Problem>('/v1/auth/login', {
        email: 'alice@example.com',
        password: 'not her password',
      });
      assert.equal(badPassword.status, 401);
      assert.equal(badPassword.body.detail, wrong.body.detail, 'unknown email and wrong password look the same');

      const login = await apiClient(server).post<SessionAnswer>('/v1/auth/login', {
        email: 'ALICE@example.com',
        password: 'alice has a long password',
      });
      assert.equal(login.status, 200);
      const setCookie = login.headers.get('set-cookie') ?? '';
      assert.match(setCookie, /^sightline_session=[0-9A-Za-z]{43};/);
      assert.match(setCookie, /HttpOnly/);
      assert.match(setCookie, /SameSite=Lax/);
      assert.equal(login.body.user.role, 'admin');
      assert.deepEqual(login.body.tenant, { code_name: 'acme', name: 'acme display name' });
      const cookie = setCookie.split(';')[0]!;
      const session = apiClient(server, { cookie });

      const me = await session.get<Me>('/v1/me');
      assert.equal(me.status, 200);
      assert.equal(me.body.label, 'alice@example.com');
      assert.equal(me.body.csrf_token, login.body.csrf_token);

      // Cookie-authenticated writes need the CSRF token; reads do not.
      const withoutCsrf = await session.post<Problem>('/v1/tokens', {
        name: 'from the UI',
        permissions: ['cases:read'],
      });
      assert.equal(withoutCsrf.status, 403);
      assert.equal(withoutCsrf.body.code, 'csrf_token_invalid');
      const wrongCsrf = await session.post(
        '/v1/tokens',
        { name: 'from the UI', permissions: ['cases:read'] },
        { 'x-csrf-token': 'x'.repeat(43) },
      );
      assert.equal(wrongCsrf.status, 403);
      const created = await session.post<CreatedToken>(
        '/v1/tokens',
        { name: 'from the UI', permissions: ['cases:read'] },
        { 'x-csrf-token': me.body.csrf_token },
      );
      assert.equal(created.status, 201);
      assert.equal(created.body.token.created_by, 'alice@example.com');
      // A token needs no CSRF token: it is not sent by browsers on their own.
      const admin = apiClient(server, bearer((await issueToken(server, acme)).value));
      assert.equal((await admin.post('/v1/tokens', { name: 'scripted', permissions: ['cases:read'] })).status, 201);

      const logoutWithoutCsrf = await session.post('/v1/auth/logout');
      assert.equal(logoutWithoutCsrf.status, 403);
      const logout = await session.post('/v1/auth/logout', undefined, { 'x-csrf-token': me.body.csrf_token });
      assert.equal(logout.status, 204);
      assert.match(logout.headers.get('set-cookie') ?? '', /sightline_session=;.*Expires=Thu, 01 Jan 1970/);
      const after = await session.get<Problem>('/v1/me');
      assert.equal(after.status, 401);
      assert.equal(after.body.code, 'invalid_credentials');
    });

    test("roles decide what people may do: a viewer reads, and sees no one's tokens but their own", async () => {
      const viewer = await signIn(server, { tenant: acme, role: 'viewer', email: `viewer-${target.kind}@example.com` });
      const me = await viewer.client.get<Me>('/v1/me');
      assert.deepEqual(me.body.permissions, [
        'cases:read',
        'devices:read',
        'observations:read',
        'telemetry:read',
        'summaries:read',
      ]);
      await issueToken(server, acme, ['cases:read'], { name: 'an admin token' });
      const tokens = await viewer.client.get<{ tokens: unknown[] }>('/v1/tokens');
      assert.equal(tokens.status, 200);
      assert.deepEqual(tokens.body.tokens, []);
      const audit = await viewer.client.get<Problem>('/v1/audit-events');
      assert.equal(audit.status, 403);
      assert.equal(audit.body.required_permission, 'audit:read');
    });

    test('the audit log records sign-ins, failures, token changes and denials, for admins only', async () => {
      const admin = apiClient(
        server,
        bearer((await issueToken(server, acme, ['audit:read', 'tokens:write'], { name: 'auditor' })).value),
      );
      const { id } = await issueToken(server, acme, ['cases:read'], { name: 'doomed' });
      await admin.delete(`/v1/tokens/${id}`);
      await apiClient(server).post('/v1/auth/login', { email: 'alice@example.com', password: 'a wrong password' });
      await apiClient(server, bearer((await issueToken(server, acme, ['cases:read'])).value)).get('/v1/tokens');

      const events = (await admin.get<AuditEvents>('/v1/audit-events?limit=200')).body.events;
      const actions = events.map((event) => event.action);
      for (const action of [
        'auth.login',
        'auth.login_failed',
        'auth.logout',
        'token.created',
        'token.deleted',
        'auth.permission_denied',
        'user.created',
      ]) {
        assert.ok(actions.includes(action), `${action} in ${actions.join(', ')}`);
      }
      const deletion = events.find((event) => event.action === 'token.deleted')!;
      assert.equal(deletion.target?.id, id);
      assert.equal(deletion.actor.label, 'auditor');
      const failure = events.find((event) => event.action === 'auth.login_failed')!;
      assert.equal(failure.outcome, 'failure');
      assert.equal(failure.ip, '127.0.0.1');
      assert.ok(!JSON.stringify(events).includes('a wrong password'), 'passwords never reach the audit log');

      const filtered = await admin.get<AuditEvents>('/v1/audit-events?action=token.deleted');
      assert.deepEqual(new Set(filtered.body.events.map((event) => event.action)), new Set(['token.deleted']));
      const analyst = await signIn(server, {
        tenant: acme,
        role: 'analyst',
        email: `analyst-${target.kind}@example.com`,
      });
      assert.equal((await analyst.client.get('/v1/audit-events')).status, 403);
      // Another tenant's admin sees none of it.
      const globex = await seedTenant(server, `globex-${target.kind}`);
      const outsider = apiClient(server, bearer((await issueToken(server, globex, ['audit:read'])).value));
      const theirs = (await outsider.get<AuditEvents>('/v1/audit-events')).body.events;
      assert.ok(theirs.every((event) => event.target?.id !== id));
    });

    test('operators manage tenants and their observation-write approval; changes are audited', async () => {
      const operator = await signIn(server, {
        tenant: null,
        role: 'operator',
        email: `root-${target.kind}@example.com`,
      });
      const write = { 'x-csrf-token': operator.csrf };
      const created = await operator.client.post<TenantResource>(
        '/v1/tenants',
        { code_name: 'initech', name: 'Initech' },
        write,
      );
      assert.equal(created.status, 201);
      assert.equal(created.body.observation_write_approved, false);
      assert.match(created.body.collector_url, /^http:\/\/initech-collector\.localhost:\d+$/);
      assert.equal((await operator.client.post('/v1/tenants', { code_name: 'initech' }, write)).status, 409);
      assert.equal(
        (await operator.client.post<Problem>('/v1/tenants', { code_name: 'Bad Name' }, write)).body.code,
        'invalid_code_name',
      );

      const approved = await operator.client.patch<TenantResource>(
        '/v1/tenants/initech',
        { observation_write_approved: true },
        write,
      );
      assert.equal(approved.status, 200);
      assert.equal(approved.body.observation_write_approved, true);
      const list = await operator.client.get<Page<'tenants', TenantResource>>('/v1/tenants?limit=500');
      assert.ok(list.body.tenants.some((tenant) => tenant.code_name === 'initech'));
      const audit = await operator.client.get<AuditEvents>('/v1/audit-events?action=tenant.settings_changed', {
        'sightline-tenant': 'initech',
      });
      assert.deepEqual(audit.body.events[0]!.details, {
        changes: { observation_write_approved: { from: false, to: true } },
      });
      assert.equal((await operator.client.patch('/v1/tenants/nope', { name: 'x' }, write)).status, 404);

      const member = apiClient(server, bearer((await issueToken(server, acme)).value));
      assert.equal(
        (await member.patch<Problem>('/v1/tenants/acme', { observation_write_approved: true })).body.code,
        'operator_required',
      );
      assert.equal((await member.get<TenantResource>('/v1/tenant')).body.code_name, 'acme');
    });

    test('/docs asks for Basic credentials and opens with any username and a token as the password', async () => {
      const { value } = await issueToken(server, acme, ['cases:read']);
      const anonymous = await fetch(`${server.baseUrl}/docs/`);
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic realm="Sightline API reference"/);
      const wrong = await fetch(`${server.baseUrl}/docs/`, { headers: basic('slt_wrong') });
      assert.equal(wrong.status, 401);
      for (const username of ['anyone', 'bob', '']) {
        const page = await fetch(`${server.baseUrl}/docs/`, { headers: basic(value, username) });
        assert.equal(page.status, 200);
        assert.match(await page.text(), /swagger-ui/i);
      }
      const spec = await fetch(`${server.baseUrl}/docs/json`, { headers: basic(value) });
      assert.equal(spec.status, 200);
      assert.equal(((await spec.json()) as { openapi: string }).openapi, '3.1.0');
    });
  });
}

describe('the failed-attempt limit', () => {
  test('past the limit an address gets 429 for guesses; its known tokens and untargeted accounts still work', async () => {
    const database = await databaseTargets[0]!.create();
    const server = await startServer(database, { authMaxFailures: 3, authFailureWindow: '10m' });
    try {
      const acme = await seedTenant(server, 'acme');
      const good = (await issueToken(server, acme)).value;
      for (const email of ['carol@example.com', 'dave@example.com']) {
        await createUser(server.sightline.database.db, {
          tenantId: acme.id,
          email,
          role: 'admin',
          password: 'a long password of theirs',
          actor: cliActor,
        });
      }
      // Two token guesses and one wrong password for dave: the address reaches its limit.
      for (let i = 0; i < 2; i++)
        assert.equal((await apiClient(server, bearer(`slt_guess${i}`)).get('/v1/me')).status, 401);
      const wrong = { email: 'dave@example.com', password: 'not the password at all' };
      assert.equal((await apiClient(server).post('/v1/auth/login', wrong)).status, 401);

      const guess = await apiClient(server, bearer('slt_guess9')).get<Problem>('/v1/me');
      assert.equal(guess.status, 429);
      assert.equal(guess.body.code, 'too_many_failed_attempts');
      const retryAfter = Number(guess.headers.get('retry-after'));
      assert.ok(retryAfter > 500 && retryAfter <= 600, `Retry-After ${retryAfter}`);
      // The office behind the same address keeps working: a known token, the docs with it, and
      // a sign-in at an account nobody was failing at.
      assert.equal((await apiClient(server, bearer(good)).get('/v1/me')).status, 200);
      assert.equal((await fetch(`${server.baseUrl}/docs/`, { headers: basic(good) })).status, 200);
      const carol = { email: 'carol@example.com', password: 'a long password of theirs' };
      assert.equal((await apiClient(server).post('/v1/auth/login', carol)).status, 200);
      // The account this address was guessing at stays closed to it, even with the right password.
      const dave = { email: 'dave@example.com', password: 'a long password of theirs' };
      assert.equal((await apiClient(server).post('/v1/auth/login', dave)).status, 429);
      // Calls without credentials are not guesses: they still get their 401.
      assert.equal((await apiClient(server).get('/v1/me')).status, 401);
    } finally {
      await server.close();
      await database.cleanup();
    }
  });

  test('guessing one account from many addresses: after five failures each attempt waits, doubling', async () => {
    const database = await databaseTargets[0]!.create();
    const server = await startServer(database, { trustProxy: '127.0.0.1', authMaxFailures: 1000 });
    try {
      const acme = await seedTenant(server, 'acme');
      await createUser(server.sightline.database.db, {
        tenantId: acme.id,
        email: 'erin@example.com',
        role: 'analyst',
        password: 'erin has a long password',
        actor: cliActor,
      });
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) {
        const from = { 'x-forwarded-for': `198.51.100.${i % 10}` };
        const attempt = await apiClient(server, from).post<Problem>('/v1/auth/login', {
          email: 'erin@example.com',
          password: `guess number ${i} for erin`,
        });
        statuses.push(attempt.status);
      }
      const evaluated = statuses.filter((status) => status === 401).length;
      assert.ok(evaluated >= 5 && evaluated <= 8, `${evaluated} of 100 guesses were evaluated`);
      assert.equal(statuses.filter((status) => status === 429).length, 100 - evaluated);
      // Another account is not slowed down by erin's guessers.
      await createUser(server.sightline.database.db, {
        tenantId: acme.id,
        email: 'frank@example.com',
        role: 'analyst',
        password: 'frank has a long password',
        actor: cliActor,
      });
      const frank = await apiClient(server, { 'x-forwarded-for': '198.51.100.1' }).post('/v1/auth/login', {
        email: 'frank@example.com',
        password: 'frank has a long password',
      });
      assert.equal(frank.status, 200);
    } finally {
      await server.close();
      await database.cleanup();
    }
  });

  test('failed sign-ins count too', async () => {
    const database = await databaseTargets[0]!.create();
    const server = await startServer(database, { authMaxFailures: 2 });
    try {
      for (let i = 0; i < 2; i++)
        assert.equal(
          (await apiClient(server).post('/v1/auth/login', { email: 'x@example.com', password: 'guess guess guess' }))
            .status,
          401,
        );
      const third = await apiClient(server).post('/v1/auth/login', {
        email: 'x@example.com',
        password: 'guess guess guess',
      });
      assert.equal(third.status, 429);
      assert.ok(Number(third.headers.get('retry-after')) > 0);
    } finally {
      await server.close();
      await database.cleanup();
    }
  });
});
