import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fluentBitSplunkOutput, hecForwarderConfigs, vectorSplunkHecSink } from './hec-forwarder-configs.js';

const url = 'https://acme-collector.sightline.example.com';

const settings = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter((line) => line !== '' && !line.startsWith('['));

test("Fluent Bit's splunk output: the collector's host, TLS verified, gzip, retries without a limit", () => {
  const lines = settings(fluentBitSplunkOutput(url));
  for (const expected of [
    'Name splunk',
    'Host acme-collector.sightline.example.com',
    'Port 443',
    'compress gzip',
    'tls On',
    'tls.verify On',
    'tls.verify_hostname On',
    'Retry_Limit no_limits',
    'storage.total_limit_size 1024M',
  ]) {
    assert.ok(lines.includes(expected), `${expected} in:\n${lines.join('\n')}`);
  }
  assert.ok(!lines.some((line) => line.startsWith('splunk_token')), 'no token unless keys are required');
  assert.ok(settings(fluentBitSplunkOutput(url, true)).includes('splunk_token ${SIGHTLINE_INGEST_KEY}'));
  assert.ok(settings(fluentBitSplunkOutput('http://demo-collector.localhost:8080')).includes('tls Off'));
});

test("Vector's splunk_hec_logs sink: the collector's origin, JSON events, disk buffer, no indexer acks", () => {
  const sink = vectorSplunkHecSink(url);
  assert.match(sink, /type: splunk_hec_logs\n/);
  assert.match(sink, /endpoint: https:\/\/acme-collector\.sightline\.example\.com:443\n/);
  assert.match(sink, /endpoint_target: event\n/);
  assert.match(sink, /encoding:\n\s+codec: json/);
  assert.match(sink, /indexer_acknowledgements_enabled: false/);
  assert.match(sink, /buffer:\n\s+type: disk\n\s+max_size: \d+\n\s+when_full: block/);
  assert.match(sink, /verify_certificate: true\n\s+verify_hostname: true/);
  assert.doesNotMatch(sink, /^\s+retry_attempts:/m, 'no retry limit');
  assert.match(vectorSplunkHecSink(url, true), /default_token: "\$\{SIGHTLINE_INGEST_KEY\}"/);
  assert.doesNotMatch(vectorSplunkHecSink('http://demo-collector.localhost:8080'), /tls:/);
});

test('both HEC configurations are listed with their versions', () => {
  assert.deepEqual(
    hecForwarderConfigs(url).map((config) => [config.id, config.version]),
    [
      ['fluent-bit-hec', '4.2'],
      ['vector-hec', '0.48'],
    ],
  );
});
