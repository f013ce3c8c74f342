// `sightline tenant limits` as an operator uses it: the real command against a data directory,
// then the collector of a server started on it refusing what is over the limits, and a change
// the command makes while the server runs reaching its collector within the reload interval.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { appRecord, ndjson } from '../helpers/factories.js';

// SQLite is enough here: the command calls the limits service, which the API suite runs on both.
const sqlite = databaseTargets.find((target) => target.kind === 'sqlite')!;

describe('sightline tenant limits', () => {
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

  const send = async (count: number) =>
    (
      await server!.post(ndjson(Array.from({ length: count }, () => appRecord({ run: randomUUID() }))), {
        'content-type': 'application/x-ndjson',
        host: 'acme-collector.localhost',
      })
    ).status;
  const limits = async (...args: string[]) => {
    const result = await runCli(['tenant', 'limits', 'acme', ...args, ...data]);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };

  test('off by default; set, shown, refused when wrong', async () => {
    assert.deepEqual(await limits(), {
      records_per_second: null,
      records_burst: null,
      bytes_per_second: null,
      bytes_burst: null,
      updated_at: null,
      updated_by: null,
    });
    const set = await limits('--records-per-second', '1', '--records-burst', '5', '--bytes-per-second', '100000');
    assert.deepEqual(
      [set.records_per_second, set.records_burst, set.bytes_per_second, set.bytes_burst, set.updated_by],
      [1, 5, 100000, 100000, 'cli'],
    );
    for (const wrong of [
      ['--records-per-second', 'fast'],
      ['--records-burst', '5'],
      ['--off', '--records-per-second', '5'],
    ]) {
      const refused = await runCli(['tenant', 'limits', 'acme', ...wrong, ...data]);
      assert.equal(refused.code, 1, wrong.join(' '));
      assert.ok(refused.stderr.length > 0);
    }
    assert.equal((await runCli(['tenant', 'limits', 'nobody', ...data])).code, 1);
  });

  test('the collector enforces them, and --off reaches a running server within seconds', async () => {
    server = await startServer(database);
    assert.equal(await send(6), 413);
    assert.equal(await send(5), 201);
    assert.equal(await send(5), 429);
    await limits('--off');
    const deadline = Date.now() + 5_000;
    let status = await send(5);
    while (status !== 201 && Date.now() < deadline) {
      await sleep(200);
      status = await send(5);
    }
    assert.equal(status, 201, 'the limits were lifted within the reload interval');
    assert.equal(await send(500), 201);
  });
});
