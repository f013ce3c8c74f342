// The lifecycle of people through HTTP, on SQLite and PostgreSQL: an admin invites a person, who
// sets a password with the one-time code and signs in; role changes revoke tokens the new role
// could not hold; disabling ends sessions and revokes tokens at once; re-enabling lets them sign in
// again; deleting keeps their name on what they did and frees the email; password reset codes work
// once; sessions are listed and ended; every change is audited; other tenants see nothing.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, signIn, type ApiClient, type Session } from '../helpers/api.js';
import type { CreatedToken, Page } from '../helpers/responses.js';
import type { ManagedUser, OneTimeCode } from '../../src/identity/users/user-admin-service.js';
import type { SessionInfo } from '../../src/identity/sessions/session-list.js';
import type { ApiToken } from '../../src/identity/tokens/token-service.js';

const PASSWORD = 'quiet-harbour-plum-lantern';

for (const target of databaseTargets) {
  describe(`people and sessions on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let admin: Session;
    let write: Record<string, string>;
    before(async () => {
      admin = await signIn(suite.server, { tenant: suite.acme, role: 'admin', email: 'root@acme.test' });
      write = { 'x-csrf-token': admin.csrf };
    });

    const anonymous = () => apiClient(suite.server);
    const login = (email: string, password = PASSWORD) =>
      anonymous().post<{ csrf_token: string }>('/v1/auth/login', { email, password });
    const sessionOf = async (email: string, password = PASSWORD) => {
      const response = await login(email, password);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
      return { client: apiClient(suite.server, { cookie }), cookie, csrf: response.body.csrf_token };
    };
    const invite = async (email: string, role = 'analyst') => {
      const created = await admin.client.post<{ user: ManagedUser; invitation: OneTimeCode }>(
        '/v1/users',
        { email, role, name: `Person ${email}` },
        write,
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    };
    const join = async (email: string, role = 'analyst') => {
      const { user, invitation } = await invite(email, role);
      const redeemed = await anonymous().post('/v1/auth/password-codes/redeem', {
        code: invitation.code,
        password: PASSWORD,
      });
      assert.equal(redeemed.status, 200, JSON.stringify(redeemed.body));
      return user;
    };
    const auditActions = async () => {
      const audit = await admin.client.get<{ events: { action: string; target: { id: string } | null }[] }>(
        '/v1/audit-events?limit=200',
      );
      return audit.body.events;
    };

    test('an invited person sets a password with the code, once, and then signs in', async () => {
      const { user, invitation } = await invite('ivy@acme.test');
      assert.equal(user.status, 'invited');
      assert.match(invitation.path, /^\/set-password#code=slc_/);
      expectProblem(await login('ivy@acme.test'), 401, 'invalid_credentials');

      const seen = await anonymous().post<{ email: string; purpose: string }>('/v1/auth/password-codes/check', {
        code: invitation.code,
      });
      assert.deepEqual([seen.status, seen.body.email, seen.body.purpose], [200, 'ivy@acme.test', 'invitation']);
      const weak = await anonymous().post('/v1/auth/password-codes/redeem', {
        code: invitation.code,
        password: 'password1234',
      });
      expectProblem(weak, 400, 'invalid_request');
      const redeemed = await anonymous().post('/v1/auth/password-codes/redeem', {
        code: invitation.code,
        password: PASSWORD,
      });
      assert.equal(redeemed.status, 200);
      expectProblem(
        await anonymous().post('/v1/auth/password-codes/redeem', { code: invitation.code, password: `${PASSWORD}!` }),
        404,
        'invalid_code',
      );
      assert.equal((await login('ivy@acme.test')).status, 200);
      const listed = await admin.client.get<Page<'users', ManagedUser>>('/v1/users?status=any&q=ivy');
      assert.deepEqual(
        listed.body.users.map((user) => [user.status, user.last_login_at !== null]),
        [['active', true]],
      );
      assert.ok((await auditActions()).some((event) => event.action === 'user.invitation_accepted'));
    });

    test('disabling ends sessions and revokes tokens at once; re-enabling lets the person sign in again', async () => {
      const dan = await join('dan@acme.test');
      const session = await sessionOf('dan@acme.test');
      const token = await session.client.post<CreatedToken>(
        '/v1/tokens',
        { name: 'dan script', permissions: ['cases:read'] },
        { 'x-csrf-token': session.csrf },
      );
      assert.equal(token.status, 201, JSON.stringify(token.body));
      const child = apiClient(suite.server, bearer(token.body.value));
      assert.equal((await child.get('/v1/me')).status, 200);

      const disabled = await admin.client.patch<ManagedUser>(`/v1/users/${dan.id}`, { disabled: true }, write);
      assert.equal(disabled.body.status, 'disabled');
      expectProblem(await session.client.get('/v1/me'), 401, 'invalid_credentials');
      assert.equal((await child.get('/v1/me')).status, 401);
      expectProblem(await login('dan@acme.test'), 401, 'invalid_credentials');
      const revoked = await admin.client.get<ApiToken>(`/v1/tokens/${token.body.token.id}`);
      assert.equal(revoked.body.status, 'deleted');
      assert.match(revoked.body.revoked_reason ?? '', /dan@acme\.test was disabled/);
      const pickers = await admin.client.get<Page<'users', ManagedUser>>('/v1/users?q=dan');
      assert.equal(pickers.body.users.length, 0, 'disabled people are not offered as assignees');

      const enabled = await admin.client.patch<ManagedUser>(`/v1/users/${dan.id}`, { disabled: false }, write);
      assert.equal(enabled.body.status, 'active');
      assert.equal((await login('dan@acme.test')).status, 200);
      assert.equal((await child.get('/v1/me')).status, 401, 'revoked tokens stay revoked');
      const actions = (await auditActions()).filter((event) => event.target?.id === dan.id).map((e) => e.action);
      assert.ok(actions.includes('user.disabled') && actions.includes('user.enabled'), actions.join());
    });

    test("a role change revokes the person's tokens the new role could not hold, and only those", async () => {
      const rae = await join('rae@acme.test', 'admin');
      const session = await sessionOf('rae@acme.test');
      const mint = async (name: string, permissions: string[]) => {
        const created = await session.client.post<CreatedToken>(
          '/v1/tokens',
          { name, permissions },
          { 'x-csrf-token': session.csrf },
        );
        assert.equal(created.status, 201, JSON.stringify(created.body));
        return created.body;
      };
      const broad = await mint('audit bot', ['audit:read']);
      const narrow = await mint('reader', ['cases:read']);
      const changed = await admin.client.patch<ManagedUser>(`/v1/users/${rae.id}`, { role: 'viewer' }, write);
      assert.equal(changed.body.role, 'viewer');
      assert.equal((await apiClient(suite.server, bearer(broad.value)).get('/v1/me')).status, 401);
      assert.equal((await apiClient(suite.server, bearer(narrow.value)).get('/v1/me')).status, 200);
      const me = await session.client.get<{ permissions: string[] }>('/v1/me');
      assert.ok(!me.body.permissions.includes('audit:read'), 'the session reads the new role at once');
    });

    test('nobody locks themselves out, and the last admin stays', async () => {
      const meId = (await admin.client.get<{ id: string }>('/v1/me')).body.id;
      expectProblem(
        await admin.client.patch(`/v1/users/${meId}`, { disabled: true }, write),
        409,
        'user_change_refused',
      );
      expectProblem(await admin.client.delete(`/v1/users/${meId}`, write), 409, 'user_change_refused');
      // An operator cannot remove the tenant's only admin either.
      const solo = await signIn(suite.server, { tenant: null, role: 'operator', email: 'op@platform.test' });
      const opWrite = { 'x-csrf-token': solo.csrf, 'sightline-tenant': 'globex' };
      const globexAdmin = await solo.client.post<{ user: ManagedUser }>(
        '/v1/users',
        { email: 'boss@globex.test', role: 'admin', password: PASSWORD },
        opWrite,
      );
      assert.equal(globexAdmin.status, 201, JSON.stringify(globexAdmin.body));
      expectProblem(
        await solo.client.patch(`/v1/users/${globexAdmin.body.user.id}`, { role: 'viewer' }, opWrite),
        409,
        'user_change_refused',
      );
    });

    test("an admin's own token cannot lock its creator out, nor reset anyone's password or second factor", async () => {
      const ada = await join('ada@acme.test', 'admin');
      const session = await sessionOf('ada@acme.test');
      const minted = await session.client.post<CreatedToken>(
        '/v1/tokens',
        { name: 'people bot', permissions: ['users:read', 'users:write', 'cases:read'] },
        { 'x-csrf-token': session.csrf },
      );
      assert.equal(minted.status, 201, JSON.stringify(minted.body));
      const bot = apiClient(suite.server, bearer(minted.body.value));
      expectProblem(await bot.patch(`/v1/users/${ada.id}`, { disabled: true }), 409, 'user_change_refused');
      expectProblem(await bot.patch(`/v1/users/${ada.id}`, { role: 'viewer' }), 409, 'user_change_refused');
      expectProblem(await bot.delete(`/v1/users/${ada.id}`), 409, 'user_change_refused');
      const colleague = await join('cal@acme.test');
      expectProblem(await bot.post(`/v1/users/${colleague.id}/password-reset`, {}), 403, 'session_required');
      expectProblem(await bot.request('DELETE', `/v1/users/${colleague.id}/second-factor`), 403, 'session_required');
      // Demoting and disabling another admin in one call is judged after the demotion.
      const both = await admin.client.patch<ManagedUser>(
        `/v1/users/${ada.id}`,
        { role: 'viewer', disabled: true },
        write,
      );
      assert.equal(both.status, 200, JSON.stringify(both.body));
      assert.deepEqual([both.body.role, both.body.status], ['viewer', 'disabled']);
    });

    test("a disabled person's token never authenticates, even one the revocation missed", async () => {
      const kim = await join('kim@acme.test');
      const session = await sessionOf('kim@acme.test');
      const minted = await session.client.post<CreatedToken>(
        '/v1/tokens',
        { name: 'late token', permissions: ['cases:read'] },
        { 'x-csrf-token': session.csrf },
      );
      const late = apiClient(suite.server, bearer(minted.body.value));
      assert.equal((await late.get('/v1/me')).status, 200);
      // As if the token were minted in the instant the person was being disabled: the row says
      // disabled, the token was never revoked.
      const { db } = suite.server.sightline.database;
      await db.updateTable('users').set({ disabled_at: Date.now() }).where('id', '=', kim.id).execute();
      expectProblem(await late.get('/v1/me'), 401, 'token_revoked');
      await db.updateTable('users').set({ disabled_at: null }).where('id', '=', kim.id).execute();
    });

    test('someone who never set a password stays invited, and gets a new invitation rather than a reset', async () => {
      const { user } = await invite('nell@acme.test');
      await admin.client.patch(`/v1/users/${user.id}`, { disabled: true }, write);
      const enabled = await admin.client.patch<ManagedUser>(`/v1/users/${user.id}`, { disabled: false }, write);
      assert.equal(enabled.body.status, 'invited', 'no password yet, whatever happened to the link');
      const issued = await admin.client.post<OneTimeCode>(`/v1/users/${user.id}/password-reset`, {}, write);
      assert.equal(issued.body.purpose, 'invitation');
    });

    test('deleting keeps the name on what the person did and frees the email', async () => {
      const del = await join('del@acme.test');
      const session = await sessionOf('del@acme.test');
      assert.equal((await admin.client.delete(`/v1/users/${del.id}`, write)).status, 204);
      expectProblem(await session.client.get('/v1/me'), 401, 'invalid_credentials');
      expectProblem(await admin.client.get(`/v1/users/${del.id}`), 404, 'not_found');
      const all = await admin.client.get<Page<'users', ManagedUser>>('/v1/users?status=any');
      assert.ok(!all.body.users.some((user) => user.id === del.id));
      const names = await suite.server.sightline.database.db
        .selectFrom('users')
        .select(['name', 'deleted_at'])
        .where('id', '=', del.id)
        .executeTakeFirstOrThrow();
      assert.equal(names.name, 'Person del@acme.test');
      assert.ok(names.deleted_at !== null);
      const again = await invite('del@acme.test');
      assert.notEqual(again.user.id, del.id, 'the email is free for a new account');
    });

    test('a password reset code sets a new password once and ends every session', async () => {
      const pat = await join('pat@acme.test');
      const session = await sessionOf('pat@acme.test');
      const issued = await admin.client.post<OneTimeCode>(`/v1/users/${pat.id}/password-reset`, {}, write);
      assert.equal(issued.status, 201);
      assert.equal(issued.body.purpose, 'password_reset');
      const second = await admin.client.post<OneTimeCode>(`/v1/users/${pat.id}/password-reset`, {}, write);
      const newPassword = 'violet-canyon-drifting-owl';
      expectProblem(
        await anonymous().post('/v1/auth/password-codes/redeem', { code: issued.body.code, password: newPassword }),
        404,
        'invalid_code',
      );
      const redeemed = await anonymous().post('/v1/auth/password-codes/redeem', {
        code: second.body.code,
        password: newPassword,
      });
      assert.equal(redeemed.status, 200);
      expectProblem(await session.client.get('/v1/me'), 401, 'invalid_credentials');
      expectProblem(await login('pat@acme.test'), 401, 'invalid_credentials');
      assert.equal((await login('pat@acme.test', newPassword)).status, 200);
    });

    test('sessions are listed, the current one marked, and ended one by one or everywhere else', async () => {
      const sam = await join('sam@acme.test');
      const laptop = await sessionOf('sam@acme.test');
      const phone = await sessionOf('sam@acme.test');
      const tablet = await sessionOf('sam@acme.test');
      const mine = await laptop.client.get<{ sessions: SessionInfo[] }>('/v1/me/sessions');
      assert.equal(mine.body.sessions.length, 3);
      assert.equal(mine.body.sessions.filter((s) => s.current).length, 1);
      assert.ok(mine.body.sessions.every((s) => s.id.startsWith('ses_') && !laptop.cookie.includes(s.id.slice(4))));

      const byAdmin = await admin.client.get<{ sessions: SessionInfo[] }>(`/v1/users/${sam.id}/sessions`);
      const phoneId = (await phone.client.get<{ sessions: SessionInfo[] }>('/v1/me/sessions')).body.sessions.find(
        (s) => s.current,
      )?.id;
      assert.ok(byAdmin.body.sessions.some((s) => s.id === phoneId));
      assert.equal((await admin.client.delete(`/v1/users/${sam.id}/sessions/${phoneId ?? ''}`, write)).status, 204);
      expectProblem(await phone.client.get('/v1/me'), 401, 'invalid_credentials');

      const ended = await laptop.client.delete<{ ended: number }>('/v1/me/sessions', {
        'x-csrf-token': laptop.csrf,
      });
      assert.equal(ended.body.ended, 1);
      expectProblem(await tablet.client.get('/v1/me'), 401, 'invalid_credentials');
      assert.equal((await laptop.client.get('/v1/me')).status, 200, 'the current session stays');
      expectProblem(
        await apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['cases:read'])).value)).get(
          '/v1/me/sessions',
        ),
        403,
        'permission_denied',
      );
    });

    test('analysts manage nobody; other tenants see nobody', async () => {
      const target = await join('tia@acme.test');
      const analyst = await sessionOf('tia@acme.test');
      const analystWrite = { 'x-csrf-token': analyst.csrf };
      expectProblem(
        await analyst.client.post('/v1/users', { email: 'x@acme.test', role: 'admin' }, analystWrite),
        403,
        'permission_denied',
      );
      expectProblem(await analyst.client.get('/v1/users?status=any'), 403, 'permission_denied');
      expectProblem(await analyst.client.get(`/v1/users/${target.id}`), 403, 'permission_denied');

      const outsider: ApiClient = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.globex, ['users:read', 'users:write', 'cases:read'])).value),
      );
      for (const [method, path, body] of [
        ['GET', `/v1/users/${target.id}`],
        ['PATCH', `/v1/users/${target.id}`, { role: 'viewer' }],
        ['DELETE', `/v1/users/${target.id}`],
        ['POST', `/v1/users/${target.id}/password-reset`, {}],
        ['GET', `/v1/users/${target.id}/sessions`],
        ['DELETE', `/v1/users/${target.id}/sessions`],
      ] as const) {
        const response = await outsider.request(method, path, body === undefined ? {} : { body });
        expectProblem(response, 404, 'not_found');
      }
      const listed = await outsider.get<Page<'users', ManagedUser>>('/v1/users?status=any');
      assert.ok(!listed.body.users.some((user) => user.email.endsWith('@acme.test')));
      assert.equal((await analyst.client.get('/v1/me')).status, 200, 'nothing the outsider tried changed tia');
    });
  });
}
