import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  collectorTarget,
  fluentBitConfig,
  fluentBitOutput,
  forwarderConfigs,
  rsyslogConfig,
  syslogNgConfig,
  vectorConfig,
} from './forwarder-configs.js';

const url = 'https://acme-collector.sightline.example.com';

/** `key value` settings of a Fluent Bit section text, whitespace-normalised. */
function settings(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter((line) => line !== '' && !line.startsWith('['));
}

test('the Fluent Bit output carries every setting of the collector documentation', () => {
  const lines = settings(fluentBitOutput(url));
  // The output: JSON lines without a date key, TLS with certificate and host-name checks,
  // retries, keep-alive.
  for (const expected of [
    'Host acme-collector.sightline.example.com',
    'Port 443',
    'URI /log_sink',
    'Format json_lines',
    'json_date_key false',
    'tls On',
    'tls.verify On',
    'tls.verify_hostname On',
    'Header Content-Type application/json',
    'Retry_Limit no_limits',
    'net.keepalive On',
    'storage.total_limit_size 1024M',
  ]) {
    assert.ok(lines.includes(expected), `${expected} in:\n${lines.join('\n')}`);
  }
  // The input side: flush 5 s, 5 MB input buffer, lines over 32 KB skipped; and what makes it
  // lose nothing: file offsets kept, chunks on disk, bounded retry waits.
  const all = settings(fluentBitConfig(url).files[0]!.text);
  for (const expected of [
    'Flush 5',
    'Mem_Buf_Limit 5MB',
    'Buffer_Chunk_Size 32k',
    'Buffer_Max_Size 32k',
    'Skip_Long_Lines On',
    'Parsers_File parsers_sightline.conf',
    'Parser sightline_json',
    'storage.path /var/lib/fluent-bit/storage/',
    'storage.type filesystem',
    'DB /var/lib/fluent-bit/sightline-tail.db',
    'scheduler.cap 30',
  ]) {
    assert.ok(all.includes(expected), `${expected} in the whole file`);
  }
  assert.match(fluentBitConfig(url).files[1]!.text, /Name\s+sightline_json\n\s+Format\s+json\n/);
});

test("docs/collector.md's Fluent Bit block says what the UI's configuration says", () => {
  const page = fs.readFileSync(new URL('../../../docs/collector.md', import.meta.url), 'utf8');
  const section = page.slice(page.indexOf('## Forwarder configuration'));
  const block = /```ini\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'docs/collector.md has a Fluent Bit block under Forwarder configuration');
  const host = /Host\s+(\S+)/.exec(block)![1]!;
  const ours = settings(fluentBitOutput(`https://${host}`));
  for (const line of settings(block))
    assert.ok(ours.includes(line), `docs/collector.md's "${line}" is in the UI's configuration`);
});

test('every forwarder sends newline-delimited JSON to the tenant collector with TLS verified', () => {
  const configs = forwarderConfigs(url);
  assert.deepEqual(
    configs.map((c) => c.id),
    [
      'fluent-bit',
      'vector',
      'syslog-ng',
      'rsyslog',
      'fluent-bit-es',
      'vector-es',
      'logstash',
      'filebeat',
      'otel-collector',
      'fluent-bit-otlp',
      'fluent-bit-hec',
      'vector-hec',
    ],
  );
  const vector = vectorConfig(url).files[0]!.text;
  assert.match(vector, /uri: https:\/\/acme-collector\.sightline\.example\.com\/log_sink\n/);
  assert.match(vector, /framing:\n\s+method: newline_delimited/);
  assert.match(vector, /verify_certificate: true\n\s+verify_hostname: true/);
  assert.doesNotMatch(vector, /^\s+retry_attempts:/m, 'no retry limit');
  assert.match(vector, /buffer:\n\s+type: disk\n\s+max_size: \d+\n\s+when_full: block/);
  assert.match(vector, /acknowledgements:\n\s+enabled: true/);
  assert.match(vector, /timeout_secs: 5/);
  const syslogNg = syslogNgConfig(url).files[0]!.text;
  assert.match(syslogNg, /url\("https:\/\/acme-collector\.sightline\.example\.com\/log_sink"\)/);
  assert.match(syslogNg, /body\("\$\{MESSAGE\}"\)\n\s+body-suffix\("\\n"\)/);
  assert.match(syslogNg, /tls\(peer-verify\(yes\)\)/);
  assert.match(syslogNg, /retries\(1000000\)/);
  assert.match(syslogNg, /time-reopen\(1\)/);
  assert.match(syslogNg, /disk-buffer\(\n\s+reliable\(yes\)/);
  assert.match(syslogNg, /flags\(flow-control\)/);
  assert.match(syslogNg, /log-iw-size\(10000\)/);
  const rsyslog = rsyslogConfig(url).files[0]!.text;
  assert.match(
    rsyslog,
    /server="acme-collector\.sightline\.example\.com"\n\s+serverport="443"\n\s+restpath="log_sink"\n\s+usehttps="on"/,
  );
  assert.match(rsyslog, /batch\.format="newline"/);
  assert.match(rsyslog, /allowunsignedcerts="off"/);
  assert.match(rsyslog, /action\.resumeRetryCount="-1"/);
  assert.match(rsyslog, /queue\.filename="sightline"/);
  for (const config of configs) assert.match(config.version, /^\d+\.\d+/, `${config.id} names its version`);
  for (const config of configs)
    for (const file of config.files) assert.doesNotMatch(file.text, /undefined|NaN/, `${config.id} is filled in`);
});

test('a plain-HTTP local collector gets its own port and no TLS', () => {
  assert.deepEqual(collectorTarget('http://demo-collector.localhost:8080'), {
    sinkUrl: 'http://demo-collector.localhost:8080/log_sink',
    host: 'demo-collector.localhost',
    port: 8080,
    tls: false,
  });
  const lines = settings(fluentBitOutput('http://demo-collector.localhost:8080'));
  assert.ok(lines.includes('Port 8080') && lines.includes('tls Off'));
  assert.ok(!lines.some((line) => line.startsWith('tls.verify')));
  assert.doesNotMatch(vectorConfig('http://demo-collector.localhost:8080').files[0]!.text, /tls:/);
  assert.doesNotMatch(syslogNgConfig('http://demo-collector.localhost:8080').files[0]!.text, /tls\(/);
  assert.equal(collectorTarget('https://acme-collector.example').port, 443);
});

test('when the tenant requires ingest keys, every forwarder sends one, and none otherwise', () => {
  const [fluentBit, vector, syslog, rsyslog] = forwarderConfigs(url, undefined, true).map((c) => c.files[0]!.text);
  const fluentBitLines = settings(fluentBit!);
  assert.ok(fluentBitLines.includes('http_user sightline'), fluentBit);
  assert.ok(fluentBitLines.includes('http_passwd ${SIGHTLINE_INGEST_KEY}'), fluentBit);
  assert.match(vector!, /auth:\n\s+strategy: bearer\n\s+token: "\$\{SIGHTLINE_INGEST_KEY\}"/);
  assert.match(syslog!, /user\("sightline"\)\n\s+password\("`SIGHTLINE_INGEST_KEY`"\)/);
  assert.match(rsyslog!, /uid="sightline"\n\s+pwd="PASTE_INGEST_KEY_HERE"/);
  for (const config of forwarderConfigs(url, undefined, true))
    assert.ok(
      config.notes.some((note) => /SIGHTLINE_INGEST_KEY|PASTE_INGEST_KEY_HERE/.test(note)),
      `${config.id} says where the key goes`,
    );
  for (const config of forwarderConfigs(url))
    assert.doesNotMatch(config.files[0]!.text, /INGEST_KEY|http_passwd|auth:|password\(|pwd=/, config.id);
});

const syslogNg = spawnSync('syslog-ng', ['--version'], { stdio: 'ignore' }).status === 0;

test('syslog-ng accepts its configuration', { skip: !syslogNg && 'syslog-ng not installed' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-syslog-ng-'));
  try {
    for (const [collector, keyed] of [
      [url, false],
      ['http://demo-collector.localhost:8080', false],
      [url, true],
    ] as const) {
      const file = path.join(dir, 'syslog-ng.conf');
      fs.writeFileSync(
        file,
        `@version: 3.38\n${syslogNgConfig(collector, undefined, undefined, keyed).files[0]!.text}`,
      );
      const result = spawnSync('syslog-ng', ['--syntax-only', '-f', file], {
        encoding: 'utf8',
        env: { ...process.env, SIGHTLINE_INGEST_KEY: 'sli_test' },
      });
      assert.equal(result.status, 0, `syslog-ng --syntax-only: ${result.stderr}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
