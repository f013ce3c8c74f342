// The reliability campaign's reproducers, each answered with a 4xx problem body (or, under
// overload, a 503 the client can read) on both databases: input nested deeper than any caller
// needs, numbers that are not finite, framing the HTTP parser refuses, an NDJSON body with an
// array on a later line, senders too slow to finish a request, and bodies refused part-way.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { databaseTargets, holdRecordLogLock } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, type ApiClient } from '../helpers/api.js';
import { startServer } from '../helpers/server.js';
import { appRecord, ndjson } from '../helpers/factories.js';

/** `{"a":{"a":…1…}}`, `depth` levels deep. */
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** Sends raw bytes and reads until the server closes; returns what it sent back and when. */
function rawExchange(port: number, request: string): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, closedAfterMs: performance.now() - started }));
  });
}

/** Waits until `condition` holds (polled every 20 ms), failing after 20 s with what it waited for. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The collector's body bytes being read now, from the Prometheus text. */
function bodyBytes(metrics: string): number {
  const line = /^sightline_collector_body_bytes (\d+)$/m.exec(metrics);
  if (!line) throw new Error('/metrics has no sightline_collector_body_bytes');
  return Number(line[1]);
}

/** A POST with node:http, the way forwarders send: status and Retry-After, or the socket error. */
function postBody(url: string, body: Buffer): Promise<{ status: number; retryAfter?: string; error?: string }> {
  return new Promise((resolve) => {
    const request = http.request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/x-ndjson', 'content-length': body.length } },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            ...(response.headers['retry-after'] ? { retryAfter: response.headers['retry-after'] } : {}),
          }),
        );
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, error: error.code ?? error.message }));
    request.end(body);
  });
}

for (const target of databaseTargets) {
  describe(`robustness on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let api: ApiClient;
    before(async () => {
      api = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme)).value));
    });

    test('JSON nested 5,000 levels deep is a 400 before it is walked, signed in or not', async () => {
      const anonymous = apiClient(suite.server);
      expectProblem(await anonymous.post('/v1/auth/login', deepJson(5_000)), 400, 'nesting_too_deep');
      expectProblem(await api.post('/v1/cases', deepJson(5_000)), 400, 'nesting_too_deep');
      expectProblem(await api.patch('/v1/cases/1', deepJson(4_000)), 400, 'nesting_too_deep');
      // Within the limit the body reaches validation, which names what is wrong with it.
      expectProblem(await api.post('/v1/cases', deepJson(10)), 400, 'invalid_request');
    });

    test('a number that is not finite is a 400 naming the field, wherever it is', async () => {
      for (const path of [
        '/v1/tokens?limit=1e999',
        '/v1/audit-events?limit=Infinity',
        '/v1/devices?limit=1e999',
        '/v1/users?limit=1e999',
        '/v1/cases/1/comments?limit=1e999',
        '/v1/cases/1/history?limit=Infinity',
        '/v1/observations/stats?days=Infinity',
        '/v1/observations/stats?utc_offset_minutes=1e999',
      ]) {
        const problem = expectProblem(await api.get(path), 400, 'invalid_request');
        assert.match(problem.detail, /must be a finite number/, path);
        assert.match(String(problem.field), /^querystring\//, path);
      }
      const body = expectProblem(await api.post('/v1/cases', { track_total: '1e999' }), 400, 'invalid_request');
      assert.equal(body.field, 'body/track_total');
      expectProblem(await api.post('/v1/cases', '{"score_min": 1e999}'), 400, 'invalid_request');
    });

    test('framing the HTTP parser refuses gets a problem body and Connection: close', async () => {
      const { port } = new URL(suite.server.baseUrl);
      const badLength = await rawExchange(
        Number(port),
        'POST /log_sink HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 0x10\r\n\r\n{"a":1}',
      );
      assert.match(badLength.text, /^HTTP\/1\.1 400 /);
      assert.match(badLength.text, /\r\nconnection: close\r\n/i);
      assert.match(badLength.text, /\r\ncontent-type: application\/problem\+json\r\n/i);
      const problem = JSON.parse(badLength.text.slice(badLength.text.indexOf('\r\n\r\n') + 4)) as { code: string };
      assert.equal(problem.code, 'malformed_request');

      const longUrl = await rawExchange(
        Number(port),
        `GET /v1/cases?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      assert.match(longUrl.text, /^HTTP\/1\.1 431 /);
      assert.match(longUrl.text, /"code":"headers_too_large"/);
    });

    test('an NDJSON body whose second line is an array is a 400 for that line; nothing is stored', async () => {
      const before = await suite.server.post('{"probe":"before"}');
      assert.equal(before.status, 201);
      const response = await suite.server.post('{"probe":"mixed"}\n[1]');
      assert.equal(response.status, 400);
      const problem = (await response.json()) as { code: string; line: number };
      assert.equal(problem.code, 'not_an_object');
      assert.equal(problem.line, 2);
      const stored = await suite.server.sightline.database.db
        .selectFrom('telemetry_records')
        .select('record')
        .where('record', 'like', '%mixed%')
        .execute();
      assert.equal(stored.length, 0);
    });
  });
}

describe('slow senders', () => {
  test('a sender too slow with its headers or its body is answered 408 within its timeout', async () => {
    const database = await databaseTargets[0]!.create();
    const server = await startServer(database, { headerTimeout: '1s', requestTimeout: '2s' });
    try {
      const { port } = new URL(server.baseUrl);
      // Headers that never end, and a body that never comes.
      const headers = await rawExchange(Number(port), 'POST /log_sink HTTP/1.1\r\nHost: x\r\n');
      assert.match(headers.text, /^HTTP\/1\.1 408 /);
      assert.match(headers.text, /"code":"request_timeout"/);
      assert.ok(headers.closedAfterMs < 2_000, `closed after ${Math.round(headers.closedAfterMs)} ms`);
      const body = await rawExchange(
        Number(port),
        'POST /log_sink HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":',
      );
      assert.match(body.text, /^HTTP\/1\.1 408 /);
      assert.ok(body.closedAfterMs < 3_000, `closed after ${Math.round(body.closedAfterMs)} ms`);
    } finally {
      await server.close();
      await database.cleanup();
    }
  });
});

for (const target of databaseTargets) {
  describe(`overload on ${target.kind}`, { skip: target.skip }, () => {
    test('under overload a sender reads its 503, whether refused before its body or part-way through it', async () => {
      const database = await target.create();
      const server = await startServer(database, { maxQueueBytes: '4KiB', maxInflightBytes: '64KiB' });
      const url = `${server.baseUrl}/log_sink`;
      const big = Buffer.from(ndjson(Array.from({ length: 2_000 }, () => appRecord({ padding: 'p'.repeat(300) }))));
      try {
        // The queue is full (commits are held): refused before the body is read.
        const release = await holdRecordLogLock(database);
        const filler = Buffer.from(ndjson(Array.from({ length: 40 }, () => appRecord({ padding: 'q'.repeat(200) }))));
        const queued = postBody(url, filler);
        // Until the filler is queued (a fixed pause let a loaded machine admit a big body first,
        // which then waited out the held lock and failed as a storage fault).
        await until(() => server.sightline.queue.overLimit, 'the filler to fill the queue');
        for (const answer of await Promise.all(Array.from({ length: 5 }, () => postBody(url, big)))) {
          assert.equal(answer.error, undefined, `the sender saw ${answer.error ?? ''} instead of an answer`);
          assert.equal(answer.status, 503);
          assert.equal(answer.retryAfter, '1');
        }
        await release();
        assert.equal((await queued).status, 201);

        // Another sender holds most of the in-flight budget: a chunked body (its size unknown in
        // advance) is refused part-way through, and its sender still reads the 503.
        const held = Buffer.from(ndjson(Array.from({ length: 150 }, () => appRecord({ padding: 'h'.repeat(250) }))));
        const slow = http.request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson', 'content-length': held.length },
        });
        const slowAnswer = new Promise<number>((resolve) =>
          slow.on('response', (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          }),
        );
        slow.write(held.subarray(0, held.length - 10));
        await until(
          async () => bodyBytes(await server.metrics()) >= held.length - 10,
          'the collector to hold the slow body',
        );
        const chunked = await new Promise<{ status: number; error?: string }>((resolve) => {
          const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' } });
          request.on('response', (response) => {
            response.resume();
            response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
          });
          request.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, error: error.code ?? '' }));
          for (let i = 0; i < big.length; i += 16_384) request.write(big.subarray(i, i + 16_384));
          request.end();
        });
        assert.equal(chunked.error, undefined, `the sender saw ${chunked.error ?? ''} instead of an answer`);
        assert.equal(chunked.status, 503);
        slow.end(held.subarray(held.length - 10));
        assert.equal(await slowAnswer, 201);
      } finally {
        await server.close();
        await database.cleanup();
      }
    });
  });
}
