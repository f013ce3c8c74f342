import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { fluentBitOtlpConfig, otelCollectorConfig, otlpLogsEndpoint } from './otlp-forwarder-configs.js';

const url = 'https://acme-collector.sightline.example.com';

interface Exporter {
  logs_endpoint: string;
  encoding: string;
  headers?: Record<string, string>;
  retry_on_failure: { max_elapsed_time: number };
  sending_queue: { storage: string };
}

test('the OpenTelemetry Collector exports to the tenant endpoint, retrying without a limit from a disk queue', () => {
  for (const encoding of ['proto', 'json'] as const) {
    const config = parse(otelCollectorConfig(url, { encoding }).files[0]!.text) as {
      exporters: Record<string, Exporter>;
      service: { pipelines: { logs: { exporters: string[] } } };
    };
    const exporter = config.exporters['otlphttp/sightline']!;
    assert.equal(exporter.logs_endpoint, 'https://acme-collector.sightline.example.com/v1/logs');
    assert.equal(exporter.encoding, encoding);
    assert.equal(exporter.retry_on_failure.max_elapsed_time, 0);
    assert.equal(exporter.sending_queue.storage, 'file_storage');
    assert.equal(exporter.headers, undefined);
    assert.deepEqual(config.service.pipelines.logs.exporters, ['otlphttp/sightline']);
  }
  const keyed = parse(otelCollectorConfig(url, { keyed: true }).files[0]!.text) as {
    exporters: Record<string, Exporter>;
  };
  assert.deepEqual(keyed.exporters['otlphttp/sightline']!.headers, {
    authorization: 'Bearer ${env:SIGHTLINE_INGEST_KEY}',
  });
});

test("Fluent Bit's opentelemetry output sends each line as the body to /v1/logs, the key only when required", () => {
  const text = fluentBitOtlpConfig(url).files[0]!.text;
  for (const line of [
    /Name\s+opentelemetry/,
    /Host\s+acme-collector\.sightline\.example\.com/,
    /Port\s+443/,
    /Logs_uri\s+\/v1\/logs/,
    /Logs_body_key\s+log/,
    /tls\.verify\s+On/,
    /Retry_Limit\s+no_limits/,
  ])
    assert.match(text, line);
  assert.doesNotMatch(text, /Authorization/);
  assert.match(
    fluentBitOtlpConfig(url, { keyed: true }).files[0]!.text,
    /Header\s+Authorization Bearer \$\{SIGHTLINE_INGEST_KEY\}/,
  );
  assert.equal(otlpLogsEndpoint('http://127.0.0.1:8080'), 'http://127.0.0.1:8080/v1/logs');
});
