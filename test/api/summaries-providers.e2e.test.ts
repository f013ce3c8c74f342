// AI case summary providers through HTTP on SQLite and PostgreSQL: an OpenAI-compatible fake that
// is too slow, failing or refusing the key (504/502 after the configured retries, the key never in
// the answer), the Anthropic provider against its fake, a monitoring sink (OTLP) that fails without
// failing the request, and `sightline tenant set --ai-summaries` against a data directory.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeOpened } from '../helpers/suite.js';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { problemBody, signIn, type ApiClient, type ApiResponse, type Problem, type Session } from '../helpers/api.js';
import type { CaseDetail } from '../helpers/responses.js';
import { runCli } from '../helpers/cli.js';
import {
  openAiError,
  startFakeLlm,
  type FakeLlm,
  type FakeLlmReply,
  type FakeLlmRequest,
} from '../helpers/fake-llm.js';
import {
  HEADINGS,
  approvedTenant,
  caseFor,
  metricValue,
  monitoringLines,
  observe,
  sentPrompt,
  setTenant,
  waitFor,
  wellFormedReply,
  type SentPrompt,
} from '../helpers/summaries.js';
import type { SummaryView } from '../../src/summaries/summary-view.js';
import type { CaseView } from '../../src/cases/case-service.js';

const KEY = 'sk-e2e-secret-7c1d9b';
const OPENAI_MODEL = 'fake-gpt';
const ANTHROPIC_MODEL = 'claude-fake';

/** Asserts the status and the problem's code; returns the problem. */
function problem(response: ApiResponse, status: number, code: string): Problem {
  assert.equal(response.status, status, JSON.stringify(response.body));
  const body = problemBody(response);
  assert.equal(body.code, code);
  return body;
}

async function generated(client: ApiClient, caseId: string): Promise<SummaryView> {
  const response = await client.post<SummaryView>(`/v1/cases/${caseId}/summary`, {});
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

/** A stand-in OTLP collector that answers every export with a 500. */
async function failingCollector(): Promise<{ url: string; paths: string[]; close(): Promise<void> }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      paths.push(`${req.method} ${req.url}`);
      res.writeHead(500, { 'content-type': 'text/plain' }).end('collector down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

for (const target of databaseTargets) {
  describe(`AI case summary providers on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let operator: Session;
    let openai: FakeLlm;
    let anthropic: FakeLlm;
    const replies = new Map<string, (prompt: SentPrompt) => FakeLlmReply>();
    const sentFor = (llm: FakeLlm, codeName: string): FakeLlmRequest[] =>
      llm.requests.filter((request) => sentPrompt(request).data.customer.code_name === codeName);
    const respond = (request: FakeLlmRequest): FakeLlmReply => {
      const prompt = sentPrompt(request);
      return replies.get(prompt.data.customer.code_name)?.(prompt) ?? {};
    };

    before(async () => {
      database = await target.create();
      openai = await startFakeLlm({ kind: 'openai', respond });
      anthropic = await startFakeLlm({ kind: 'anthropic', respond });
      server = await startServer(
        database,
        {
          openaiBaseUrl: openai.baseUrl,
          openaiModel: OPENAI_MODEL,
          anthropicBaseUrl: anthropic.baseUrl,
          anthropicModel: ANTHROPIC_MODEL,
          // The parser's minimum timeout is 1s; one retry makes two attempts.
          summaryTimeout: '1s',
          summaryRetries: 1,
        },
        { SIGHTLINE_OPENAI_API_KEY: KEY },
      );
      operator = await signIn(server, {
        tenant: null,
        role: 'operator',
        email: `operator-${target.kind}@platform.example`,
      });
    });
    after(() => closeOpened(server, openai, anthropic, database));

    /** A tenant on the given provider with one case on `host`. */
    async function caseOn(
      codeName: string,
      provider: 'openai' | 'anthropic',
      host: string,
    ): Promise<{ client: ApiClient; item: CaseView }> {
      const { client } = await approvedTenant(server, operator, codeName);
      await setTenant(operator, codeName, { summary_provider: provider });
      await observe(client, { host });
      return { client, item: await caseFor(client, host) };
    }

    test('a provider slower than --summary-timeout: 504 provider_timeout after retries + 1 attempts; nothing stored; the failure is counted and copied', async () => {
      const { client, item } = await caseOn('slow', 'openai', 'slow-host');
      replies.set('slow', () => ({ delayMs: 5_000 }));
      const failuresBefore = await metricValue(server, 'sightline_summary_provider_failures_total', {
        provider: 'openai',
        kind: 'timeout',
      });
      const started = Date.now();
      const response = await client.post(`/v1/cases/${item.id}/summary`, {});
      problem(response, 504, 'provider_timeout');
      assert.ok(Date.now() - started >= 2_000, `two attempts of 1 s each (${Date.now() - started} ms)`);
      assert.equal(sentFor(openai, 'slow').length, 2, 'summaryRetries 1: two attempts');
      problem(await client.get(`/v1/cases/${item.id}/summary`), 404, 'summary_not_generated');
      assert.equal(
        await metricValue(server, 'sightline_summary_provider_failures_total', { provider: 'openai', kind: 'timeout' }),
        failuresBefore + 1,
      );
      const copy = await waitFor('the failed generation copy', async () =>
        (await monitoringLines(database.dataDir, 'generations')).find((line) => line.tenant === 'slow'),
      );
      assert.equal(copy.status, 'error');
      assert.equal(copy.output, '');
    });

    test('a provider answering 500 every time: 502 provider_error with provider_status 500 after retries + 1 attempts', async () => {
      const { client, item } = await caseOn('broken', 'openai', 'broken-host');
      replies.set('broken', () => ({ status: 500, body: openAiError('the model is on fire', 'server_error') }));
      const response = await client.post(`/v1/cases/${item.id}/summary`, {});
      assert.equal(problem(response, 502, 'provider_error').provider_status, 500);
      assert.equal(sentFor(openai, 'broken').length, 2);
      problem(await client.get(`/v1/cases/${item.id}/summary`), 404, 'summary_not_generated');
    });

    test('a provider refusing the key (401): 502 provider_error with provider_status 401, not retried, and the key is not in the answer', async () => {
      const { client, item } = await caseOn('unauthorised', 'openai', 'unauth-host');
      replies.set('unauthorised', () => ({
        status: 401,
        body: openAiError(`Incorrect API key provided: ${KEY}`, 'invalid_request_error'),
      }));
      const response = await client.post(`/v1/cases/${item.id}/summary`, {});
      assert.equal(problem(response, 502, 'provider_error').provider_status, 401);
      const sent = sentFor(openai, 'unauthorised');
      assert.equal(sent.length, 1, 'a 401 is not retried');
      assert.equal(sent[0]!.headers.authorization, `Bearer ${KEY}`, 'the key from SIGHTLINE_OPENAI_API_KEY was sent');
      assert.ok(!JSON.stringify(response.body).includes(KEY), `the key is not in ${JSON.stringify(response.body)}`);
      const copy = await waitFor('the failed generation copy', async () =>
        (await monitoringLines(database.dataDir, 'generations')).find((line) => line.tenant === 'unauthorised'),
      );
      assert.ok(!JSON.stringify(copy).includes(KEY), 'nor in the monitoring copy');
    });

    test('the anthropic provider (set by the operator for the tenant) generates a summary through the Messages API', async () => {
      const { client, item } = await caseOn('claude', 'anthropic', 'claude-host');
      replies.set('claude', (prompt) => ({
        body: {
          id: 'msg_e2e',
          type: 'message',
          role: 'assistant',
          model: `${ANTHROPIC_MODEL}-20260101`,
          content: [{ type: 'text', text: wellFormedReply(prompt.data) }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1234, output_tokens: 321 },
        },
      }));
      const summary = await generated(client, item.id);
      assert.equal(summary.provider, 'anthropic');
      assert.equal(summary.is_llm, true);
      assert.equal(summary.model, `${ANTHROPIC_MODEL}-20260101`, 'the answering model');
      assert.equal(summary.input_tokens, 1234);
      assert.equal(summary.output_tokens, 321);
      assert.deepEqual(
        summary.sections.map((section) => section.heading),
        [...HEADINGS],
      );
      assert.deepEqual(summary.flags, []);
      const observations = (await client.get<CaseDetail>(`/v1/cases/${item.id}`)).body.observations;
      assert.deepEqual(
        summary.citations.map((citation) => citation.observation_id),
        observations.map((observation) => observation.id),
      );
      const sent = sentFor(anthropic, 'claude');
      assert.equal(sent.length, 1);
      assert.equal(sent[0]!.path, '/v1/messages');
      assert.equal(sent[0]!.body?.model, ANTHROPIC_MODEL);
      assert.match(sentPrompt(sent[0]!).system, /untrusted/);
      assert.equal(sentFor(openai, 'claude').length, 0);
    });

    test('the monitoring sink failing (OTLP collector answering 500) never fails the request; /metrics counts the failures', async () => {
      const collector = await failingCollector();
      const otlpDatabase = await target.create();
      const otlpServer = await startServer(otlpDatabase, { summaryMonitoring: 'otlp', otlpEndpoint: collector.url });
      try {
        const otlpOperator = await signIn(otlpServer, {
          tenant: null,
          role: 'operator',
          email: `otlp-operator-${target.kind}@platform.example`,
        });
        const { client } = await approvedTenant(otlpServer, otlpOperator, 'otlp');
        await observe(client, { host: 'otlp-host' });
        const item = await caseFor(client, 'otlp-host');
        const failures = (what: string) =>
          metricValue(otlpServer, 'sightline_summary_monitoring_failures_total', { sink: 'otlp', what });
        assert.equal(await failures('generation'), 0);
        const summary = await generated(client, item.id);
        assert.equal(summary.provider, 'builtin');
        await waitFor('the generation export failure to be counted', async () => (await failures('generation')) === 1);
        const rated = await client.post(`/v1/cases/${item.id}/summary/feedback`, {
          rating: 'down',
          comment: 'Missed the lateral movement.',
        });
        assert.equal(rated.status, 200, JSON.stringify(rated.body));
        await waitFor('the feedback export failure to be counted', async () => (await failures('feedback')) === 1);
        assert.deepEqual(collector.paths, ['POST /v1/traces', 'POST /v1/traces'], 'both copies were attempted');
        assert.equal((await client.get<SummaryView>(`/v1/cases/${item.id}/summary`)).body.id, summary.id);
      } finally {
        await otlpServer.close();
        await otlpDatabase.cleanup();
        await collector.close();
      }
    });
  });
}

// The CLI only calls the tenant service, which the API suites run on both dialects: SQLite is enough.
const sqlite = databaseTargets.find((target) => target.kind === 'sqlite')!;

describe('sightline tenant set --ai-summaries', () => {
  let database: TestDatabase;
  let server: TestServer;

  before(async () => {
    database = await sqlite.create();
    server = await startServer(database);
  });
  after(() => closeOpened(server, database));

  test('off: the API refuses summaries and the case says why; on: the summary is back', async () => {
    const operator = await signIn(server, { tenant: null, role: 'operator', email: 'cli-operator@platform.example' });
    const { client } = await approvedTenant(server, operator, 'acme');
    await observe(client, { host: 'cli-host' });
    const item = await caseFor(client, 'cli-host');
    const summary = await generated(client, item.id);

    const off = await runCli(['tenant', 'set', 'acme', '--ai-summaries', 'off', '--data', database.dataDir]);
    assert.equal(off.code, 0, off.stderr);
    assert.equal((JSON.parse(off.stdout.trim().split('\n').at(-1)!) as { ai_summaries: string }).ai_summaries, 'off');
    problem(await client.post(`/v1/cases/${item.id}/summary`, {}), 403, 'ai_summaries_disabled');
    problem(await client.get(`/v1/cases/${item.id}/summary`), 403, 'ai_summaries_disabled');
    const hidden = (await client.get<CaseDetail>(`/v1/cases/${item.id}`)).body;
    assert.equal(hidden.summary, null);
    assert.equal(hidden.summary_unavailable!.code, 'ai_summaries_disabled');

    const wrong = await runCli(['tenant', 'set', 'acme', '--ai-summaries', 'maybe', '--data', database.dataDir]);
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /on or off/);

    const on = await runCli(['tenant', 'set', 'acme', '--ai-summaries', 'on', '--data', database.dataDir]);
    assert.equal(on.code, 0, on.stderr);
    assert.equal((JSON.parse(on.stdout.trim().split('\n').at(-1)!) as { ai_summaries: string }).ai_summaries, 'on');
    assert.equal((await client.get<SummaryView>(`/v1/cases/${item.id}/summary`)).body.id, summary.id);
    assert.equal((await client.get<CaseDetail>(`/v1/cases/${item.id}`)).body.summary_unavailable, null);
  });
});
