// The OTLP sink against a collector stand-in on 127.0.0.1 (no other network): the posted OTLP/HTTP
// JSON body, GenAI and Langfuse attributes, headers, and failures (HTTP errors, timeout, partial
// success, refused connection), including how isolate() absorbs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MonitoringSettings } from './monitoring-sink.js';
import {
  createOtlpSink,
  OtlpExportError,
  traceIdFor,
  tracesUrl,
  type OtlpKeyValue,
  type OtlpSpan,
  type OtlpTraceRequest,
} from './otlp-sink.js';
import { isolate } from './sink.js';
import { feedback, generation } from './test-records.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Answer = 'ok' | 'fail' | 'hang' | 'partial';

/** An OTLP/HTTP collector stand-in on 127.0.0.1. */
async function collector(
  t: { after: (fn: () => Promise<void>) => void },
  answer: Answer = 'ok',
): Promise<{ endpoint: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (answer === 'hang') return;
      if (answer === 'fail') {
        response.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
        return;
      }
      const body =
        answer === 'partial' ? { partialSuccess: { rejectedSpans: '1', errorMessage: 'span too large' } } : {};
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, received };
}

const otlpSettings = (
  endpoint: string,
  timeoutMs = 2000,
): Pick<MonitoringSettings, 'otlpEndpoint' | 'otlpHeaders' | 'timeoutMs'> => ({
  otlpEndpoint: endpoint,
  otlpHeaders: { Authorization: 'Basic cGstbGYtMTIzOnNrLWxmLTQ1Ng==', 'X-Scope-OrgID': 'soc' },
  timeoutMs,
});

type Plain = string | number | boolean;
function attributeMap(list: OtlpKeyValue[]): Map<string, Plain> {
  const map = new Map<string, Plain>();
  for (const { key, value } of list) {
    assert.ok(!map.has(key), `attribute ${key} appears once`);
    if ('stringValue' in value) map.set(key, value.stringValue);
    else if ('intValue' in value) {
      assert.match(value.intValue, /^-?\d+$/, `${key} is an int64 decimal string`);
      map.set(key, Number(value.intValue));
    } else if ('doubleValue' in value) map.set(key, value.doubleValue);
    else map.set(key, value.boolValue);
  }
  return map;
}

function onlySpan(received: Received): { request: OtlpTraceRequest; span: OtlpSpan } {
  const request = JSON.parse(received.body) as OtlpTraceRequest;
  assert.equal(request.resourceSpans.length, 1);
  const scopeSpans = request.resourceSpans[0]?.scopeSpans ?? [];
  assert.equal(scopeSpans.length, 1);
  const spans = scopeSpans[0]?.spans ?? [];
  assert.equal(spans.length, 1);
  const span = spans[0];
  assert.ok(span);
  return { request, span };
}

const nanos = (iso: string): string => (BigInt(Date.parse(iso)) * 1_000_000n).toString();

test('otlp: a generation is one GenAI span posted as OTLP/HTTP JSON with the configured headers', async (t) => {
  const { endpoint, received } = await collector(t);
  const sink = createOtlpSink(otlpSettings(endpoint));
  assert.equal(sink.name, 'otlp');
  const record = generation();
  await sink.recordGeneration(record);
  await sink.close();

  assert.equal(received.length, 1);
  const [post] = received;
  assert.ok(post);
  assert.equal(post.method, 'POST');
  assert.equal(post.url, '/v1/traces');
  assert.equal(post.headers['content-type'], 'application/json');
  assert.equal(post.headers.authorization, 'Basic cGstbGYtMTIzOnNrLWxmLTQ1Ng==');
  assert.equal(post.headers['x-scope-orgid'], 'soc');

  const { request, span } = onlySpan(post);
  const resource = attributeMap(request.resourceSpans[0]?.resource.attributes ?? []);
  assert.equal(resource.get('service.name'), 'sightline');
  assert.deepEqual(request.resourceSpans[0]?.scopeSpans[0]?.scope, { name: 'sightline.summaries', version: '1' });

  assert.equal(span.name, 'chat gpt-4o', '{operation} {request model}');
  assert.equal(span.kind, 3, 'CLIENT');
  assert.match(span.traceId, /^[0-9a-f]{32}$/);
  assert.equal(span.traceId, createHash('sha256').update('sum_01').digest('hex').slice(0, 32));
  assert.match(span.spanId, /^[0-9a-f]{16}$/);
  assert.notEqual(span.spanId, '0000000000000000');
  assert.equal(span.startTimeUnixNano, nanos(record.started_at));
  assert.equal(span.endTimeUnixNano, nanos(record.finished_at));
  assert.equal(span.endTimeUnixNano, '1741608000000000000');
  assert.equal(span.status, undefined, 'status left Unset on success');

  const attributes = attributeMap(span.attributes);
  assert.equal(attributes.get('gen_ai.operation.name'), 'chat');
  assert.equal(attributes.get('gen_ai.provider.name'), 'openai');
  assert.equal(attributes.get('gen_ai.system'), 'openai');
  assert.equal(attributes.get('gen_ai.request.model'), 'gpt-4o');
  assert.equal(attributes.get('gen_ai.response.model'), 'gpt-4o-2024-08-06');
  assert.equal(attributes.get('gen_ai.output.type'), 'text');
  assert.equal(attributes.get('gen_ai.usage.input_tokens'), 1234);
  assert.equal(attributes.get('gen_ai.usage.output_tokens'), 210);
  assert.deepEqual(JSON.parse(String(attributes.get('gen_ai.system_instructions'))), [
    { type: 'text', content: record.input.system },
  ]);
  assert.deepEqual(JSON.parse(String(attributes.get('gen_ai.input.messages'))), [
    { role: 'user', parts: [{ type: 'text', content: record.input.user }] },
  ]);
  assert.deepEqual(JSON.parse(String(attributes.get('gen_ai.output.messages'))), [
    { role: 'assistant', parts: [{ type: 'text', content: record.output }], finish_reason: 'stop' },
  ]);
  assert.equal(attributes.has('error.type'), false);
  assert.equal(attributes.get('sightline.case_id'), 'case_42');
  assert.equal(attributes.get('sightline.summary_id'), 'sum_01');
  assert.equal(attributes.get('sightline.tenant'), 'blue-heron');
  assert.equal(attributes.get('sightline.prompt_version'), 'case-summary-v3');
  assert.equal(attributes.get('sightline.cached'), false);
  assert.equal(attributes.get('sightline.latency_ms'), 2500);
  assert.equal(attributes.get('user.id'), 'usr_7');
  assert.equal(attributes.get('langfuse.user.id'), 'usr_7');
  // What Langfuse reads first for the observation's type, input and output.
  assert.equal(attributes.get('langfuse.observation.type'), 'generation');
  assert.deepEqual(JSON.parse(String(attributes.get('langfuse.observation.input'))), [
    { role: 'system', content: record.input.system },
    { role: 'user', content: record.input.user },
  ]);
  assert.equal(attributes.get('langfuse.observation.output'), record.output);
  assert.equal(attributes.get('langfuse.observation.metadata.case_id'), 'case_42');
  assert.equal(attributes.get('langfuse.trace.metadata.tenant'), 'blue-heron');
});

test('otlp: feedback is a summary.feedback span in the generation trace, with score, comment and user', async (t) => {
  const { endpoint, received } = await collector(t);
  const sink = createOtlpSink(otlpSettings(`${endpoint}/api/public/otel/`));
  await sink.recordGeneration(generation());
  await sink.recordFeedback(feedback());
  await sink.recordFeedback(feedback({ rating: 'up', comment: null, user_id: 'usr_7' }));
  assert.deepEqual(
    received.map((post) => post.url),
    ['/api/public/otel/v1/traces', '/api/public/otel/v1/traces', '/api/public/otel/v1/traces'],
  );
  const [gen, down, up] = received.map((post) => onlySpan(post).span);
  assert.ok(gen && down && up);

  assert.equal(down.name, 'summary.feedback');
  assert.equal(down.kind, 1, 'INTERNAL');
  assert.equal(down.traceId, gen.traceId, 'the same trace as the generation');
  assert.equal(down.traceId, traceIdFor('sum_01'));
  assert.notEqual(down.spanId, gen.spanId);
  assert.equal(down.startTimeUnixNano, nanos('2025-03-10T12:05:00.000Z'));
  assert.equal(down.endTimeUnixNano, down.startTimeUnixNano);
  const attributes = attributeMap(down.attributes);
  assert.equal(attributes.get('sightline.summary_id'), 'sum_01');
  assert.equal(attributes.get('sightline.case_id'), 'case_42');
  assert.equal(attributes.get('sightline.tenant'), 'blue-heron');
  assert.equal(attributes.get('user.id'), 'usr_9');
  assert.equal(attributes.get('langfuse.user.id'), 'usr_9');
  assert.equal(attributes.get('sightline.feedback.rating'), 'down');
  assert.equal(attributes.get('sightline.feedback.score'), 0);
  assert.equal(attributes.get('sightline.feedback.comment'), 'Missed the lateral movement.');
  assert.equal(attributes.get('langfuse.observation.type'), 'event');
  assert.equal(attributes.has('gen_ai.request.model'), false, 'not mistaken for a generation');
  assert.equal(down.events?.length, 1);
  const event = down.events[0];
  assert.ok(event);
  assert.equal(event.name, 'gen_ai.evaluation.result');
  assert.equal(event.timeUnixNano, down.startTimeUnixNano);
  const evaluation = attributeMap(event.attributes);
  assert.equal(evaluation.get('gen_ai.evaluation.name'), 'user_feedback');
  assert.equal(evaluation.get('gen_ai.evaluation.score.value'), 0);
  assert.equal(evaluation.get('gen_ai.evaluation.score.label'), 'down');
  assert.equal(evaluation.get('gen_ai.evaluation.explanation'), 'Missed the lateral movement.');

  const upAttributes = attributeMap(up.attributes);
  assert.equal(upAttributes.get('sightline.feedback.score'), 1);
  assert.equal(upAttributes.has('sightline.feedback.comment'), false);
  assert.equal(attributeMap(up.events?.[0]?.attributes ?? []).get('gen_ai.evaluation.score.value'), 1);
});

test('otlp: a failed generation has an Error status and error.type; a user-less one has no user.id', async (t) => {
  const { endpoint, received } = await collector(t);
  const sink = createOtlpSink(otlpSettings(endpoint));
  await sink.recordGeneration(
    generation({
      status: 'error',
      error: 'provider timed out after 30000 ms',
      error_type: 'timeout',
      output: '',
      output_tokens: 0,
      user_id: null,
    }),
  );
  await sink.recordGeneration(
    generation({
      status: 'error',
      error: 'boom',
      output: '',
      provider: 'builtin',
      model: 'builtin-1',
      request_model: undefined,
    }),
  );
  const [timeout, other] = received.map((post) => onlySpan(post).span);
  assert.ok(timeout && other);
  assert.deepEqual(timeout.status, { code: 2, message: 'provider timed out after 30000 ms' });
  const attributes = attributeMap(timeout.attributes);
  assert.equal(attributes.get('error.type'), 'timeout');
  assert.equal(attributes.has('gen_ai.response.model'), false);
  assert.equal(attributes.has('gen_ai.output.messages'), false);
  assert.equal(attributes.has('langfuse.observation.output'), false);
  assert.equal(attributes.has('user.id'), false);
  assert.equal(attributes.has('langfuse.user.id'), false);
  const otherAttributes = attributeMap(other.attributes);
  assert.equal(otherAttributes.get('error.type'), '_OTHER');
  assert.equal(otherAttributes.get('gen_ai.request.model'), 'builtin-1');
  assert.equal(other.kind, 1, 'the in-process builtin writer is INTERNAL');
});

test('otlp: a 500 answer rejects; isolate() turns it into a resolved call and one onFailure', async (t) => {
  const { endpoint, received } = await collector(t, 'fail');
  const sink = createOtlpSink(otlpSettings(endpoint));
  await assert.rejects(sink.recordGeneration(generation()), (error: unknown) => {
    assert.ok(error instanceof OtlpExportError);
    assert.equal(error.status, 500);
    assert.match(error.message, /answered 500/);
    assert.doesNotMatch(error.message, /whoami|untrusted|Basic/, 'no payload, no credentials');
    return true;
  });
  const failures: [unknown, string][] = [];
  const isolated = isolate(sink, (error, what) => failures.push([error, what]));
  assert.equal(isolated.name, 'otlp');
  // Widened to Promise<unknown> so the assertion can look at what the call resolves with.
  const call: Promise<unknown> = isolated.recordGeneration(generation());
  assert.equal(await call, undefined);
  assert.equal(failures.length, 1);
  assert.equal(failures[0]?.[1], 'generation');
  assert.ok(failures[0][0] instanceof OtlpExportError);
  await isolated.recordFeedback(feedback());
  assert.equal(failures.length, 2);
  assert.equal(failures[1]?.[1], 'feedback');
  assert.equal(received.length, 3);
});

test('otlp: a collector hanging past the timeout rejects in time; isolate() resolves with one onFailure', async (t) => {
  const { endpoint, received } = await collector(t, 'hang');
  const sink = createOtlpSink(otlpSettings(endpoint, 150));
  const started = Date.now();
  await assert.rejects(sink.recordGeneration(generation()), (error: unknown) => {
    assert.ok(error instanceof OtlpExportError);
    assert.equal(error.status, undefined);
    assert.match(error.message, /timed out after 150 ms/);
    return true;
  });
  assert.ok(Date.now() - started < 2000, 'gave up at the timeout');
  const failures: string[] = [];
  const isolated = isolate(sink, (_error, what) => failures.push(what));
  await isolated.recordGeneration(generation());
  assert.deepEqual(failures, ['generation']);
  await isolated.close();
  assert.equal(received.length, 2);
});

test('otlp: a partial success that rejected spans is an error; an unreachable collector too', async (t) => {
  const { endpoint } = await collector(t, 'partial');
  await assert.rejects(
    createOtlpSink(otlpSettings(endpoint)).recordGeneration(generation()),
    /rejected 1 span\(s\): span too large/,
  );
  // A port that was just free: connection refused.
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const unreachable = createOtlpSink(otlpSettings(`http://127.0.0.1:${port}`, 2000));
  await assert.rejects(
    unreachable.recordFeedback(feedback()),
    (error: unknown) => error instanceof OtlpExportError && error.message.includes('failed'),
  );
});

test('otlp: bad records and settings are refused; close waits for exports under way', async (t) => {
  const { endpoint, received } = await collector(t);
  assert.throws(() => createOtlpSink(otlpSettings('')), /http\(s\) URL/);
  assert.throws(() => createOtlpSink(otlpSettings('ftp://example.com')), /http\(s\) URL/);
  assert.throws(() => createOtlpSink(otlpSettings(endpoint, 0)), /timeout/);
  assert.throws(() => createOtlpSink({ ...otlpSettings(endpoint), otlpHeaders: { 'bad header': 'x' } }));
  assert.equal(tracesUrl('http://localhost:4318').href, 'http://localhost:4318/v1/traces');
  assert.equal(
    tracesUrl('https://cloud.langfuse.com/api/public/otel').href,
    'https://cloud.langfuse.com/api/public/otel/v1/traces',
  );
  assert.equal(tracesUrl('http://collector:4318/v1/traces').href, 'http://collector:4318/v1/traces');

  const sink = createOtlpSink(otlpSettings(endpoint));
  await assert.rejects(
    sink.recordGeneration(generation({ started_at: 'yesterday' })),
    /started_at is not an ISO 8601 time/,
  );
  const pending = sink.recordGeneration(generation());
  await sink.close();
  assert.equal(received.length, 1, 'the export under way finished before close() resolved');
  await pending;
  await assert.rejects(sink.recordFeedback(feedback()), /closed/);
});
