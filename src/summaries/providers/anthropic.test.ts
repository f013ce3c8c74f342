// The Anthropic provider against a local fake speaking the Messages API: what it sends, how it
// reads the answer, and how timeouts, retries and HTTP errors become ProviderErrors.
// Timeouts are 200 ms so the retry tests finish in a couple of seconds.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import {
  anthropicError,
  anthropicMessage,
  startFakeLlm,
  type FakeLlm,
  type FakeLlmOptions,
} from '../../../test/helpers/fake-llm.js';
import { createProvider, describeProvider } from './index.js';
import { AnthropicProvider } from './anthropic.js';
import { ProviderError, type ProviderRequest, type ProviderSettings } from './provider.js';
import type { SummaryInput } from '../summary-input.js';

const KEY = 'sk-ant-test-secret-4f9a';

const INPUT: SummaryInput = {
  customer: { code_name: 'blue-heron' },
  case: {
    id: 'case_1',
    number: 1,
    score: 70,
    status: 'new',
    description: 'Suspicious PowerShell',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    first_observation_at: '2026-01-01T00:00:00.000Z',
    last_observation_at: '2026-01-01T00:00:00.000Z',
    observation_count: 0,
    techniques: [],
  },
  devices: [],
  observations: [],
};

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    system: 'You summarise cases.',
    user: '<case_data>{}</case_data>',
    input: INPUT,
    maxOutputTokens: 800,
    ...overrides,
  };
}

let fake: FakeLlm | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(
  respond?: FakeLlmOptions['respond'],
  overrides: Partial<ProviderSettings> = {},
): Promise<{ llm: FakeLlm; provider: AnthropicProvider }> {
  const llm = await startFakeLlm({ kind: 'anthropic', ...(respond ? { respond } : {}) });
  fake = llm;
  const provider = new AnthropicProvider({
    provider: 'anthropic',
    baseUrl: llm.baseUrl,
    model: 'claude-test',
    apiKey: KEY,
    // Generous, so that a loaded machine never turns a local answer into a timeout and a retry;
    // the timeout test sets its own.
    timeoutMs: 10_000,
    maxRetries: 2,
    ...overrides,
  });
  return { llm, provider };
}

async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
  return error;
}

describe('AnthropicProvider', () => {
  test('sends the system prompt, the user message, model, limits and the key; returns text, tokens and the answering model', async () => {
    const { llm, provider } = await setup(() => ({
      body: anthropicMessage({
        texts: ['## Overview\n', 'Done.'],
        model: 'claude-test-20260101',
        inputTokens: 321,
        outputTokens: 45,
      }),
    }));
    const result = await provider.generate(request());
    assert.deepEqual(result, {
      text: '## Overview\nDone.',
      inputTokens: 321,
      outputTokens: 45,
      model: 'claude-test-20260101',
    });

    assert.equal(llm.requests.length, 1);
    const [received] = llm.requests;
    assert.ok(received, 'the provider made a request');
    const sent = received.body;
    assert.ok(sent, 'the request had a JSON body');
    assert.equal(received.method, 'POST');
    assert.equal(received.path, '/v1/messages');
    // SDK 1.x sends the key as `Authorization: Bearer`; 0.x sent `x-api-key`. Either is the key.
    const credential = received.headers['x-api-key'] ?? received.headers.authorization?.replace(/^Bearer /, '');
    assert.equal(credential, KEY);
    assert.ok(received.headers['anthropic-version'], 'the SDK names the API version');
    assert.equal(sent.model, 'claude-test');
    assert.equal(sent.system, 'You summarise cases.');
    assert.deepEqual(sent.messages, [{ role: 'user', content: '<case_data>{}</case_data>' }]);
    assert.equal(sent.max_tokens, 800);
    assert.ok(!('temperature' in sent), 'API version 2026-10-21 rejects sampling parameters');
  });

  test('only text blocks make the text', async () => {
    const body = anthropicMessage({ texts: ['First. ', 'Second.'] });
    const content: unknown = body.content;
    assert.ok(Array.isArray(content));
    body.content = [{ type: 'thinking', thinking: 'hidden reasoning', signature: 'sig' }, ...(content as unknown[])];
    const { provider } = await setup(() => ({ body }));
    const result = await provider.generate(request());
    assert.equal(result.text, 'First. Second.');
  });

  test('a provider slower than timeoutMs is a timeout, after maxRetries retries', async () => {
    const { llm, provider } = await setup(() => ({ delayMs: 2_000 }), { timeoutMs: 200 });
    const started = Date.now();
    const error = await providerError(provider.generate(request()));
    assert.equal(error.kind, 'timeout');
    assert.equal(error.status, undefined);
    assert.equal(llm.requests.length, 3);
    assert.ok(Date.now() - started >= 3 * 200, 'each attempt waited for its own timeout');
  });

  test('a 500 then a 200 succeeds after one retry', async () => {
    const { llm, provider } = await setup((req) =>
      req.index === 0 ? { status: 500, body: anthropicError('api_error', 'boom') } : {},
    );
    const result = await provider.generate(request());
    assert.equal(result.model, 'claude-test');
    assert.equal(llm.requests.length, 2);
  });

  test('a 429 with retry-after: 0 is retried', async () => {
    const { llm, provider } = await setup((req) =>
      req.index === 0
        ? { status: 429, headers: { 'retry-after': '0' }, body: anthropicError('rate_limit_error', 'Rate limited') }
        : {},
    );
    const result = await provider.generate(request());
    assert.ok(result.text.length > 0);
    assert.equal(llm.requests.length, 2);
  });

  test('a 401 is an error with its status, not retried, and the key never appears in the message', async () => {
    const { llm, provider } = await setup(() => ({
      status: 401,
      body: anthropicError('authentication_error', `invalid x-api-key: ${KEY}`),
    }));
    const error = await providerError(provider.generate(request()));
    assert.equal(error.kind, 'error');
    assert.equal(error.status, 401);
    assert.equal(llm.requests.length, 1);
    assert.ok(!error.message.includes(KEY), error.message);
    assert.ok(!String(error.stack).includes(KEY));
    assert.equal(error.cause, undefined, 'the SDK error (which holds the body) is not kept');
    assert.equal(
      error.message,
      'The Anthropic provider answered HTTP 401: the provider refused the configured credentials',
    );
  });

  test('an answer without text blocks is an error', async () => {
    const { provider } = await setup(() => ({ body: anthropicMessage({ texts: [] }) }));
    const error = await providerError(provider.generate(request()));
    assert.equal(error.kind, 'error');
    assert.match(error.message, /no text/);
  });

  test('an unreachable server is an error without a status', async () => {
    const llm = await startFakeLlm({ kind: 'anthropic' });
    await llm.close();
    const provider = new AnthropicProvider({
      provider: 'anthropic',
      baseUrl: llm.baseUrl,
      model: 'claude-test',
      apiKey: KEY,
      timeoutMs: 200,
      maxRetries: 0,
    });
    const error = await providerError(provider.generate(request()));
    assert.equal(error.kind, 'error');
    assert.equal(error.status, undefined);
    assert.ok(!error.message.includes(KEY));
  });

  test("the caller's signal is passed through: its deadline is a timeout, a plain abort an error", async () => {
    const { llm, provider } = await setup(() => ({ delayMs: 2_000 }), { timeoutMs: 5_000 });
    const timedOut = await providerError(provider.generate(request({ signal: AbortSignal.timeout(100) })));
    assert.equal(timedOut.kind, 'timeout');

    // Aborted once the request has arrived (a fixed delay could fire before it is sent).
    const before = llm.requests.length;
    const controller = new AbortController();
    const arrived = (async () => {
      while (llm.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 10));
      controller.abort();
    })();
    const aborted = await providerError(provider.generate(request({ signal: controller.signal })));
    await arrived;
    assert.equal(aborted.kind, 'error');
    assert.equal(llm.requests.length, before + 1, 'an abort is not retried');
  });

  test('createProvider builds it from settings and describeProvider reports it as an LLM', () => {
    const provider = createProvider({
      provider: 'anthropic',
      baseUrl: '',
      model: 'claude-test',
      apiKey: KEY,
      timeoutMs: 1_000,
      maxRetries: 0,
    });
    assert.ok(provider instanceof AnthropicProvider);
    assert.deepEqual(describeProvider(provider), { provider: 'anthropic', model: 'claude-test', is_llm: true });
  });
});
