import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ConfigError, checkListenSafety, isLoopback, loadConfig } from './config.js';

test('defaults: 127.0.0.1:8080, ./data, localhost collector domain, demo default tenant, 10 MiB / 1 MiB limits', () => {
  const config = loadConfig({}, {});
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8080);
  assert.equal(config.dataDir, path.resolve('data'));
  assert.equal(config.baseDomain, 'localhost');
  assert.equal(config.defaultTenant, 'demo');
  assert.equal(config.maxBodyBytes, 10 * 1024 * 1024);
  assert.equal(config.maxRecordBytes, 1024 * 1024);
  assert.equal(config.detectionChunk, 3_000);
});

test('command line beats environment beats default; sizes take units', () => {
  const env = { SIGHTLINE_PORT: '9000', SIGHTLINE_MAX_BODY_BYTES: '2MiB', SIGHTLINE_BASE_DOMAIN: 'Example.COM' };
  const config = loadConfig({ port: '9100' }, env);
  assert.equal(config.port, 9100);
  assert.equal(config.maxBodyBytes, 2 * 1024 * 1024);
  assert.equal(config.baseDomain, 'example.com');
});

test('a bad value stops start-up with an error naming the setting where it came from', () => {
  assert.throws(
    () => loadConfig({}, { SIGHTLINE_PORT: 'eighty' }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /SIGHTLINE_PORT/);
      assert.match(error.message, /"eighty"/);
      return true;
    },
  );
  assert.throws(() => loadConfig({ port: '70000' }, {}), /--port must be an integer/);
  assert.throws(
    () => loadConfig({}, { SIGHTLINE_INSECURE_HTTP: 'maybe' }),
    /SIGHTLINE_INSECURE_HTTP must be true or false/,
  );
  assert.throws(() => loadConfig({}, { SIGHTLINE_DEFAULT_TENANT: 'Not Valid' }), /SIGHTLINE_DEFAULT_TENANT/);
  assert.throws(() => loadConfig({ tlsCert: import.meta.filename }, {}), /--tls-key/);
  assert.throws(() => loadConfig({ maxRecordBytes: '20MiB' }, {}), /--max-record-bytes/);
  assert.throws(
    () => loadConfig({}, { SIGHTLINE_DETECTION_CHUNK: '0' }),
    /SIGHTLINE_DETECTION_CHUNK must be an integer/,
  );
  assert.equal(loadConfig({ detectionChunk: '50' }, {}).detectionChunk, 50);
  assert.throws(
    () => loadConfig({ tlsCert: '/nonexistent/cert.pem', tlsKey: '/nonexistent/key.pem' }, {}),
    /--tls-cert \(SIGHTLINE_TLS_CERT\) "\/nonexistent\/cert.pem" is not a readable file/,
  );
});

test('plain HTTP on a routable address is refused unless --insecure-http or TLS', () => {
  assert.throws(() => checkListenSafety(loadConfig({ host: '0.0.0.0' }, {})), /not a loopback address/);
  assert.doesNotThrow(() => checkListenSafety(loadConfig({ host: '0.0.0.0', insecureHttp: true }, {})));
  const pem = import.meta.filename; // any readable file: only its presence is checked here
  assert.doesNotThrow(() => checkListenSafety(loadConfig({ host: '0.0.0.0', tlsCert: pem, tlsKey: pem }, {})));
  assert.doesNotThrow(() => checkListenSafety(loadConfig({ host: '127.0.0.1' }, {})));
});

test('loopback addresses', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) assert.ok(isLoopback(host), host);
  for (const host of ['0.0.0.0', '10.0.0.1', '::', 'example.com']) assert.ok(!isLoopback(host), host);
});
