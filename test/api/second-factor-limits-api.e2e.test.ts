// The second factor's limits and its admin reset through HTTP on SQLite and PostgreSQL: wrong
// codes are failed sign-ins (the account waits, the address is limited), and a tenant admin
// removes a user's second factor, never one in another tenant, and only with users:write.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, expectProblem, issueToken, signIn, type Session } from '../helpers/api.js';
import type { Me, Page } from '../helpers/responses.js';
import { Authenticator } from '../helpers/totp.js';
import type { AuditEvent } from '../../src/identity/audit/audit-service.js';

const password = 'a long enough test password';
/** The per-address limit of this suite's server; the account's own allows 5 failures. */
const addressLimit = 3;
let addressCount = 0;
const freshAddress = () => `203.0.113.${++addressCount}`;

for (const target of databaseTargets) {
  describe(`second factor limits and admin reset on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, { trustProxy: '127.0.0.1', authMaxFailures: addressLimit });
    let admin: Session;

    before(async () => {
      admin = await signIn(suite.server, { tenant: suite.acme, role: 'admin', email: 'admin@acme.test' });
    });

    const write = (session: Session) => ({ 'x-csrf-token': session.csrf });
    const login = (body: Record<string, unknown>, address = freshAddress()) =>
      apiClient(suite.server, { 'x-forwarded-for': address }).post('/v1/auth/login', body);

    async function enrolled(email: string, tenant = suite.acme): Promise<{ phone: Authenticator; id: string }> {
      const session = await signIn(suite.server, { tenant, role: 'analyst', email, password });
      const start = await session.client.post<{ secret: string }>('/v1/me/second-factor', undefined, write(session));
      const phone = new Authenticator(start.body.secret);
      const confirm = await session.client.post(
        '/v1/me/second-factor/confirm',
        { code: await phone.freshCode(), password },
        write(session),
      );
      assert.equal(confirm.status, 200, JSON.stringify(confirm.body));
      const me = await session.client.get<Me>('/v1/me');
      return { phone, id: me.body.id };
    }

    test('wrong codes from many addresses make the account wait: then even the right code answers 429', async () => {
      const { phone } = await enrolled('guessed@acme.test');
      const email = 'guessed@acme.test';
      // The right password without a code counts against the account until a right code follows.
      expectProblem(await login({ email, password }), 401, 'second_factor_required');
      // Past 5 failures the account waits 1 s, doubling per failure; waiting out each refusal
      // until 8 failures leaves a wait of 8 s, which the next attempt is sure to meet.
      let failures = 1;
      while (failures < 8) {
        const guess = await login({ email, password, code: phone.wrongCode() });
        if (guess.status === 429) {
          await sleep(Number(guess.headers.get('retry-after')) * 1000);
          continue;
        }
        expectProblem(guess, 401, 'invalid_second_factor_code');
        failures++;
      }
      const waiting = await login({ email, password, code: await phone.freshCode() });
      const problem = expectProblem(waiting, 429, 'too_many_failed_attempts');
      assert.match(problem.detail, /account/);
      assert.ok(Number(waiting.headers.get('retry-after')) >= 1);
      const reasons = (
        await admin.client.get<Page<'events', AuditEvent>>('/v1/audit-events?action=auth.login_failed&limit=500')
      ).body.events
        .filter((event) => event.actor.label === email)
        .map((event) => event.details.reason);
      assert.equal(reasons.filter((reason) => reason === 'wrong_second_factor_code').length, 7);
    });

    test('a right password without a code is no guess from the address, but wrong codes are', async () => {
      const { phone } = await enrolled('address@acme.test');
      const email = 'address@acme.test';
      const address = freshAddress();
      // More code-less sign-ins than the address limit: the address is not locked by them.
      // A right code in between clears the account's count, which code-less sign-ins raise.
      for (let i = 0; i < addressLimit; i++)
        expectProblem(await login({ email, password }, address), 401, 'second_factor_required');
      assert.equal((await login({ email, password, code: await phone.freshCode() }, address)).status, 200);
      for (let i = 0; i < addressLimit; i++)
        expectProblem(
          await login({ email, password, code: phone.wrongCode() }, address),
          401,
          'invalid_second_factor_code',
        );
      const locked = await login({ email, password, code: await phone.freshCode() }, address);
      const problem = expectProblem(locked, 429, 'too_many_failed_attempts');
      assert.match(problem.detail, new RegExp(address.replaceAll('.', '\\.')));
    });

    test("an address locked by someone else's guessing still completes a two-step sign-in at an account nobody is failing at", async () => {
      const { phone } = await enrolled('office@acme.test');
      const office = freshAddress();
      for (let i = 0; i < addressLimit; i++)
        expectProblem(
          await login({ email: 'victim@acme.test', password: 'a guess at the password' }, office),
          401,
          'invalid_credentials',
        );
      const guess = await login({ email: 'victim@acme.test', password: 'another guess at it' }, office);
      expectProblem(guess, 429, 'too_many_failed_attempts');

      const email = 'office@acme.test';
      expectProblem(await login({ email, password }, office), 401, 'second_factor_required');
      const signedIn = await login({ email, password, code: await phone.freshCode() }, office);
      assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    });

    test("a tenant admin removes a user's second factor; the user then signs in with the password alone", async () => {
      const { id } = await enrolled('lost-phone@acme.test');
      expectProblem(await login({ email: 'lost-phone@acme.test', password }), 401, 'second_factor_required');
      const reset = await admin.client.request('DELETE', `/v1/users/${id}/second-factor`, { headers: write(admin) });
      assert.equal(reset.status, 204);
      assert.equal((await login({ email: 'lost-phone@acme.test', password })).status, 200);
      const events = await admin.client.get<Page<'events', AuditEvent>>(
        '/v1/audit-events?action=second_factor.disabled',
      );
      const event = events.body.events.find((item) => item.target?.id === id);
      assert.ok(event, 'the reset is audited');
      assert.equal(event.actor.label, 'admin@acme.test');
      assert.equal(event.details.reset_by_admin, true);
      const db = suite.server.sightline.database.db;
      assert.equal(
        (await db.selectFrom('recovery_codes').select('user_id').where('user_id', '=', id).execute()).length,
        0,
      );
    });

    test("another tenant's user answers 404 and keeps their second factor; without users:write the reset is 403", async () => {
      const { id } = await enrolled('globex-user@globex.test', suite.globex);
      const across = await admin.client.request('DELETE', `/v1/users/${id}/second-factor`, { headers: write(admin) });
      expectProblem(across, 404, 'not_found');
      const unknown = await admin.client.request('DELETE', '/v1/users/usr_doesnotexist/second-factor', {
        headers: write(admin),
      });
      expectProblem(unknown, 404, 'not_found');
      expectProblem(await login({ email: 'globex-user@globex.test', password }), 401, 'second_factor_required');

      const { id: colleague } = await enrolled('colleague@acme.test');
      const analyst = await signIn(suite.server, { tenant: suite.acme, role: 'analyst', email: 'analyst@acme.test' });
      const denied = await analyst.client.request('DELETE', `/v1/users/${colleague}/second-factor`, {
        headers: write(analyst),
      });
      assert.equal(expectProblem(denied, 403, 'permission_denied').required_permission, 'users:write');
      const token = await issueToken(suite.server, suite.acme, ['cases:read']);
      const tokenDenied = await apiClient(suite.server, { authorization: `Bearer ${token.value}` }).request(
        'DELETE',
        `/v1/users/${colleague}/second-factor`,
      );
      expectProblem(tokenDenied, 403, 'permission_denied');
      expectProblem(await login({ email: 'colleague@acme.test', password }), 401, 'second_factor_required');
    });
  });
}
