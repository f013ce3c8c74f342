// `sightline partner` and `sightline token … --partner` as an operator uses them, beside a running
// server on the same data directory: a partner made for acme and globex, its token printed alone
// on the last line, then that token's case queue over HTTP holding the SQL injection cases of
// acme and globex (from nginx records each collector took) and never initech's.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cli.js';
import { lastLine, useCliDeployment } from '../helpers/cli-deployment.js';
import type { TestServer } from '../helpers/server.js';
import { apiClient, bearer, detectionCaughtUp, ingest, type Problem } from '../helpers/api.js';
import type { CaseSearch } from '../helpers/responses.js';
import type { Partner } from '../../src/identity/partners/partner-service.js';

/** A sqlmap probe as nginx logs it in JSON, from a host named for the tenant. */
const sqlInjection = (hostname: string) => ({
  source: 'nginx',
  remote_addr: '203.0.113.44',
  request: 'GET /products.php?id=1%27%20UNION%20ALL%20SELECT%20username,password%20FROM%20users--%20- HTTP/1.1',
  status: 200,
  http_user_agent: 'sqlmap/1.8',
  hostname,
});

describe('sightline partner', () => {
  let server: TestServer;
  let data: string[];
  const deployment = useCliDeployment();
  const cli = async (args: string[], code = 0) => {
    const result = await runCli([...args, ...data]);
    assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
    return result;
  };
  const hostsIn = (search: CaseSearch) =>
    search.cases.map((item) => `${item.tenant.code_name}:${item.devices[0]?.host_name ?? '?'}`).sort();

  before(async () => {
    ({ server, data } = deployment());
    for (const tenant of ['globex', 'initech']) await cli(['tenant', 'create', tenant]);
    for (const tenant of ['acme', 'globex', 'initech']) await ingest(server, [sqlInjection(`web-${tenant}`)], tenant);
    await detectionCaughtUp(server);
  });

  test('partner create serves the tenants named; token create --partner prints the token, whose queue holds only their cases', async () => {
    const created = await cli(['partner', 'create', 'mssp', '--tenants', 'acme,globex', '--name', 'Managed Security']);
    const partner = JSON.parse(created.stdout) as Partner;
    assert.deepEqual(
      [partner.code_name, partner.name, partner.created_by, partner.tenants.map((t) => t.code_name)],
      ['mssp', 'Managed Security', 'cli', ['acme', 'globex']],
    );

    const token = await cli(['token', 'create', '--partner', 'mssp', '--name', 'p', '--permissions', 'all']);
    const value = lastLine(token.stdout);
    assert.match(value, /^slt_[0-9A-Za-z]{36}$/);
    assert.equal(token.stdout, `${value}\n`);
    assert.match(token.stderr, /created token ptk_\w+ "p" for partner mssp \(tenants: acme, globex\)/);
    assert.match(token.stderr, /shown this once/);
    const stored = await server.sightline.database.db.selectFrom('partner_tokens').selectAll().execute();
    assert.equal(stored.length, 1);
    assert.doesNotMatch(JSON.stringify(stored), new RegExp(value.slice(4)));

    const queue = await apiClient(server, bearer(value)).post<CaseSearch>('/v1/cases', { limit: 200 });
    assert.equal(queue.status, 200, JSON.stringify(queue.body));
    assert.deepEqual(hostsIn(queue.body), ['acme:web-acme', 'globex:web-globex']);
  });

  test('mistakes fail with the reason and change nothing', async () => {
    assert.match((await cli(['partner', 'create', 'mssp'], 1)).stderr, /partner_exists/);
    assert.match(
      (await cli(['partner', 'create', 'other', '--tenants', 'acme,nosuch'], 1)).stderr,
      /tenant_not_found.*"nosuch"/,
    );
    assert.match((await cli(['partner', 'create', 'Bad_Name'], 1)).stderr, /invalid_code_name/);
    const args = ['token', 'create', '--name', 'x', '--permissions', 'all'];
    assert.match(
      (await cli(args, 2)).stderr,
      /give one of the options '--tenant <code_name>' and '--partner <code_name>'/,
    );
    assert.match((await cli([...args, '--tenant', 'acme', '--partner', 'mssp'], 2)).stderr, /give one of the options/);
    assert.match((await cli([...args, '--partner', 'nosuch'], 1)).stderr, /partner_not_found/);
    assert.equal((await cli(['partner', 'list'])).stdout, 'mssp\tManaged Security\tacme,globex\n');
  });

  test('add-tenant and remove-tenant change what the running server lets the token reach at its next call', async () => {
    const token = await cli(['token', 'create', '--partner', 'mssp', '--name', 'reach', '--permissions', 'cases:read']);
    const client = apiClient(server, bearer(lastLine(token.stdout)));
    const added = await cli(['partner', 'add-tenant', 'mssp', '--tenant', 'initech']);
    assert.deepEqual(
      (JSON.parse(added.stdout) as Partner).tenants.map((t) => t.code_name),
      ['acme', 'globex', 'initech'],
    );
    const all = await client.post<CaseSearch>('/v1/cases', {});
    assert.deepEqual(hostsIn(all.body), ['acme:web-acme', 'globex:web-globex', 'initech:web-initech']);
    await cli(['partner', 'remove-tenant', 'mssp', '--tenant', 'globex']);
    const fewer = await client.post<CaseSearch>('/v1/cases', {});
    assert.deepEqual(hostsIn(fewer.body), ['acme:web-acme', 'initech:web-initech']);
    const refused = await client.get<Problem>('/v1/cases/counts', { 'sightline-tenant': 'globex' });
    assert.equal(refused.body.code, 'tenant_not_found');
    assert.match((await cli(['partner', 'remove-tenant', 'mssp', '--tenant', 'globex'], 1)).stderr, /tenant_not_found/);
    const listed = (await cli(['partner', 'list', '--json'])).stdout.trim().split('\n');
    assert.deepEqual(
      listed.map((line) => (JSON.parse(line) as Partner).tenants.map((t) => t.code_name)),
      [['acme', 'initech']],
    );
  });

  test('token list --partner shows the tokens without their values; token delete --partner stops one', async () => {
    const created = await cli([
      'token',
      'create',
      '--partner',
      'mssp',
      '--name',
      'doomed',
      '--permissions',
      'cases:read',
    ]);
    const value = lastLine(created.stdout);
    const listed = await cli(['token', 'list', '--partner', 'mssp', '--json']);
    assert.doesNotMatch(listed.stdout, new RegExp(value));
    const tokens = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; name: string; status: string });
    assert.deepEqual(
      tokens.map((t) => t.name),
      ['doomed', 'reach', 'p'],
    );
    const doomed = tokens[0]!;
    const deleted = await cli(['token', 'delete', '--partner', 'mssp', doomed.id]);
    assert.match(deleted.stdout, new RegExp(`^deleted token ${doomed.id} "doomed"`));
    const rejected = await apiClient(server, bearer(value)).get<Problem>('/v1/me');
    assert.deepEqual([rejected.status, rejected.body.code], [401, 'token_revoked']);
    const text = await cli(['token', 'list', '--partner', 'mssp']);
    assert.match(text.stdout, new RegExp(`^${doomed.id}\\tdoomed\\tdeleted\\tcases:read\\tcli\\t`, 'm'));
    // A tenant's tokens are apart from the partner's.
    assert.doesNotMatch((await cli(['token', 'list', '--tenant', 'acme'])).stdout, /ptk_/);
  });
});
