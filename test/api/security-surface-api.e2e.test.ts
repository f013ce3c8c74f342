// The review's smaller findings, through real HTTP on SQLite and PostgreSQL: nosniff on every
// answer; /metrics only with the scraper token (or on --metrics-listen's own address); the API
// reference's assets behind its Basic auth like its page; summaries (which quote command lines)
// need cases:read as well. Cursors: cursors-api.e2e.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, basic, bearer, expectProblem, issueToken, type ApiClient } from '../helpers/api.js';
import { freePort } from '../helpers/processes.js';
import { startServer, TEST_METRICS_TOKEN } from '../helpers/server.js';

for (const target of databaseTargets) {
  describe(`security surface on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let admin: ApiClient;
    let adminValue: string;
    before(async () => {
      adminValue = (await issueToken(suite.server, suite.acme)).value;
      admin = apiClient(suite.server, bearer(adminValue));
    });

    test('every answer says nosniff: the API, errors, the collector, health, the UI', async () => {
      const answers = [
        await fetch(`${suite.server.baseUrl}/v1/cases/counts`, { headers: bearer(adminValue) }),
        await fetch(`${suite.server.baseUrl}/v1/cases/counts`),
        await fetch(`${suite.server.baseUrl}/healthz`),
        await suite.server.post('{"message":"nosniff"}', {
          'content-type': 'application/json',
          host: 'acme-collector.localhost',
        }),
        await fetch(`${suite.server.baseUrl}/`),
      ];
      assert.deepEqual(
        answers.map((answer) => answer.headers.get('x-content-type-options')),
        answers.map(() => 'nosniff'),
      );
      // Plain HTTP (loopback): no HSTS, which only an HTTPS answer may carry.
      assert.equal(answers[0]?.headers.get('strict-transport-security'), null);
    });

    test('/metrics needs the scraper token on the main port', async () => {
      const none = await fetch(`${suite.server.baseUrl}/metrics`);
      assert.equal(none.status, 401);
      assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer realm="metrics"/);
      const apiToken = await fetch(`${suite.server.baseUrl}/metrics`, { headers: bearer(adminValue) });
      assert.equal(apiToken.status, 401, 'an API token is not the metrics token');
      const wrong = await fetch(`${suite.server.baseUrl}/metrics`, { headers: bearer(`${TEST_METRICS_TOKEN}x`) });
      assert.equal(wrong.status, 401);
      assert.match(await suite.server.metrics(), /^sightline_http_requests_total/m);
    });

    test('the API reference and its assets need Basic credentials with an API token', async () => {
      const page = await fetch(`${suite.server.baseUrl}/docs/`, { headers: basic(adminValue) });
      assert.equal(page.status, 200);
      const assets = [...(await page.text()).matchAll(/(?:src|href)="\.?\/?([^"]+\.(?:js|css))"/g)].map(
        (match) => match[1] ?? '',
      );
      assert.ok(assets.length > 0, 'the page loads scripts and styles');
      for (const asset of assets) {
        const url = `${suite.server.baseUrl}/docs/${asset.replace(/^docs\//, '')}`;
        assert.equal((await fetch(url)).status, 401, `${asset} without credentials`);
        assert.equal((await fetch(url, { headers: basic(adminValue) })).status, 200, `${asset} with credentials`);
      }
      assert.equal((await fetch(`${suite.server.baseUrl}/docs/json`)).status, 401);
    });

    test('no other site may frame the API reference, as none may frame the web UI', async () => {
      for (const answer of [
        await fetch(`${suite.server.baseUrl}/docs/`, { headers: basic(adminValue) }),
        await fetch(`${suite.server.baseUrl}/docs/`),
        await fetch(`${suite.server.baseUrl}/`),
      ]) {
        assert.equal(answer.headers.get('x-frame-options'), 'DENY', answer.url);
      }
      const page = await fetch(`${suite.server.baseUrl}/docs/`, { headers: basic(adminValue) });
      const policy = page.headers.get('content-security-policy') ?? '';
      assert.match(policy, /frame-ancestors 'none'/);
      assert.doesNotMatch(policy, /frame-ancestors 'self'/);
    });

    test("record ids say nothing of other tenants' volume", async () => {
      const post = (host: string, lines: string[]) =>
        suite.server.post(lines.join('\n'), { 'content-type': 'application/x-ndjson', host });
      assert.equal((await post('acme-collector.localhost', ['{"message":"acme first"}'])).status, 201);
      const globex = Array.from({ length: 50 }, (_, i) => `{"message":"globex ${i}"}`);
      assert.equal((await post('globex-collector.localhost', globex)).status, 201);
      assert.equal((await post('acme-collector.localhost', ['{"message":"acme second"}'])).status, 201);
      const found = await admin.post<{ records: { id: string; record: { message: string } }[] }>(
        '/v1/telemetry/search',
        { query: 'acme' },
      );
      const ids = found.body.records.map((record) => record.id);
      assert.equal(ids.length, 2);
      for (const id of ids) assert.match(id, /^rec_[A-Za-z0-9_-]{22}$/, 'opaque, not a sequence number');
      // The record log numbers the two 51 apart (globex's 50 in between); the ids do not carry it.
      const seqs = await suite.server.sightline.database.db
        .selectFrom('telemetry_records')
        .select('seq')
        .where('tenant_id', '=', suite.acme.id)
        .where('record', 'like', '%acme %')
        .orderBy('seq')
        .execute();
      assert.equal(Number(seqs[1]?.seq) - Number(seqs[0]?.seq), 51);
      for (const { seq } of seqs) assert.ok(!ids.includes(String(seq)), `seq ${seq} is an id`);
    });

    test('summaries quote command lines: reading one needs cases:read as well as summaries:read', async () => {
      const summariesOnly = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['summaries:read'])).value),
      );
      const problem = expectProblem(await summariesOnly.get('/v1/cases/case_none/summary'), 403, 'permission_denied');
      assert.equal(problem.required_permission, 'cases:read');
      const both = apiClient(
        suite.server,
        bearer((await issueToken(suite.server, suite.acme, ['summaries:read', 'cases:read'])).value),
      );
      assert.equal((await both.get('/v1/cases/case_none/summary')).status, 404);
    });
  });
}

test('--metrics-listen serves /metrics on its own address without credentials', async () => {
  const target = databaseTargets[0];
  assert.ok(target);
  const port = await freePort();
  const database = await target.create();
  const server = await startServer(database, { metricsListen: `127.0.0.1:${port}` });
  try {
    const scraped = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(scraped.status, 200);
    assert.match(await scraped.text(), /^sightline_detection_lag_records \d+$/m);
    assert.equal((await fetch(`http://127.0.0.1:${port}/v1/me`)).status, 404, 'nothing but /metrics there');
    assert.equal((await fetch(`${server.baseUrl}/metrics`)).status, 401, 'the main port still wants the token');
  } finally {
    await server.close();
    await database.cleanup();
  }
  // Closed with the server: the address is free again.
  await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`));
});
