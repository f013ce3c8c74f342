// OTLP/HTTP logs at the collector address, sent by OpenTelemetry's own JS exporters (protobuf and
// JSON, gzip) to a real server on both databases: stored one record per LogRecord and found by
// search, a Sysmon event in a log body detected as through /log_sink, and every refusal answered
// in OTLP's shape (a google.rpc.Status, the request's encoding) with the status OTLP defines.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { OTLPLogExporter as JsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { SeverityNumber, type AnyValueMap } from '@opentelemetry/api-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { databaseTargets } from '../helpers/databases.js';
import { apiClient, bearer, detectionCaughtUp, issueToken, type ApiClient } from '../helpers/api.js';
import { apiSuite } from '../helpers/suite.js';
import { httpPost } from '../helpers/server.js';
import { searchAll } from '../helpers/telemetry.js';
import { AnsweredExports } from '../helpers/otlp-exporters.js';
import { SYSMON_PROCESS } from '../../src/telemetry/normalise/test-windows-events.js';
import { flat, fluentBit } from '../../src/telemetry/normalise/test-windows-shapes.js';
import { decodeExportResponse, decodeStatus, encodeExportRequest } from '../../src/collector/otlp/otlp-protobuf.js';

const MAX_RECORD_BYTES = 64 * 1024;
const PROTOBUF = 'application/x-protobuf';

/** An OTLP/JSON-shaped request of string-bodied log records, each carrying `run` as an attribute. */
function exportRequest(run: string, bodies: string[]): Record<string, unknown> {
  const logRecords = bodies.map((body) => ({
    body: { stringValue: body },
    attributes: [{ key: 'run', value: { stringValue: run } }],
  }));
  return { resourceLogs: [{ scopeLogs: [{ logRecords }] }] };
}

for (const target of databaseTargets) {
  describe(`OTLP/HTTP logs intake on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, { maxRecordBytes: String(MAX_RECORD_BYTES) });
    let reader: ApiClient;
    const providers: LoggerProvider[] = [];
    const url = () => `${suite.server.baseUrl}/v1/logs`;
    const post = (body: string | Buffer, headers: Record<string, string>, host = 'acme-collector.localhost') =>
      httpPost(url(), body, { host, ...headers });

    before(async () => {
      const token = await issueToken(suite.server, suite.acme, ['telemetry:read', 'observations:read']);
      reader = apiClient(suite.server, bearer(token.value));
    });
    after(async () => {
      for (const provider of providers) await provider.shutdown();
    });

    /**
     * A logger whose records go through `exporter`, with a resource and a scope as an SDK sets them.
     * `flush` resolves once every export was answered (the processor's own does not wait for that),
     * and fails unless each succeeded.
     */
    function loggerFor(exporter: LogRecordExporter) {
      const answered = new AnsweredExports(exporter);
      const provider = new LoggerProvider({
        resource: resourceFromAttributes({ 'service.name': 'checkout', 'host.name': 'app-7' }),
        processors: [new SimpleLogRecordProcessor({ exporter: answered })],
      });
      providers.push(provider);
      const flush = async () => {
        await provider.forceFlush();
        for (const result of await answered.settled()) assert.equal(result.code, 0, String(result.error));
      };
      return { logger: provider.getLogger('payments', '2.1.0'), flush };
    }
    const exporterOptions = (compression?: 'gzip') => ({
      url: url(),
      headers: { host: 'acme-collector.localhost' },
      ...(compression ? { compression: compression as never } : {}),
    });

    for (const [name, exporter] of [
      ['protobuf', () => new ProtoExporter(exporterOptions())],
      ['JSON', () => new JsonExporter(exporterOptions())],
      ['protobuf with gzip', () => new ProtoExporter(exporterOptions('gzip'))],
      ['JSON with gzip', () => new JsonExporter(exporterOptions('gzip'))],
    ] as const) {
      test(`the ${name} exporter's records are stored with their resource, scope and attributes`, async () => {
        const run = randomUUID();
        const { logger, flush } = loggerFor(exporter());
        logger.emit({
          body: 'payment declined',
          severityNumber: SeverityNumber.WARN,
          severityText: 'WARN',
          attributes: { run, 'user.id': 42 },
          timestamp: new Date('2026-11-30T08:00:00.123Z'),
        });
        logger.emit({ body: { run, order: { id: 'o-1', total: 12.5 } } });
        await flush();

        const { records } = await searchAll(reader, { filters: { 'otlp.attributes.run': run } });
        assert.equal(records.length, 1, JSON.stringify(records));
        const stored = records[0]!;
        assert.equal(stored.event_time, '2026-11-30T08:00:00.123Z');
        const record = stored.record as { otlp: { observed_time_unix_nano: string; resource: { attributes: object } } };
        // The SDK adds resource attributes of its own (telemetry.sdk.*) and sets the observed time.
        assert.equal(typeof record.otlp.observed_time_unix_nano, 'string');
        assert.deepEqual(record, {
          message: 'payment declined',
          otlp: {
            time_unix_nano: '1796025600123000000',
            observed_time_unix_nano: record.otlp.observed_time_unix_nano,
            severity_number: 13,
            severity_text: 'WARN',
            attributes: { run, 'user.id': 42 },
            resource: { attributes: record.otlp.resource.attributes },
            scope: { name: 'payments', version: '2.1.0' },
          },
        });
        assert.deepEqual(
          { ...record.otlp.resource.attributes },
          { ...record.otlp.resource.attributes, 'service.name': 'checkout', 'host.name': 'app-7' },
        );

        // A map body is the record: its fields are where they would be through /log_sink.
        const mapBody = await searchAll(reader, { filters: { run, 'order.id': 'o-1' } });
        assert.equal(mapBody.records.length, 1);
        assert.equal((mapBody.records[0]?.record as { order: { total: number } }).order.total, 12.5);
      });
    }

    test('a Sysmon process creation in a log body is detected, as a map or as JSON text', async () => {
      const computers = [`WS-OTLP-${randomUUID().slice(0, 8)}`, `WS-OTLP-${randomUUID().slice(0, 8)}`];
      const map = loggerFor(new ProtoExporter(exporterOptions()));
      map.logger.emit({ body: fluentBit({ ...SYSMON_PROCESS, computer: computers[0]! }) as AnyValueMap });
      await map.flush();
      const text = loggerFor(new JsonExporter(exporterOptions()));
      text.logger.emit({ body: JSON.stringify(flat({ ...SYSMON_PROCESS, computer: computers[1]! })) });
      await text.flush();

      await detectionCaughtUp(suite.server);
      const listed = await reader.get<{ observations: { host: string | null; rule: { title: string } }[] }>(
        '/v1/observations?limit=100',
      );
      for (const computer of computers) {
        const titles = listed.body.observations.filter((o) => o.host === computer).map((o) => o.rule.title);
        assert.ok(titles.includes('PowerShell Run With an Encoded Command'), `${computer}: ${titles.join('; ')}`);
      }
    });

    test('records over the record size are refused one by one: a partial success, in either encoding', async () => {
      const run = randomUUID();
      const bodies = ['small', 'x'.repeat(MAX_RECORD_BYTES + 1), 'also small'];
      const proto = await post(encodeExportRequest(exportRequest(run, bodies)), { 'content-type': PROTOBUF });
      assert.equal(proto.status, 200);
      assert.equal(proto.headers.get('content-type'), PROTOBUF);
      const answer = decodeExportResponse(Buffer.from(await proto.arrayBuffer())) as {
        partialSuccess: { rejectedLogRecords: string; errorMessage: string };
      };
      assert.equal(answer.partialSuccess.rejectedLogRecords, '1');
      assert.match(answer.partialSuccess.errorMessage, /log record 2 is \d+ bytes as stored/);

      const json = await post(JSON.stringify(exportRequest(run, bodies)), { 'content-type': 'application/json' });
      assert.equal(json.status, 200);
      const jsonAnswer = (await json.json()) as { partialSuccess: { rejectedLogRecords: string } };
      assert.equal(jsonAnswer.partialSuccess.rejectedLogRecords, '1');
      assert.equal((await searchAll(reader, { filters: { 'otlp.attributes.run': run } })).records.length, 4);

      const full = await post(JSON.stringify(exportRequest(run, ['fine'])), { 'content-type': 'application/json' });
      assert.deepEqual(await full.json(), {});
    });

    test('gzip bodies are inflated; malformed protobuf is a 400 Status in protobuf', async () => {
      const run = randomUUID();
      const gzipped = await post(gzipSync(encodeExportRequest(exportRequest(run, ['zipped']))), {
        'content-type': PROTOBUF,
        'content-encoding': 'gzip',
      });
      assert.equal(gzipped.status, 200);
      assert.equal((await searchAll(reader, { filters: { 'otlp.attributes.run': run } })).records.length, 1);

      const bad = await post(Buffer.from([0x0a, 0xff, 0xff, 0x01]), { 'content-type': PROTOBUF });
      assert.equal(bad.status, 400);
      assert.equal(bad.headers.get('content-type'), PROTOBUF);
      const status = decodeStatus(Buffer.from(await bad.arrayBuffer()));
      assert.equal(status.code, 3);
      assert.match(status.message ?? '', /^invalid_otlp: /);
    });

    test('refusals are Status messages: unknown address and missing key 401, wrong type 415', async () => {
      const body = JSON.stringify(exportRequest(randomUUID(), ['nobody']));
      const unknown = await post(body, { 'content-type': 'application/json' }, 'nosuch-collector.localhost');
      assert.equal(unknown.status, 401);
      const refusal = (await unknown.json()) as { code: number; message: string };
      assert.equal(refusal.code, 16);
      assert.match(refusal.message, /^ingest_key_required: /);

      const admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.globex)).value));
      const created = await admin.post<{ value: string }>('/v1/ingest-keys', { name: 'otel collector' });
      await admin.request('PUT', '/v1/collector/ingest-key-policy', { body: { require_ingest_key: true } });
      const globex = (headers: Record<string, string>) =>
        post(
          encodeExportRequest(exportRequest('k', ['keyed'])),
          { 'content-type': PROTOBUF, ...headers },
          'globex-collector.localhost',
        );
      const missing = await globex({});
      assert.equal(missing.status, 401);
      assert.match(missing.headers.get('www-authenticate') ?? '', /Bearer/);
      assert.match(decodeStatus(Buffer.from(await missing.arrayBuffer())).message ?? '', /^ingest_key_required: /);
      assert.equal((await globex({ authorization: `Bearer ${created.body.value}` })).status, 200);

      const text = await post('hello', { 'content-type': 'text/plain' });
      assert.equal(text.status, 415);
      assert.equal(((await text.json()) as { code: number }).code, 3);
    });
  });
}
