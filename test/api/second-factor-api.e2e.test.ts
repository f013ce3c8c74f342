// The optional second factor through HTTP on SQLite and PostgreSQL: setting it up (turned on with
// the password), signing in with a code (once per code), recovery codes (once each), turning it
// off (with the password),
// and what is never shown or stored in clear. Codes come from the tests' own RFC 6238
// implementation (test/helpers/totp.ts), not from the library the server uses.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, signIn, type Session } from '../helpers/api.js';
import type { Me, Page, SessionAnswer } from '../helpers/responses.js';
import { Authenticator, base32Decode } from '../helpers/totp.js';
import type { AuditEvent } from '../../src/identity/audit/audit-service.js';

const password = 'a long enough test password';
let addressCount = 0;
/** A client address of its own per test (the server trusts X-Forwarded-For from loopback), so limits don't mix. */
const freshAddress = () => `198.51.100.${++addressCount}`;

interface Enrolment {
  secret: string;
  otpauth_uri: string;
}

for (const target of databaseTargets) {
  describe(`second factor on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, { trustProxy: '127.0.0.1', authMaxFailures: 1000 });
    let admin: Session;

    before(async () => {
      admin = await signIn(suite.server, { tenant: suite.acme, role: 'admin', email: 'admin@acme.test' });
    });

    const write = (session: Session) => ({ 'x-csrf-token': session.csrf });
    const login = (body: Record<string, unknown>, address = freshAddress()) =>
      apiClient(suite.server, { 'x-forwarded-for': address }).post<SessionAnswer>('/v1/auth/login', body);

    /** A new analyst who turns the second factor on; returns their phone and recovery codes. */
    async function enrolled(email: string): Promise<{ session: Session; phone: Authenticator; codes: string[] }> {
      const session = await signIn(suite.server, { tenant: suite.acme, role: 'analyst', email, password });
      const start = await session.client.post<Enrolment>('/v1/me/second-factor', undefined, write(session));
      assert.equal(start.status, 200, JSON.stringify(start.body));
      const phone = new Authenticator(start.body.secret);
      const confirm = await session.client.post<{ recovery_codes: string[] }>(
        '/v1/me/second-factor/confirm',
        { code: await phone.freshCode(), password },
        write(session),
      );
      assert.equal(confirm.status, 200, JSON.stringify(confirm.body));
      return { session, phone, codes: confirm.body.recovery_codes };
    }

    async function auditOf(action: string, userId: string): Promise<AuditEvent[]> {
      const page = await admin.client.get<Page<'events', AuditEvent>>(`/v1/audit-events?action=${action}&limit=500`);
      assert.equal(page.status, 200);
      return page.body.events.filter((event) => event.actor.id === userId || event.target?.id === userId);
    }

    test('set-up gives a secret and its otpauth URI; a wrong code does not turn it on; the right one does, once, with ten recovery codes', async () => {
      const session = await signIn(suite.server, { tenant: suite.acme, role: 'viewer', email: 'enrol@acme.test' });
      const start = await session.client.post<Enrolment>('/v1/me/second-factor', undefined, write(session));
      assert.equal(start.status, 200);
      assert.match(start.body.secret, /^[A-Z2-7]{32}$/, '160 bits in base32');
      assert.equal(base32Decode(start.body.secret).length, 20);
      const uri = new URL(start.body.otpauth_uri);
      assert.equal(uri.protocol, 'otpauth:');
      assert.equal(uri.host, 'totp');
      assert.equal(uri.searchParams.get('secret'), start.body.secret);
      assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
      assert.equal(uri.searchParams.get('digits'), '6');
      assert.equal(uri.searchParams.get('period'), '30');
      assert.match(decodeURIComponent(uri.pathname), /enrol@acme\.test/);

      const phone = new Authenticator(start.body.secret);
      const wrong = await session.client.post(
        '/v1/me/second-factor/confirm',
        { code: phone.wrongCode(), password },
        write(session),
      );
      assert.equal(expectProblem(wrong, 400, 'invalid_request').reason, 'wrong_code');
      const me = await session.client.get<Me>('/v1/me');
      assert.equal(me.body.second_factor, false, 'pending until confirmed');
      assert.equal(
        (await login({ email: 'enrol@acme.test', password })).status,
        200,
        'sign-in unchanged while pending',
      );

      const confirm = await session.client.post<{ recovery_codes: string[] }>(
        '/v1/me/second-factor/confirm',
        { code: await phone.freshCode(), password },
        write(session),
      );
      assert.equal(confirm.status, 200);
      assert.equal(confirm.body.recovery_codes.length, 10);
      assert.equal(new Set(confirm.body.recovery_codes).size, 10);
      assert.equal((await session.client.get<Me>('/v1/me')).body.second_factor, true);

      const again = await session.client.post(
        '/v1/me/second-factor/confirm',
        { code: await phone.freshCode(), password },
        write(session),
      );
      expectProblem(again, 409, 'second_factor_already_enabled');
      const restart = await session.client.post('/v1/me/second-factor', undefined, write(session));
      expectProblem(restart, 409, 'second_factor_already_enabled');
    });

    test('turning it on needs the password as well as a right code', async () => {
      const session = await signIn(suite.server, { tenant: suite.acme, role: 'viewer', email: 'owner@acme.test' });
      const start = await session.client.post<Enrolment>('/v1/me/second-factor', undefined, write(session));
      assert.equal(start.status, 200);
      // One right code throughout: a refused attempt does not spend it.
      const code = await new Authenticator(start.body.secret).freshCode();
      const confirm = (body: Record<string, unknown>) =>
        session.client.post('/v1/me/second-factor/confirm', body, write(session));
      expectProblem(await confirm({ code }), 400, 'invalid_request');
      expectProblem(await confirm({ code, password: 'not the password at all' }), 403, 'password_incorrect');
      assert.equal((await session.client.get<Me>('/v1/me')).body.second_factor, false, 'still off');
      assert.equal((await login({ email: 'owner@acme.test', password })).status, 200, 'sign-in unchanged');

      const right = await confirm({ code, password });
      assert.equal(right.status, 200, JSON.stringify(right.body));
      const me = await session.client.get<Me>('/v1/me');
      assert.equal(me.body.second_factor, true);
      assert.equal((await auditOf('second_factor.enabled', me.body.id)).length, 1);
    });

    test('after set-up the secret is in no API answer, and the database holds it and the recovery codes only encrypted or hashed', async () => {
      const { session, phone, codes } = await enrolled('stored@acme.test');
      const secretHex = phone.key.toString('hex');
      const answers = [
        await session.client.get('/v1/me'),
        await admin.client.get('/v1/audit-events?limit=500'),
        await login({ email: 'stored@acme.test', password }),
      ];
      for (const answer of answers) {
        const text = JSON.stringify(answer.body);
        assert.ok(!text.includes(phone.base32Secret), 'no answer carries the base32 secret');
        assert.ok(!text.includes(secretHex));
        for (const code of codes) assert.ok(!text.includes(code), 'no answer carries a recovery code');
      }
      const db = suite.server.sightline.database.db;
      const rows = await db.selectFrom('second_factors').selectAll().execute();
      const stored = JSON.stringify(rows);
      assert.ok(rows.length >= 1);
      for (const form of [phone.base32Secret, secretHex, phone.key.toString('base64'), phone.key.toString('base64url')])
        assert.ok(!stored.includes(form), 'the secret is not stored in clear');
      const recovery = JSON.stringify(await db.selectFrom('recovery_codes').selectAll().execute());
      for (const code of codes) {
        assert.ok(!recovery.includes(code));
        assert.ok(!recovery.includes(code.replace('-', '')));
      }
    });

    test('sign-in: the right password alone answers 401 second_factor_required without a session; with the code it signs in; the same code again is refused', async () => {
      const { phone } = await enrolled('login@acme.test');
      const address = freshAddress();
      const withoutCode = await login({ email: 'login@acme.test', password }, address);
      expectProblem(withoutCode, 401, 'second_factor_required');
      assert.equal(withoutCode.headers.get('set-cookie'), null, 'no session cookie');

      const wrongPassword = await login({
        email: 'login@acme.test',
        password: 'not the password at all',
        code: '123456',
      });
      expectProblem(wrongPassword, 401, 'invalid_credentials');

      const code = await phone.freshCode();
      const signedIn = await login({ email: 'login@acme.test', password, code }, address);
      assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
      const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
      assert.match(cookie, /^sightline_session=/);
      const me = await apiClient(suite.server, { cookie }).get<Me>('/v1/me');
      assert.equal(me.body.label, 'login@acme.test');
      assert.equal(me.body.second_factor, true);

      const replay = await login({ email: 'login@acme.test', password, code });
      expectProblem(replay, 401, 'invalid_second_factor_code');
      assert.equal(replay.headers.get('set-cookie'), null);

      const failures = await auditOf('auth.login_failed', signedIn.body.user.id);
      const reasons = failures.map((event) => event.details.reason);
      for (const reason of ['second_factor_required', 'second_factor_code_reused'])
        assert.ok(reasons.includes(reason), `audited ${reason}: ${reasons.join(', ')}`);
    });

    test('a recovery code signs in once and only once, in any case and spacing, and is audited', async () => {
      const { codes, session } = await enrolled('recovery@acme.test');
      const [first, second] = codes as [string, string];
      const used = await login({ email: 'recovery@acme.test', password, recovery_code: first });
      assert.equal(used.status, 200, JSON.stringify(used.body));
      const reused = await login({ email: 'recovery@acme.test', password, recovery_code: first });
      expectProblem(reused, 401, 'invalid_second_factor_code');
      const typed = ` ${second.toUpperCase().replace('-', ' ')} `;
      assert.equal((await login({ email: 'recovery@acme.test', password, recovery_code: typed })).status, 200);
      const made = await login({ email: 'recovery@acme.test', password, recovery_code: 'zzzzz-zzzzz' });
      expectProblem(made, 401, 'invalid_second_factor_code');

      const me = await session.client.get<Me>('/v1/me');
      assert.equal((await auditOf('second_factor.recovery_code_used', me.body.id)).length, 2);
      const reasons = (await auditOf('auth.login_failed', me.body.id)).map((event) => event.details.reason);
      assert.equal(reasons.filter((reason) => reason === 'wrong_recovery_code').length, 2);
    });

    test('regenerating recovery codes needs the password and retires the old ones', async () => {
      const { codes, session } = await enrolled('regen@acme.test');
      const refused = await session.client.post(
        '/v1/me/second-factor/recovery-codes',
        { password: 'not the password at all' },
        write(session),
      );
      expectProblem(refused, 403, 'password_incorrect');
      const fresh = await session.client.post<{ recovery_codes: string[] }>(
        '/v1/me/second-factor/recovery-codes',
        { password },
        write(session),
      );
      assert.equal(fresh.status, 200);
      assert.equal(fresh.body.recovery_codes.length, 10);
      const old = await login({ email: 'regen@acme.test', password, recovery_code: codes[0] });
      expectProblem(old, 401, 'invalid_second_factor_code');
      const renewed = await login({ email: 'regen@acme.test', password, recovery_code: fresh.body.recovery_codes[0] });
      assert.equal(renewed.status, 200);
      const me = await session.client.get<Me>('/v1/me');
      assert.equal((await auditOf('second_factor.recovery_codes_regenerated', me.body.id)).length, 1);
    });

    test('turning it off needs the password; then the password alone signs in again', async () => {
      const { session } = await enrolled('off@acme.test');
      const wrong = await session.client.request('DELETE', '/v1/me/second-factor', {
        body: { password: 'not the password at all' },
        headers: write(session),
      });
      expectProblem(wrong, 403, 'password_incorrect');
      expectProblem(await login({ email: 'off@acme.test', password }), 401, 'second_factor_required');

      const off = await session.client.request('DELETE', '/v1/me/second-factor', {
        body: { password },
        headers: write(session),
      });
      assert.equal(off.status, 204);
      assert.equal((await session.client.get<Me>('/v1/me')).body.second_factor, false);
      assert.equal((await login({ email: 'off@acme.test', password })).status, 200);
      const me = await session.client.get<Me>('/v1/me');
      assert.equal((await auditOf('second_factor.enabled', me.body.id)).length, 1);
      assert.equal((await auditOf('second_factor.disabled', me.body.id)).length, 1);
      const again = await session.client.request('DELETE', '/v1/me/second-factor', {
        body: { password },
        headers: write(session),
      });
      expectProblem(again, 409, 'second_factor_not_enabled');
    });

    test("an API token cannot manage a person's second factor", async () => {
      const token = await issueToken(suite.server, suite.acme);
      const client = apiClient(suite.server, bearer(token.value));
      expectProblem(await client.post('/v1/me/second-factor'), 403, 'session_required');
      const confirm = await client.post('/v1/me/second-factor/confirm', { code: '123456', password });
      expectProblem(confirm, 403, 'session_required');
      expectProblem(await client.post('/v1/me/second-factor/recovery-codes', { password }), 403, 'session_required');
      const off = await client.request('DELETE', '/v1/me/second-factor', { body: { password } });
      expectProblem(off, 403, 'session_required');
      assert.equal((await client.get<Me>('/v1/me')).body.second_factor, false);
    });
  });
}
