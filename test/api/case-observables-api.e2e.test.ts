// Case observables, similar cases and the case report through HTTP on SQLite and PostgreSQL.
// Two nginx access records (log_format escape=json) from one attacker address, each on its own
// web server, carry a SQL injection request from sqlmap; the bundled web rules fire, and each
// server gets a case. Observables are there as soon as the cases are; the attacker address ties
// the two cases together; analysts add, tag and remove observables (removal sticks against new
// evidence); another tenant sees none of it; the report comes as Markdown and as HTML, with
// record text that holds HTML and Markdown inert in both; a merge moves observables.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeOpened } from '../helpers/suite.js';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import {
  apiClient,
  bearer,
  detectionCaughtUp,
  expectProblem,
  ingest,
  issueToken,
  seedTenant,
  signIn,
  type ApiClient,
} from '../helpers/api.js';
import type { RecordSearch } from '../helpers/responses.js';
import { approvedTenant, caseFor } from '../helpers/summaries.js';
import { parseInline } from '../../src/core/markdown-inline.js';
import type { ObservableView } from '../../src/cases/case-observables.js';
import type { similarCases } from '../../src/cases/case-similar.js';

interface ObservableList {
  case_id: string;
  observables: ObservableView[];
}
type Similar = Awaited<ReturnType<typeof similarCases>>;
interface HistoryPage {
  history: { action: string; actor: { label: string }; changes: Record<string, unknown> }[];
}

const ATTACKER = '203.0.113.44';
const SQLI = 'GET /products.php?id=1%27%20UNION%20ALL%20SELECT%20username,password%20FROM%20users--%20- HTTP/1.1';
const HOSTILE_AGENT = 'sqlmap/1.8 <script>alert(1)</script> **bold** [x](javascript:alert(2)) `tick`';
const HOSTILE_HOST = 'obs-web-<img src=x onerror=alert(3)>';

/** An nginx access record as `log_format … escape=json` writes it, with the server's host name. */
function nginx(host: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    timestamp: new Date().toISOString(),
    source: 'nginx',
    hostname: host,
    remote_addr: ATTACKER,
    remote_user: '-',
    request: SQLI,
    status: '200',
    body_bytes_sent: 5120,
    request_time: 0.042,
    http_referer: '-',
    http_user_agent: 'sqlmap/1.8',
    ...overrides,
  };
}

const pairs = (list: ObservableList) => list.observables.map((item) => `${item.type} ${item.value}`).sort();

/** Markdown text outside code spans: nothing in it may open HTML or a link. */
function assertInertMarkdown(markdown: string): void {
  for (const line of markdown.split('\n')) {
    for (const part of parseInline(line)) {
      if (part.kind !== 'text') continue;
      assert.doesNotMatch(part.text, /(?<!\\)</, `raw HTML in: ${line}`);
      assert.doesNotMatch(part.text, /(?<!\\)\]\(/, `a link in: ${line}`);
      assert.doesNotMatch(part.text, /(?<!\\)\[/, `a bracket in: ${line}`);
    }
  }
}

for (const target of databaseTargets) {
  describe(`case observables API on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let client: ApiClient;
    let reader: ApiClient;
    let globex: ApiClient;
    let web1 = { id: '', number: 0 };
    let web2 = { id: '', number: 0 };
    let hostile = { id: '', number: 0 };

    before(async () => {
      database = await target.create();
      server = await startServer(database);
      const operator = await signIn(server, {
        tenant: null,
        role: 'operator',
        email: `operator-${target.kind}@platform.example`,
      });
      const approved = await approvedTenant(server, operator, 'obsacme');
      client = approved.client;
      reader = apiClient(server, bearer((await issueToken(server, approved.tenant, ['cases:read'])).value));
      const other = await seedTenant(server, 'obsglobex');
      globex = apiClient(server, bearer((await issueToken(server, other, ['cases:read', 'cases:write'])).value));
      await ingest(
        server,
        [nginx('obs-web-1'), nginx('obs-web-2'), nginx(HOSTILE_HOST, { http_user_agent: HOSTILE_AGENT })],
        'obsacme',
      );
      await detectionCaughtUp(server);
      web1 = await caseFor(client, 'obs-web-1');
      web2 = await caseFor(client, 'obs-web-2');
      hostile = await caseFor(client, 'onerror');
    });
    after(() => closeOpened(server, database));

    const observables = async (caseRef: string, query = '') => {
      const response = await client.get<ObservableList>(`/v1/cases/${caseRef}/observables${query}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    };

    test('the attacker address and the server are observables of each case as soon as it exists', async () => {
      const list = await observables(web1.id);
      assert.deepEqual(pairs(list), ['host obs-web-1', `ip ${ATTACKER}`]);
      const ip = list.observables.find((item) => item.type === 'ip')!;
      assert.equal(ip.source, 'evidence');
      assert.deepEqual(ip.tags, []);
      assert.match(ip.observation_id ?? '', /^obs_/);
      assert.equal(ip.other_cases, 2, 'the other server and the hostile record share it');
      assert.equal(ip.devices, 3);
      assert.equal(ip.search_query, `"${ATTACKER}"`);
      // By number as well as by id, and readable with cases:read alone.
      const byNumber = await reader.get<ObservableList>(`/v1/cases/${web1.number}/observables`);
      assert.equal(byNumber.status, 200);
      assert.deepEqual(pairs(byNumber.body), pairs(list));
    });

    test("the observable's query finds the records that hold it", async () => {
      const ip = (await observables(web1.id)).observables.find((item) => item.type === 'ip')!;
      const found = await client.post<RecordSearch>('/v1/telemetry/search', { query: ip.search_query, limit: 10 });
      assert.equal(found.status, 200, JSON.stringify(found.body));
      assert.equal(found.body.records.length, 3);
      for (const record of found.body.records)
        assert.equal((record.record as { remote_addr: string }).remote_addr, ATTACKER);
    });

    test('similar cases: the other servers, through the shared address and techniques; bounded', async () => {
      const response = await client.get<Similar>(`/v1/cases/${web1.id}/similar`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const found = response.body.cases;
      assert.deepEqual(found.map((item) => item.id).sort(), [web2.id, hostile.id].sort());
      const other = found.find((item) => item.id === web2.id)!;
      assert.equal(other.number, web2.number);
      assert.equal(other.status, 'new');
      assert.deepEqual(other.shared_observables, [{ type: 'ip', value: ATTACKER }]);
      assert.ok(other.shared_techniques.includes('T1190'), JSON.stringify(other));
      assert.equal(other.similarity, other.observable_weight + other.shared_techniques.length);
      const one = await client.get<Similar>(`/v1/cases/${web1.id}/similar?limit=1`);
      assert.equal(one.body.cases.length, 1);
      expectProblem(await client.get(`/v1/cases/${web1.id}/similar?limit=51`), 400, 'invalid_request');
    });

    test('analysts add (normalised), tag and remove observables, each in the history', async () => {
      const added = await client.post<ObservableView>(`/v1/cases/${web1.id}/observables`, {
        type: 'domain',
        value: 'Evil.Example.COM.',
        tags: ['IOC'],
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      assert.equal(added.body.value, 'evil.example.com');
      assert.deepEqual(added.body.tags, ['ioc']);
      assert.equal(added.body.source, 'analyst');
      assert.match(added.body.created_by ?? '', /^token:/);

      const tagged = await client.patch<ObservableView>(`/v1/cases/${web1.id}/observables/${added.body.id}`, {
        tags: ['benign', 'ioc', 'phishing-kit'],
      });
      assert.equal(tagged.status, 200, JSON.stringify(tagged.body));
      assert.deepEqual(tagged.body.tags, ['benign', 'ioc', 'phishing-kit']);

      const removed = await client.delete(`/v1/cases/${web1.id}/observables/${added.body.id}`);
      assert.equal(removed.status, 204);
      assert.ok(!pairs(await observables(web1.id)).includes('domain evil.example.com'));
      const all = await observables(web1.id, '?include_removed=true');
      assert.ok(all.observables.find((item) => item.id === added.body.id)?.removed_at);
      expectProblem(await client.delete(`/v1/cases/${web1.id}/observables/${added.body.id}`), 404, 'not_found');

      const history = await client.get<HistoryPage>(`/v1/cases/${web1.id}/history?limit=100`);
      const actions = history.body.history.map((entry) => entry.action);
      for (const action of ['observable_added', 'observable_tagged', 'observable_removed'])
        assert.ok(actions.includes(action), action);
      const tagging = history.body.history.find((entry) => entry.action === 'observable_tagged')!;
      assert.deepEqual(tagging.changes.tags, { from: ['ioc'], to: ['benign', 'ioc', 'phishing-kit'] });

      // Adding it again brings it back.
      const back = await client.post<ObservableView>(`/v1/cases/${web1.id}/observables`, {
        type: 'domain',
        value: 'evil.example.com',
      });
      assert.equal(back.status, 201);
      assert.equal(back.body.id, added.body.id);
      assert.equal(back.body.removed_at, null);
    });

    test('bad input answers 400/409 problems with stable codes; a reader may not write', async () => {
      const path = `/v1/cases/${web1.id}/observables`;
      const bad = expectProblem(
        await client.post(path, { type: 'ip', value: '10.0.0.300' }),
        400,
        'invalid_observable',
      );
      assert.equal(bad.field, 'value');
      expectProblem(await client.post(path, { type: 'sha256', value: 'abc' }), 400, 'invalid_observable');
      expectProblem(await client.post(path, { type: 'url', value: 'javascript:alert(1)' }), 400, 'invalid_observable');
      expectProblem(await client.post(path, { type: 'registry_key', value: 'x' }), 400, 'invalid_request');
      const tag = expectProblem(
        await client.post(path, { type: 'ip', value: '198.51.100.1', tags: ['two words'] }),
        400,
        'invalid_observable',
      );
      assert.equal(tag.field, 'tags');
      const exists = expectProblem(await client.post(path, { type: 'ip', value: ATTACKER }), 409, 'observable_exists');
      assert.match(String(exists.observable_id), /^obv_/);
      expectProblem(await reader.post(path, { type: 'ip', value: '198.51.100.1' }), 403, 'permission_denied');
      expectProblem(await client.get('/v1/cases/case_doesnotexist/observables'), 404, 'not_found');
    });

    test('a removed observable stays removed when new evidence names it', async () => {
      const ip = (await observables(web2.id)).observables.find((item) => item.type === 'ip')!;
      assert.equal((await client.delete(`/v1/cases/${web2.id}/observables/${ip.id}`)).status, 204);
      await ingest(server, [nginx('obs-web-2')], 'obsacme');
      await detectionCaughtUp(server);
      assert.deepEqual(pairs(await observables(web2.id)), ['host obs-web-2']);
      const similar = await client.get<Similar>(`/v1/cases/${web1.id}/similar`);
      assert.ok(!similar.body.cases.some((item) => item.id === web2.id), 'no longer shared');
      const restored = await client.post<ObservableView>(`/v1/cases/${web2.id}/observables`, {
        type: 'ip',
        value: ATTACKER,
      });
      assert.equal(restored.status, 201);
      assert.equal(restored.body.source, 'evidence');
    });

    test("an external observation's fields are read for observables", async () => {
      const written = await client.post('/v1/observations', {
        external_id: `obs-edr-${target.kind}`,
        title: 'EDR: beacon to a known C2',
        level: 'high',
        techniques: ['T1071'],
        first_time: new Date().toISOString(),
        host: 'obs-ws-9',
        fields: { DestinationIp: '198.51.100.9', 'file.hash.sha256': 'AB'.repeat(32), note: 'see 192.0.2.1' },
      });
      assert.equal(written.status, 201, JSON.stringify(written.body));
      const found = await caseFor(client, 'obs-ws-9');
      assert.deepEqual(pairs(await observables(found.id)), [
        'host obs-ws-9',
        'ip 198.51.100.9',
        `sha256 ${'ab'.repeat(32)}`,
      ]);
    });

    test("another tenant's token gets 404 for every observable, similar and report call", async () => {
      const ip = (await observables(web1.id)).observables.find((item) => item.type === 'ip')!;
      const base = `/v1/cases/${web1.id}`;
      expectProblem(await globex.get(`${base}/observables`), 404, 'not_found');
      expectProblem(await globex.post(`${base}/observables`, { type: 'ip', value: '198.51.100.2' }), 404, 'not_found');
      expectProblem(await globex.patch(`${base}/observables/${ip.id}`, { tags: ['ioc'] }), 404, 'not_found');
      expectProblem(await globex.delete(`${base}/observables/${ip.id}`), 404, 'not_found');
      expectProblem(await globex.get(`${base}/similar`), 404, 'not_found');
      expectProblem(await globex.get(`${base}/report`, { accept: 'text/markdown' }), 404, 'not_found');
      expectProblem(await globex.get(`/v1/cases/${web1.number}/report`), 404, 'not_found');
    });

    test('the report as Markdown: the case number, its facts and observables, the same twice', async () => {
      const response = await reader.get<string>(`/v1/cases/${web1.id}/report`, { accept: 'text/markdown' });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/markdown/);
      const text = response.body;
      assert.ok(!text.startsWith('{'));
      assert.ok(text.startsWith(`# Case #${web1.number}: `), text.slice(0, 80));
      assert.ok(text.includes(ATTACKER));
      for (const heading of [
        '## AI summary',
        '## Timeline',
        '## Observations',
        '## Observables',
        '## Comments',
        '## History',
      ])
        assert.ok(text.includes(heading), heading);
      assert.ok(text.includes('SQL Injection Attempt in Web Request'));
      assert.ok(text.includes('**Tenant:** obsacme display name'));
      const again = await reader.get<string>(`/v1/cases/${web1.id}/report?format=markdown`);
      assert.equal(again.body, text);
    });

    test('the report as HTML: a self-contained page, no script anywhere, a strict policy', async () => {
      const response = await client.get<string>(`/v1/cases/${web1.number}/report`, {
        accept: 'text/html,application/xhtml+xml,*/*;q=0.8',
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      const page = response.body;
      assert.ok(page.startsWith('<!doctype html>'));
      assert.ok(page.includes(`Case #${web1.number}`));
      assert.ok(page.includes(ATTACKER));
      assert.ok(page.includes('@media print'));
      assert.doesNotMatch(page, /<script|<link|<img|src=|href=/i);
    });

    test('record text holding HTML and Markdown comes out inert in both reports', async () => {
      const comment = await client.post(`/v1/cases/${hostile.id}/comments`, {
        body: '<script>alert(4)</script>\n# not a heading\n[click](javascript:alert(5))',
      });
      assert.equal(comment.status, 201);
      const markdown = (await client.get<string>(`/v1/cases/${hostile.id}/report`, { accept: 'text/markdown' })).body;
      assert.ok(markdown.includes('alert(1)'), 'the hostile user agent is in the evidence');
      assert.ok(markdown.includes('onerror'), 'the hostile host name is in the title');
      assertInertMarkdown(markdown);
      for (const heading of markdown.split('\n').filter((line) => line.startsWith('#')))
        assert.match(heading, /^(# Case #\d+: |## |### )/, "no heading but the report's own");

      const page = (await client.get<string>(`/v1/cases/${hostile.id}/report?format=html`)).body;
      assert.doesNotMatch(page, /<script|<img/i);
      assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
      assert.ok(page.includes('obs-web-&lt;img src=x onerror=alert(3)&gt;'));
      assert.ok(page.includes('&lt;script&gt;alert(4)&lt;/script&gt;'));
    });

    test("a merge moves the source's observables the target lacks; the source is left with none", async () => {
      const added = await client.post(`/v1/cases/${hostile.id}/observables`, { type: 'user', value: 'www-data' });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      const merged = await client.post('/v1/cases/merge', { target: web1.id, sources: [hostile.id] });
      assert.equal(merged.status, 200, JSON.stringify(merged.body));
      const target = pairs(await observables(web1.id));
      assert.ok(target.includes('user www-data') && target.includes(`ip ${ATTACKER}`), target.join(', '));
      assert.deepEqual(pairs(await observables(hostile.id, '?include_removed=true')), []);
    });
  });
}
