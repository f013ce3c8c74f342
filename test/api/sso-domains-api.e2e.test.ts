// The email domains single sign-on accepts, through HTTP on SQLite and PostgreSQL, against a
// real provider: a domain counts once the tenant proved it holds it, by a DNS TXT record (looked
// up in a DNS server the test runs) or by a platform operator's approval; until then its people
// are refused. Emails are taken as invitations take them: two `@` or look-alike letters are
// refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dns from 'node:dns';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, signIn, type ApiClient } from '../helpers/api.js';
import type { Me } from '../helpers/responses.js';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { signInWithSso } from '../helpers/sso.js';
import { allPermissions } from '../../src/identity/permissions.js';

interface EmailDomain {
  domain: string;
  verified: boolean;
  verified_by: string | null;
  dns_record: { type: string; name: string; value: string };
}
interface AuditPage {
  events: { action: string; actor: { label: string }; details: Record<string, unknown> }[];
}

let unique = 0;

for (const target of databaseTargets) {
  describe(`single sign-on email domains on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, { authMaxFailures: '1000', webhookAllowLoopback: true });
    let provider: TestProvider;
    let nameServer: TestDnsServer;
    let admin: ApiClient;
    let publicUrl: string;
    const sso = (email: string) => {
      const id = `acct-${++unique}`;
      provider.accounts.set(id, { email, email_verified: true, groups: [] });
      return signInWithSso(publicUrl, '/v1/auth/sso/acme/start', id, provider.issuer);
    };
    const me = async (session: string | undefined) =>
      (await apiClient(suite.server, { cookie: `sightline_session=${session ?? ''}` }).get<Me>('/v1/me')).body;
    const domains = async () => (await admin.get<{ email_domains: EmailDomain[] }>('/v1/sso')).body.email_domains;
    const audit = async (action: string) =>
      (await admin.get<AuditPage>(`/v1/audit-events?action=${action}&limit=100`)).body.events;

    before(async () => {
      publicUrl = suite.server.sightline.collectorAddress.publicUrl;
      provider = await startTestProvider(`${publicUrl}/v1/auth/sso/callback`);
      nameServer = await startDnsServer();
      admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
      const saved = await admin.request('PUT', '/v1/sso', {
        body: {
          issuer: provider.issuer,
          client_id: provider.clientId,
          client_secret: provider.clientSecret,
          allowed_email_domains: ['acme.example', 'acme-labs.example'],
          role_claim: 'groups',
          role_mapping: {},
          default_role: 'viewer',
          enabled: true,
        },
      });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    });
    after(async () => {
      await provider.close();
      await nameServer.close();
    });

    test("an unverified domain's people are refused until its TXT record is found", async () => {
      const [acme, labs] = await domains();
      assert.deepEqual(
        [acme?.domain, acme?.verified, acme?.dns_record.type, acme?.dns_record.name, labs?.verified],
        ['acme.example', false, 'TXT', 'acme.example', false],
      );
      assert.match(acme!.dns_record.value, /^sightline-verification=[A-Za-z0-9_-]{32}$/);
      assert.notEqual(acme!.dns_record.value, labs!.dns_record.value);

      const refused = await sso('ana@acme.example');
      assert.equal(refused.location, '/login?sso_error=domain_not_verified&tenant=acme');
      assert.equal(refused.session, undefined);
      const reasons = (await audit('auth.login_failed')).map((event) => event.details.reason);
      assert.ok(reasons.includes('domain_not_verified'), String(reasons));

      const servers = dns.getServers();
      dns.setServers([nameServer.address]);
      try {
        const verify = () => admin.post<EmailDomain>('/v1/sso/domains/acme.example/verify');
        const absent = expectProblem(await verify(), 422, 'sso_domain_not_verified');
        assert.deepEqual(absent.dns_record, acme!.dns_record);
        // Another tenant's record, or another domain's, does not verify this one.
        nameServer.txt.set('acme.example', [labs!.dns_record.value, 'v=spf1 -all']);
        expectProblem(await verify(), 422, 'sso_domain_not_verified');
        nameServer.txt.set('acme.example', ['v=spf1 -all', acme!.dns_record.value]);
        const verified = await verify();
        assert.equal(verified.status, 200, JSON.stringify(verified.body));
        assert.deepEqual([verified.body.verified, verified.body.verified_by], [true, 'dns']);
      } finally {
        dns.setServers(servers);
      }
      const event = (await audit('sso.domain_verified')).find((e) => e.details.domain === 'acme.example');
      assert.deepEqual(event?.details, { domain: 'acme.example', verified_by: 'dns' });
      assert.equal((await domains())[0]?.verified, true);
      assert.equal((await me((await sso('ana@acme.example')).session)).label, 'ana@acme.example');
    });

    test('a platform operator approves a domain or withdraws it; a tenant admin cannot', async () => {
      const path = '/v1/tenants/acme/sso-domains/acme-labs.example';
      expectProblem(await admin.request('PUT', path), 403, 'operator_required');
      const operator = await signIn(suite.server, { tenant: null, role: 'operator', email: 'op@platform.example' });
      const headers = { 'x-csrf-token': operator.csrf };
      const approved = await operator.client.request<EmailDomain>('PUT', path, { headers });
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      assert.deepEqual([approved.body.verified, approved.body.verified_by], [true, 'operator']);
      const event = (await audit('sso.domain_verified')).find((e) => e.details.domain === 'acme-labs.example');
      assert.deepEqual([event?.actor.label, event?.details.verified_by], ['op@platform.example', 'operator']);
      assert.equal((await me((await sso('bo@acme-labs.example')).session)).label, 'bo@acme-labs.example');

      assert.equal((await operator.client.delete(path, headers)).status, 204);
      assert.equal((await sso('cy@acme-labs.example')).location, '/login?sso_error=domain_not_verified&tenant=acme');
      expectProblem(await operator.client.delete(path, headers), 404, 'not_found');
      expectProblem(
        await operator.client.request('PUT', '/v1/tenants/nosuch/sso-domains/x.example', { headers }),
        404,
        'tenant_not_found',
      );
    });

    test('emails are taken as invitations take them: two @, look-alike and invisible letters are refused', async () => {
      for (const email of ['eve@evil.example@acme.example', '\u0430dmin@acme.example', 'ad\u200bmin@acme.example']) {
        const refused = await sso(email);
        assert.equal(refused.location, '/login?sso_error=invalid_email&tenant=acme', JSON.stringify(email));
        assert.equal(refused.session, undefined);
      }
      const users = await suite.server.sightline.database.db
        .selectFrom('users')
        .select('email')
        .where('tenant_id', '=', suite.acme.id)
        .execute();
      assert.deepEqual(users.map((user) => user.email).sort(), ['ana@acme.example', 'bo@acme-labs.example']);
    });
  });
}
