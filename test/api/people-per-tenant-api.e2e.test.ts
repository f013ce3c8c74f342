// A person's account belongs to their tenant, through HTTP on SQLite and PostgreSQL: the same
// email is invited in two tenants (and an operator's email in a tenant) without either learning
// of the other; each account keeps its own password; sign-in asks which tenant only someone
// who proved the password for several, and a wrong password reveals nothing.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, type Problem } from '../helpers/api.js';
import type { Me, SessionAnswer } from '../helpers/responses.js';
import { createUser } from '../../src/identity/users/user-service.js';
import { cliActor } from '../../src/identity/principal.js';

const SHARED = 'shared-orchid-lantern-quay';

for (const target of databaseTargets) {
  describe(`a person's account belongs to their tenant, on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let acmeAdmin: Record<string, string>;
    let globexAdmin: Record<string, string>;
    before(async () => {
      acmeAdmin = bearer((await issueToken(suite.server, suite.acme)).value);
      globexAdmin = bearer((await issueToken(suite.server, suite.globex)).value);
    });
    const anonymous = () => apiClient(suite.server);
    const login = (body: Record<string, unknown>) => anonymous().post<SessionAnswer | Problem>('/v1/auth/login', body);
    const member = (tenantId: number | null, email: string, password: string, role = 'analyst' as const) =>
      createUser(suite.server.sightline.database.db, {
        tenantId,
        email,
        role: tenantId === null ? 'operator' : role,
        password,
        actor: cliActor,
      });
    const tenantOf = async (answer: { headers: Headers }) => {
      const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0]!;
      const me = await apiClient(suite.server, { cookie }).get<Me>('/v1/me');
      return me.body.tenant?.code_name ?? null;
    };

    test('the same email is invited in two tenants, and an operator’s email in a tenant, each a 201', async () => {
      const email = 'consultant@advisers.example';
      const first = await anonymous().post('/v1/users', { email, role: 'viewer' }, acmeAdmin);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const second = await anonymous().post(
        '/v1/users',
        { email: 'Consultant@Advisers.example', role: 'admin' },
        globexAdmin,
      );
      assert.equal(second.status, 201, JSON.stringify(second.body));

      await member(null, 'root@platform.example', 'operator-harbour-violet-9');
      const operatorsEmail = await anonymous().post(
        '/v1/users',
        { email: 'root@platform.example', role: 'viewer' },
        acmeAdmin,
      );
      assert.equal(operatorsEmail.status, 201, 'inviting says nothing of an operator with that email');

      // Within a tenant an email is still one person.
      const again = await anonymous().post<Problem>('/v1/users', { email, role: 'viewer' }, acmeAdmin);
      expectProblem(again, 409, 'user_exists');
      assert.doesNotMatch(again.body.detail, /globex/);
    });

    test('each account keeps its own password: each signs in to its own tenant', async () => {
      const email = 'dual@people.example';
      await member(suite.acme.id, email, 'acme-password-river-stone');
      await member(suite.globex.id, email, 'globex-password-cloud-fern');
      const atAcme = await login({ email, password: 'acme-password-river-stone' });
      assert.equal(atAcme.status, 200, JSON.stringify(atAcme.body));
      assert.equal(await tenantOf(atAcme), 'acme');
      const atGlobex = await login({ email, password: 'globex-password-cloud-fern' });
      assert.equal(atGlobex.status, 200);
      assert.equal(await tenantOf(atGlobex), 'globex');
      // Naming the other tenant with a password that is not that account's opens nothing.
      expectProblem(
        await login({ email, password: 'acme-password-river-stone', tenant: 'globex' }),
        401,
        'invalid_credentials',
      );
    });

    test('one password opening several accounts: sign-in asks which tenant, and the named one opens', async () => {
      const email = 'analyst@msp.example';
      await member(suite.acme.id, email, SHARED);
      await member(suite.globex.id, email, SHARED);
      await member(null, email, SHARED);

      const ask = await login({ email, password: SHARED });
      const problem = expectProblem(ask, 401, 'tenant_choice_required');
      assert.equal(ask.headers.get('set-cookie'), null, 'no session before the choice');
      assert.deepEqual(problem.tenants, [
        { code_name: null, name: 'Platform operator' },
        { code_name: 'acme', name: 'acme display name' },
        { code_name: 'globex', name: 'globex display name' },
      ]);

      const chosen = await login({ email, password: SHARED, tenant: 'globex' });
      assert.equal(chosen.status, 200, JSON.stringify(chosen.body));
      assert.equal(await tenantOf(chosen), 'globex');
      const operator = await login({ email, password: SHARED, tenant: null });
      assert.equal(operator.status, 200);
      assert.equal(await tenantOf(operator), null);

      // Without the password nothing says which tenants the email belongs to.
      const wrong = await login({ email, password: 'not the shared password' });
      const refused = expectProblem(wrong, 401, 'invalid_credentials');
      assert.equal(refused.tenants, undefined);
      expectProblem(await login({ email, password: SHARED, tenant: 'no-such-tenant' }), 401, 'invalid_credentials');
    });

    test('a disabled account in one tenant leaves the other one signing in alone', async () => {
      const email = 'half@people.example';
      await member(suite.acme.id, email, SHARED);
      const globex = await member(suite.globex.id, email, SHARED);
      const disabled = await anonymous().request('PATCH', `/v1/users/${globex.user.id}`, {
        body: { disabled: true },
        headers: globexAdmin,
      });
      assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
      const answer = await login({ email, password: SHARED });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(await tenantOf(answer), 'acme');
    });
  });
}
