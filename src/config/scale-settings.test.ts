import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from './config.js';

const pg = 'postgres://postgres@127.0.0.1:5432/sightline';

test('role defaults to all; a comma list combines roles; unknown roles and all-with-others are refused', () => {
  assert.deepEqual(loadConfig({}, {}).role, ['collector', 'worker', 'api']);
  assert.deepEqual(loadConfig({ role: 'all' }, {}).role, ['collector', 'worker', 'api']);
  const combined = loadConfig({ role: 'collector,api', queue: 'nats://127.0.0.1:4333', databaseUrl: pg }, {});
  assert.deepEqual(combined.role, ['collector', 'api']);
  assert.throws(() => loadConfig({ role: 'collector,reader' }, {}), /--role names an unknown role "reader"/);
  assert.throws(() => loadConfig({ role: 'all,api' }, {}), /--role all already includes every role/);
});

test('split roles need --queue, and --queue needs a postgres:// database: the error names the setting', () => {
  assert.throws(
    () => loadConfig({ role: 'worker', databaseUrl: pg }, {}),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message.includes('--role (SIGHTLINE_ROLE) worker needs --queue (SIGHTLINE_QUEUE)'),
  );
  assert.throws(
    () => loadConfig({ role: 'api', queue: 'nats://127.0.0.1:4333' }, {}),
    /--queue \(SIGHTLINE_QUEUE\) needs --database \(SIGHTLINE_DATABASE_URL\) to be a postgres:\/\/ URL/,
  );
  const config = loadConfig({ queue: 'nats://h1:4222, nats://h2:4222', databaseUrl: pg }, {});
  assert.deepEqual(config.queue, ['nats://h1:4222', 'nats://h2:4222']);
  assert.equal(config.queuePartitions, 16);
});

test('queue URLs must be nats:// or tls:// without credentials; credential and CA files must exist', () => {
  assert.throws(() => loadConfig({ queue: 'http://h1:4222', databaseUrl: pg }, {}), /--queue must be a comma list/);
  assert.throws(
    () => loadConfig({ queue: 'nats://user:secret@h1:4222', databaseUrl: pg }, {}),
    /must not carry credentials/,
  );
  assert.throws(
    () => loadConfig({ queue: 'nats://h1:4222', databaseUrl: pg, queueTlsCa: '/nonexistent/ca.pem' }, {}),
    /--queue-tls-ca \(SIGHTLINE_QUEUE_TLS_CA\) "\/nonexistent\/ca.pem" is not a readable file/,
  );
  assert.throws(() => loadConfig({ queuePartitions: '0' }, {}), /--queue-partitions must be an integer/);
});

test('a worker lease is a minute unless given, from 2 s to an hour', () => {
  assert.equal(loadConfig({}, {}).queueLease, 60_000);
  assert.equal(loadConfig({ queueLease: '4s' }, {}).queueLease, 4_000);
  assert.equal(loadConfig({}, { SIGHTLINE_QUEUE_LEASE: '2m' }).queueLease, 120_000);
  assert.throws(() => loadConfig({ queueLease: '1s' }, {}), /--queue-lease must be a span from 2s to 3600s/);
});
