// `sightline ingest-key` and `tenant set --require-ingest-key` as an operator uses them: the real
// command against a data directory, then the collector of a server started on it refusing and
// accepting records by those keys.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { appRecord, ndjson } from '../helpers/factories.js';
import { bearer, basic } from '../helpers/api.js';

// SQLite is enough here: the commands call the ingest key service, which the API suite runs on
// both dialects.
const sqlite = databaseTargets.find((target) => target.kind === 'sqlite')!;

describe('sightline ingest-key', () => {
  let database: TestDatabase;
  let data: string[];
  let server: TestServer | undefined;

  before(async () => {
    database = await sqlite.create();
    data = ['--data', database.dataDir];
    assert.equal((await runCli(['tenant', 'create', 'acme', ...data])).code, 0);
  });

  after(async () => {
    await server?.close();
    await database.cleanup();
  });

  const send = async (headers: Record<string, string> = {}) =>
    (
      await server!.post(ndjson([appRecord({ run: randomUUID() })]), {
        'content-type': 'application/x-ndjson',
        host: 'acme-collector.localhost',
        ...headers,
      })
    ).status;

  test('create prints the key alone on stdout; the requirement needs a key; the collector then takes only it', async () => {
    const early = await runCli(['tenant', 'set', 'acme', '--require-ingest-key', 'on', ...data]);
    assert.equal(early.code, 1);
    assert.match(early.stderr, /no ingest key/);

    const created = await runCli(['ingest-key', 'create', '--tenant', 'acme', '--name', 'web tier', ...data]);
    assert.equal(created.code, 0, created.stderr);
    const value = created.stdout.trim();
    assert.match(value, /^sli_[0-9A-Za-z]{36}$/);
    assert.match(created.stderr, /shown this once/);
    assert.ok(!created.stderr.includes(value), 'the key is on stdout only');

    const listed = await runCli(['ingest-key', 'list', '--tenant', 'acme', '--json', ...data]);
    assert.equal(listed.code, 0, listed.stderr);
    const keys = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; name: string; prefix: string });
    assert.deepEqual(
      keys.map((k) => [k.name, k.prefix]),
      [['web tier', `${value.slice(0, 8)}…`]],
    );
    assert.ok(!listed.stdout.includes(value), 'the list never shows the key');

    const on = await runCli(['tenant', 'set', 'acme', '--require-ingest-key', 'on', ...data]);
    assert.equal(on.code, 0, on.stderr);
    assert.equal((JSON.parse(on.stdout) as { require_ingest_key: boolean }).require_ingest_key, true);

    server = await startServer(database);
    assert.equal(await send(), 401);
    assert.equal(await send(bearer(value)), 201);
    assert.equal(await send(basic(value, 'fluent-bit')), 201);

    const deleted = await runCli(['ingest-key', 'delete', keys[0]!.id, '--tenant', 'acme', ...data]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /deleted ingest key ikey_\w+ "web tier"/);
    const after = await runCli(['ingest-key', 'list', '--tenant', 'acme', ...data]);
    assert.equal(after.stdout, '');
    const missing = await runCli(['ingest-key', 'delete', keys[0]!.id, '--tenant', 'acme', ...data]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no ingest key/);

    const off = await runCli(['tenant', 'set', 'acme', '--require-ingest-key', 'off', ...data]);
    assert.equal((JSON.parse(off.stdout) as { require_ingest_key: boolean }).require_ingest_key, false);
    const wrong = await runCli(['tenant', 'set', 'acme', '--require-ingest-key', 'maybe', ...data]);
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /--require-ingest-key must be on or off/);
  });
});
