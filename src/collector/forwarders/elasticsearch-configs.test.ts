import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  elasticsearchOutputConfigs,
  filebeatConfig,
  fluentBitEsConfig,
  logstashConfig,
  vectorEsConfig,
} from './elasticsearch-configs.js';

const url = 'https://acme-collector.sightline.example.com';
const logPath = '/var/log/app/*.log';
const text = (config: { files: { text: string }[] }) => config.files[0]!.text;

test('each Elasticsearch output sends to the collector address with TLS verified and retries without a limit', () => {
  const fluentBit = text(fluentBitEsConfig(url));
  for (const setting of [/Name\s+es\n/, /Host\s+acme-collector\.sightline\.example\.com\n/, /Port\s+443\n/])
    assert.match(fluentBit, setting);
  assert.match(fluentBit, /Suppress_Type_Name\s+On\n/, 'no mapping type: Elasticsearch 8 refuses it');
  assert.match(fluentBit, /tls\.verify\s+On\n/);
  assert.match(fluentBit, /Retry_Limit\s+no_limits\n/);

  const vector = text(vectorEsConfig(url));
  assert.match(vector, /type: elasticsearch\n/);
  assert.match(vector, /endpoints:\n\s+- https:\/\/acme-collector\.sightline\.example\.com\n/);
  assert.match(vector, /api_version: v8\n/);
  assert.match(vector, /verify_certificate: true/);
  assert.doesNotMatch(vector, /retry_attempts/);

  const logstash = text(logstashConfig(url, logPath));
  assert.match(logstash, /hosts => \["https:\/\/acme-collector\.sightline\.example\.com"\]/);
  assert.match(logstash, /manage_template => false\n\s+ilm_enabled => false\n\s+data_stream => false/);
  assert.match(logstash, /ssl_verification_mode => "full"/);

  const filebeat = text(filebeatConfig(url, logPath));
  assert.match(filebeat, /output\.elasticsearch:\n\s+hosts: \["https:\/\/acme-collector\.sightline\.example\.com"\]/);
  assert.match(filebeat, /setup\.template\.enabled: false\nsetup\.ilm\.enabled: false/);
  assert.match(filebeat, /ssl\.verification_mode: full/);
  assert.match(filebeat, /- \/var\/log\/app\/\*\.log/);
});

test('a plain-HTTP collector gets no TLS settings', () => {
  for (const config of elasticsearchOutputConfigs('http://demo-collector.localhost:8080', logPath)) {
    assert.doesNotMatch(text(config), /tls\.verify|ssl|verify_certificate|tls On/, config.id);
    assert.doesNotMatch(text(config), /undefined|NaN/, config.id);
  }
  assert.match(text(fluentBitEsConfig('http://demo-collector.localhost:8080')), /Port\s+8080\n/);
  assert.match(
    text(filebeatConfig('http://demo-collector.localhost:8080', logPath)),
    /"http:\/\/demo-collector\.localhost:8080"/,
  );
});

test('the ingest key goes as the HTTP Basic password from the environment, only when required', () => {
  const [fluentBit, vector, logstash, filebeat] = elasticsearchOutputConfigs(url, logPath, true).map(text);
  assert.match(fluentBit!, /HTTP_Passwd\s+\$\{SIGHTLINE_INGEST_KEY\}\n/);
  assert.match(vector!, /auth:\n\s+strategy: basic\n\s+user: sightline\n\s+password: "\$\{SIGHTLINE_INGEST_KEY\}"/);
  assert.match(logstash!, /password => "\$\{SIGHTLINE_INGEST_KEY\}"/);
  assert.match(filebeat!, /password: "\$\{SIGHTLINE_INGEST_KEY\}"/);
  for (const config of elasticsearchOutputConfigs(url, logPath))
    assert.doesNotMatch(text(config), /INGEST_KEY|Passwd|password|auth:/, config.id);
});
