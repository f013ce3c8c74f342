// Several API nodes on one PostgreSQL database agree (docs/scale.md, Stateless API nodes): two real
// `sightline serve` processes on the same schema, each request sent to one or the other as a load
// balancer would. Failed attempts counted on one node lock out on the other (per address and per
// account), an ingest key or a token deleted through one stops opening the other within the
// documented bound, a session made on one is valid on the other, and a live tail on one sees
// records ingested through the other.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets, tempDir, type TestDatabase } from '../helpers/databases.js';
import { freePort, spawnSightline, stopChild, waitReady, type Child } from '../helpers/processes.js';
import { runCli } from '../helpers/cli.js';
import { httpPost } from '../helpers/server.js';
import { webAccessRecord } from '../helpers/factories.js';

const postgres = databaseTargets.find((target) => target.kind === 'postgres');
const PASSWORD = 'a long enough test password';

interface Node {
  base: string;
  child: Child;
}

async function startNode(database: TestDatabase, extra: string[] = []): Promise<Node> {
  const port = await freePort();
  const child = spawnSightline([
    'serve',
    '--database',
    database.databaseUrl,
    '--data',
    tempDir(),
    '--port',
    String(port),
    '--log-level',
    'warn',
    '--auth-max-failures',
    '3',
    '--trust-proxy',
    '127.0.0.1',
    ...extra,
  ]);
  const base = `http://127.0.0.1:${port}`;
  await waitReady(child, `${base}/readyz`, 60_000);
  return { base, child };
}

interface Answer<T> {
  status: number;
  body: T;
  headers: Headers;
}

async function call<T = Record<string, unknown>>(
  node: Node,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const response = await fetch(`${node.base}${path}`, {
    method,
    headers: { ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T, headers: response.headers };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const from = (address: string) => ({ 'x-forwarded-for': address });

function sendRecords(node: Node, records: Record<string, unknown>[], key?: string): Promise<Response> {
  return httpPost(`${node.base}/log_sink`, records.map((record) => JSON.stringify(record)).join('\n') + '\n', {
    'content-type': 'application/x-ndjson',
    host: 'acme-collector.localhost',
    ...(key ? bearer(key) : {}),
  });
}

async function cli(database: TestDatabase, args: string[], input?: string): Promise<string> {
  const result = await runCli([...args, '--database', database.databaseUrl, '--data', database.dataDir], {}, input);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.trim().split('\n').at(-1) ?? '';
}

describe('API nodes sharing one PostgreSQL database', { skip: postgres?.skip ?? 'no PostgreSQL' }, () => {
  let database: TestDatabase;
  let a: Node;
  let b: Node;
  let token: string;

  before(async () => {
    database = await postgres!.create();
    await cli(database, ['tenant', 'create', 'acme']);
    token = await cli(database, ['token', 'create', '--tenant', 'acme', '--name', 'nodes', '--permissions', 'all']);
    await cli(
      database,
      ['user', 'create', '--tenant', 'acme', '--email', 'ana@acme.example', '--role', 'admin', '--password-stdin'],
      PASSWORD,
    );
    a = await startNode(database);
    b = await startNode(database, ['--detection', 'off']);
  });
  after(async () => {
    await Promise.all([a, b].filter(Boolean).map((node) => stopChild(node.child)));
    await database.cleanup();
  });

  test('failed attempts from one address on node A count on node B', async () => {
    const guess = { email: 'nobody@acme.example', password: 'wrong wrong wrong' };
    for (const node of [a, b, a]) {
      const answer = await call(node, 'POST', '/v1/auth/login', { body: guess, headers: from('198.51.100.7') });
      assert.equal(answer.status, 401, JSON.stringify(answer.body));
    }
    const locked = await call(b, 'POST', '/v1/auth/login', { body: guess, headers: from('198.51.100.7') });
    assert.equal(locked.status, 429, JSON.stringify(locked.body));
    assert.equal(locked.body.code, 'too_many_failed_attempts');
    // Guessed tokens from the same address are refused on either node; a known token still works.
    const tokenGuess = await call(a, 'GET', '/v1/me', {
      headers: { ...bearer('slt_guess9'), ...from('198.51.100.7') },
    });
    assert.equal(tokenGuess.status, 429);
    const known = await call(b, 'GET', '/v1/me', { headers: { ...bearer(token), ...from('198.51.100.7') } });
    assert.equal(known.status, 200);
  });

  test('a concurrent burst of wrong passwords over both nodes gets no more tries than the limit', async () => {
    const guess = { email: 'burst@acme.example', password: 'guess guess guess' };
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(i % 2 ? b : a, 'POST', '/v1/auth/login', { body: guess, headers: from('198.51.100.99') }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    // Three counted at the address; a locked-out address gets at most one guess at an account
    // nobody was failing at yet (docs/security.md, Accounts and sign-in), which one of the refused requests
    // can take when it reaches the account before the three counted ones do.
    const guesses = statuses.filter((status) => status === 401).length;
    assert.ok(guesses >= 3 && guesses <= 4, statuses.join(','));
    assert.equal(statuses.filter((status) => status === 429).length, 40 - guesses, statuses.join(','));
  });

  test("an account's failed sign-ins from many addresses, spread over both nodes, make it wait", async () => {
    const guess = { email: 'ana@acme.example', password: 'not her password' };
    for (let i = 0; i < 5; i++) {
      const answer = await call(i % 2 ? b : a, 'POST', '/v1/auth/login', {
        body: guess,
        headers: from(`203.0.113.${i}`),
      });
      assert.equal(answer.status, 401, JSON.stringify(answer.body));
    }
    const waiting = await call(b, 'POST', '/v1/auth/login', { body: guess, headers: from('203.0.113.99') });
    assert.equal(waiting.status, 429, JSON.stringify(waiting.body));
    assert.match(String(waiting.body.detail), /for this account/);
    assert.ok(Number(waiting.headers.get('retry-after')) >= 1);
  });

  test('a session made on node A is valid on node B, and ends on both', async () => {
    const login = await call<{ csrf_token: string }>(b, 'POST', '/v1/auth/login', {
      body: { email: 'ana@acme.example', password: PASSWORD },
      headers: from('192.0.2.50'),
    });
    // The account's run of failures above makes it wait a second or so: retry until admitted.
    let answer = login;
    for (let i = 0; answer.status === 429 && i < 40; i++) {
      await sleep(Number(answer.headers.get('retry-after') ?? '1') * 1000);
      answer = await call(a, 'POST', '/v1/auth/login', {
        body: { email: 'ana@acme.example', password: PASSWORD },
        headers: from('192.0.2.50'),
      });
    }
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0]!;
    assert.equal((await call(b, 'GET', '/v1/me', { headers: { cookie } })).status, 200);
    const out = await call(b, 'POST', '/v1/auth/logout', {
      headers: { cookie, 'x-csrf-token': answer.body.csrf_token },
    });
    assert.ok(out.status < 300, JSON.stringify(out.body));
    assert.equal((await call(a, 'GET', '/v1/me', { headers: { cookie } })).status, 401);
  });

  test('an ingest key deleted through node A stops opening node B within 2 s', async (t) => {
    const created = await call<{ ingest_key: { id: string }; value: string }>(a, 'POST', '/v1/ingest-keys', {
      body: { name: 'web tier' },
      headers: bearer(token),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const policy = await call(a, 'PUT', '/v1/collector/ingest-key-policy', {
      body: { require_ingest_key: true },
      headers: bearer(token),
    });
    assert.equal(policy.status, 200, JSON.stringify(policy.body));
    // Node B learns of the new key and the policy within the bound too, and then holds them.
    let refusedWithout = false;
    for (let i = 0; i < 40 && !refusedWithout; i++) {
      refusedWithout = (await sendRecords(b, [webAccessRecord()])).status === 401;
      if (!refusedWithout) await sleep(100);
    }
    assert.ok(refusedWithout, 'node B requires a key once node A turned the requirement on');
    assert.equal((await sendRecords(b, [webAccessRecord()], created.body.value)).status, 201);

    const deleted = await call(a, 'DELETE', `/v1/ingest-keys/${created.body.ingest_key.id}`, {
      headers: bearer(token),
    });
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    const started = Date.now();
    let status = 201;
    while (status === 201 && Date.now() - started < 5_000) {
      status = (await sendRecords(b, [webAccessRecord()], created.body.value)).status;
      if (status === 201) await sleep(50);
    }
    const elapsed = Date.now() - started;
    assert.equal(status, 401);
    assert.ok(elapsed <= 2_000, `node B refused the deleted key after ${elapsed} ms`);
    t.diagnostic(`node B refused the deleted key ${elapsed} ms after node A deleted it`);
    await call(a, 'PUT', '/v1/collector/ingest-key-policy', {
      body: { require_ingest_key: false },
      headers: bearer(token),
    });
  });

  test('a token deleted through node A stops working on node B at once', async () => {
    const made = await call<{ token: { id: string }; value: string }>(a, 'POST', '/v1/tokens', {
      body: { name: 'short-lived', permissions: ['telemetry:read'] },
      headers: bearer(token),
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal((await call(b, 'GET', '/v1/me', { headers: bearer(made.body.value) })).status, 200);
    const deleted = await call(a, 'DELETE', `/v1/tokens/${made.body.token.id}`, { headers: bearer(token) });
    assert.ok(deleted.status < 300, JSON.stringify(deleted.body));
    const after = await call(b, 'GET', '/v1/me', { headers: bearer(made.body.value) });
    assert.equal(after.status, 401);
    assert.equal(after.body.code, 'token_revoked');
  });

  test('a live tail on node B sees the records ingested through node A, each once, in order', async () => {
    const run = `tail-${Date.now()}`;
    const start = await call<{ tail_cursor: string }>(b, 'POST', '/v1/telemetry/tail', {
      body: { filters: { run } },
      headers: bearer(token),
    });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    for (let i = 0; i < 3; i++) {
      const sent = await sendRecords(
        a,
        [0, 1, 2, 3].map((n) => webAccessRecord({ run, n: i * 4 + n })),
      );
      assert.equal(sent.status, 201);
    }
    let cursor = start.body.tail_cursor;
    const seen: number[] = [];
    const deadline = Date.now() + 15_000;
    while (seen.length < 12 && Date.now() < deadline) {
      const page = await call<{ records: { record: { n: number } }[]; tail_cursor: string }>(
        b,
        'POST',
        '/v1/telemetry/tail',
        {
          body: { filters: { run }, tail_cursor: cursor },
          headers: bearer(token),
        },
      );
      assert.equal(page.status, 200, JSON.stringify(page.body));
      seen.push(...page.body.records.map((item) => item.record.n));
      cursor = page.body.tail_cursor;
      if (seen.length < 12) await sleep(100);
    }
    assert.deepEqual(
      seen,
      Array.from({ length: 12 }, (_, n) => n),
    );
  });
});
