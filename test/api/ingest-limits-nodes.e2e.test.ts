// Ingest limits across collector nodes sharing one PostgreSQL database: two servers on the same
// schema each count the other through the heartbeat table, take the limit's rate ÷ 2, and
// together accept about the limit when a sender floods both; a limit set through one applies on
// the other within the reload interval, and a node that stops is counted out.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { closeOpened } from '../helpers/suite.js';
import { apiClient, seedTenant, signIn, type Session } from '../helpers/api.js';
import { appRecord, ndjson } from '../helpers/factories.js';

const postgres = databaseTargets.find((target) => target.kind === 'postgres')!;
const RATE = 50;
const BURST = 10;
const FLOOD_MS = 3_000;

const nodesSeenBy = async (server: TestServer) =>
  Number(/^sightline_collector_nodes (\S+)$/m.exec(await server.metrics())?.[1]);

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what} within ${timeoutMs} ms`);
    await sleep(200);
  }
}

/** Posts 5 records every 25 ms for `ms` (200 records/s, far over the limit); the records accepted. */
async function flood(server: TestServer, ms: number): Promise<number> {
  const end = Date.now() + ms;
  let accepted = 0;
  while (Date.now() < end) {
    const answer = await server.post(ndjson(Array.from({ length: 5 }, () => appRecord({ run: randomUUID() }))), {
      'content-type': 'application/x-ndjson',
      host: 'acme-collector.localhost',
    });
    if (answer.status === 201) accepted += 5;
    else assert.equal(answer.status, 429);
    await sleep(25);
  }
  return accepted;
}

describe('ingest limits across two collector nodes on one PostgreSQL database', { skip: postgres.skip }, () => {
  let database: TestDatabase;
  let first: TestServer;
  let second: TestServer | undefined;
  let operator: Session;

  before(async () => {
    database = await postgres.create();
    first = await startServer(database);
    second = await startServer(database);
    await seedTenant(first, 'acme');
    operator = await signIn(first, { tenant: null, role: 'operator', email: 'operator@platform.example' });
  });
  after(() => closeOpened(second, first, database));

  test('each node takes the rate ÷ live nodes: together they accept about the limit', async () => {
    await until(
      'both nodes count two',
      async () => (await nodesSeenBy(first)) === 2 && (await nodesSeenBy(second!)) === 2,
    );
    const set = await operator.client.request<{ collector_nodes: number }>('PUT', '/v1/tenants/acme/ingest-limits', {
      body: { records_per_second: RATE, records_burst: BURST },
      headers: { 'x-csrf-token': operator.csrf },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.collector_nodes, 2);
    // The second node learns of the limit at its next reload.
    await until('the other node enforces the limit', async () => {
      const status = (
        await second!.post(ndjson([appRecord(), appRecord()].concat(Array(BURST).fill(appRecord()))), {
          'content-type': 'application/x-ndjson',
          host: 'acme-collector.localhost',
        })
      ).status;
      return status === 413;
    });
    await sleep(1_000);

    const began = Date.now();
    const [a, b] = await Promise.all([flood(first, FLOOD_MS), flood(second!, FLOOD_MS)]);
    const seconds = (Date.now() - began) / 1000;
    const allowed = RATE * seconds + 2 * BURST;
    process.stdout.write(
      `# accepted ${a} + ${b} = ${a + b} records in ${seconds.toFixed(1)} s; the limit allows ${allowed.toFixed(0)}, without sharing ${(2 * RATE * seconds + 2 * BURST).toFixed(0)}\n`,
    );
    assert.ok(a + b <= allowed + 10, `accepted ${a + b}, the limit allows ${allowed}`);
    assert.ok(a + b >= RATE * seconds * 0.6, `accepted ${a + b}: the nodes should use most of the limit`);
    assert.ok(a > 0 && b > 0, 'both nodes take their share');
  });

  test('a node that stops is counted out, and the other takes the whole rate', async () => {
    await second?.close();
    second = undefined;
    await until('the remaining node counts one', async () => (await nodesSeenBy(first)) === 1);
    const shown = await apiClient(first, { cookie: operator.cookie }).get<{ collector_nodes: number }>(
      '/v1/tenants/acme/ingest-limits',
    );
    assert.equal(shown.body.collector_nodes, 1);
  });
});
