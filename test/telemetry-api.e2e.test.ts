// Searching and exporting telemetry through HTTP, on SQLite and PostgreSQL: records posted to
// the collector, read back by time range, text and field filters, page by page and as an NDJSON
// stream; scoped to the caller's tenant; text search sees what was just acknowledged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets, type TestDatabase } from './helpers/databases.js';
import { startServer, type TestServer } from './helpers/server.js';
import { apiClient, bearer, issueToken, seedTenant, type ApiClient } from './helpers/api.js';
import { appRecord, ndjson, webAccessRecord } from './helpers/factories.js';
import { searchIndexLag } from '../src/telemetry/telemetry-store.js';
import type { StoredRecord } from '../src/telemetry/telemetry-service.js';
import type { Tenant } from '../src/identity/tenant-service.js';

for (const target of databaseTargets) {
  describe(`telemetry API on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let acme: Tenant;
    let acmeToken: string;
    let reader: ApiClient;
    let globexReader: ApiClient;

    before(async () => {
      database = await target.create();
      server = await startServer(database);
      acme = await seedTenant(server, 'acme');
      const globex = await seedTenant(server, 'globex');
      acmeToken = (await issueToken(server, acme, ['telemetry:read'])).value;
      reader = apiClient(server, bearer(acmeToken));
      globexReader = apiClient(server, bearer((await issueToken(server, globex, ['telemetry:read'])).value));
    });
    after(async () => {
      await server.close();
      await database.cleanup();
    });

    /** Posts NDJSON lines (objects, or raw JSON text) to a tenant's collector. */
    async function ingest(lines: (Record<string, unknown> | string)[], codeName = 'acme'): Promise<void> {
      const body = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n';
      const response = await server.post(body, { 'content-type': 'application/x-ndjson', host: `${codeName}-collector.localhost` });
      assert.equal(response.status, 201, await response.text());
    }

    /** Every record of a search, following next_cursor; also returns how many pages it took. */
    async function searchAll(client: ApiClient, body: Record<string, unknown>): Promise<{ records: StoredRecord[]; pages: number }> {
      const records: StoredRecord[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await client.post('/v1/telemetry/search', { ...body, ...(cursor ? { cursor } : {}) });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        records.push(...(response.body.records as StoredRecord[]));
        cursor = response.body.next_cursor;
        pages++;
      } while (cursor);
      return { records, pages };
    }

    async function exportRecords(token: string, body: unknown): Promise<Response> {
      return fetch(`${server.baseUrl}/v1/telemetry/export`, {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    }

    function expectProblem(response: { status: number; headers: Headers; body: Record<string, unknown> }, status: number, code: string) {
      assert.equal(response.status, status, JSON.stringify(response.body));
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(response.body.code, code);
      return response.body;
    }

    test('since (inclusive) and until (exclusive) select records by receive time; until must be later', async () => {
      const run = randomUUID();
      const early = [appRecord({ run }), appRecord({ run })];
      await ingest(early);
      await sleep(5);
      const late = [appRecord({ run })];
      await ingest(late);

      const all = (await searchAll(reader, { filters: { run } })).records;
      assert.deepEqual(all.map((r) => r.record.marker), [...early, ...late].map((r) => r.marker));
      const lateTime = all[2]!.received_at;
      assert.ok(Date.parse(lateTime) > Date.parse(all[1]!.received_at));

      const from = (await searchAll(reader, { filters: { run }, since: lateTime })).records;
      assert.deepEqual(from.map((r) => r.record.marker), [late[0]!.marker]);
      const before = (await searchAll(reader, { filters: { run }, until: lateTime })).records;
      assert.deepEqual(before.map((r) => r.record.marker), early.map((r) => r.marker));

      const reversed = await reader.post('/v1/telemetry/search', { since: lateTime, until: all[0]!.received_at });
      assert.equal(expectProblem(reversed, 400, 'invalid_request').field, 'until');
      expectProblem(await reader.post('/v1/telemetry/search', { since: 'yesterday' }), 400, 'invalid_request');
    });

    test('query: every word must occur, case-insensitively', async () => {
      const run = randomUUID();
      const word = `quokka${Date.now()}`;
      const both = appRecord({ run, message: `${word} payment DECLINED for order` });
      const one = appRecord({ run, message: `${word} payment accepted` });
      await ingest([both, one, appRecord({ run })]);
      const found = (await searchAll(reader, { query: `${word.toUpperCase()} declined` })).records;
      assert.deepEqual(found.map((r) => r.record.marker), [both.marker]);
      const either = (await searchAll(reader, { query: `  ${word}  payment ` })).records;
      assert.deepEqual(either.map((r) => r.record.marker), [both.marker, one.marker]);
      const blank = (await searchAll(reader, { query: '   ', filters: { run } })).records;
      assert.equal(blank.length, 3, 'a blank query matches everything');
    });

    test('field filters: strict JSON-type equality on dotted paths, all filters must hold', async () => {
      const run = randomUUID();
      const lines = {
        number500: { run, id: 'number500', http: { status: 500, method: 'POST' }, kubernetes: { namespace: 'prod' }, cached: true, user: null },
        string500: { run, id: 'string500', http: { status: '500', method: 'POST' }, kubernetes: { namespace: 'prod' }, cached: 'true' },
        real500: `{"run":"${run}","id":"real500","http":{"status":500.0},"kubernetes":{"namespace":"staging"},"cached":false}`,
        arrays: { run, id: 'arrays', http: [{ status: 500 }], tags: ['prod'], kubernetes: { namespace: ['prod'] } },
        dotted: { run, id: 'dotted', 'http.status': 500, 'a b': { 'ü-x': 'yes' } },
      };
      await ingest(Object.values(lines));
      const ids = async (filters: Record<string, unknown>) => (await searchAll(reader, { filters: { run, ...filters } })).records.map((r) => r.record.id);

      assert.deepEqual(await ids({ 'http.status': 500 }), ['number500', 'real500'], 'numbers compare as numbers, never as strings');
      assert.deepEqual(await ids({ 'http.status': '500' }), ['string500']);
      assert.deepEqual(await ids({ 'kubernetes.namespace': 'prod' }), ['number500', 'string500'], 'array elements are not matched');
      assert.deepEqual(await ids({ 'http.status': 500, 'kubernetes.namespace': 'prod' }), ['number500']);
      assert.deepEqual(await ids({ cached: true }), ['number500']);
      assert.deepEqual(await ids({ cached: false }), ['real500']);
      assert.deepEqual(await ids({ cached: 'true' }), ['string500']);
      assert.deepEqual(await ids({ user: null }), ['number500'], 'null matches an explicit null, not a missing field');
      assert.deepEqual(await ids({ 'tags.0': 'prod' }), []);
      assert.deepEqual(await ids({ 'a b.ü-x': 'yes' }), ['dotted'], 'any key without a dot can be named');
      assert.deepEqual(await ids({ http: 'x', 'http.status': 500 }), [], 'contradictory filters match nothing');
      assert.deepEqual(await ids({ 'http.method': 'POST', 'http.status': 500 }), ['number500']);
    });

    test('bad filters are 400 naming the field; limits are enforced', async () => {
      for (const path of ['a..b', '.a', 'a.', 'a"b', 'a\\b', 'tab\there', 'x'.repeat(257)]) {
        const problem = expectProblem(await reader.post('/v1/telemetry/search', { filters: { [path]: 1 } }), 400, 'invalid_request');
        assert.equal(problem.field, 'filters');
        assert.equal(problem.filter, path);
        assert.ok(String(problem.detail).includes(JSON.stringify(path)), String(problem.detail));
      }
      const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, i]));
      expectProblem(await reader.post('/v1/telemetry/search', { filters: many }), 400, 'invalid_request');
      expectProblem(await reader.post('/v1/telemetry/search', { filters: { a: { b: 1 } } }), 400, 'invalid_request');
      assert.equal(expectProblem(await reader.post('/v1/telemetry/search', { filters: { a: [1] } }), 400, 'invalid_request').filter, 'a');
      expectProblem(await reader.post('/v1/telemetry/search', { limit: 1001 }), 400, 'invalid_request');
      expectProblem(await reader.post('/v1/telemetry/search', { limit: 0 }), 400, 'invalid_request');
      const cursor = expectProblem(await reader.post('/v1/telemetry/search', { cursor: 'not-a-cursor' }), 400, 'invalid_cursor');
      assert.equal(cursor.field, 'cursor');
    });

    test('pagination returns every record exactly once, in log order, and ends without an empty page', async () => {
      const run = randomUUID();
      const records = Array.from({ length: 21 }, () => webAccessRecord({ run }));
      await ingest(records.slice(0, 10));
      await ingest(records.slice(10));
      const { records: found, pages } = await searchAll(reader, { filters: { run }, limit: 7 });
      assert.equal(pages, 3);
      assert.deepEqual(found.map((r) => r.record.marker), records.map((r) => r.marker));
      assert.equal(new Set(found.map((r) => r.id)).size, 21);
      const first = await reader.post('/v1/telemetry/search', { filters: { run } });
      assert.equal(first.body.records.length, 21);
      assert.equal(first.body.next_cursor, null);
      const record = first.body.records[0] as StoredRecord;
      assert.deepEqual(Object.keys(record).sort(), ['event_time', 'id', 'received_at', 'record']);
      assert.deepEqual(record.record, records[0]);
    });

    test("tenants are isolated: another tenant's token never sees these records", async () => {
      const run = randomUUID();
      const word = `wombat${Date.now()}`;
      await ingest([appRecord({ run, message: word })]);
      await ingest([appRecord({ run, message: word })], 'globex');
      const mine = (await searchAll(reader, { filters: { run } })).records;
      const theirs = (await searchAll(globexReader, { filters: { run } })).records;
      assert.equal(mine.length, 1);
      assert.equal(theirs.length, 1);
      assert.notEqual(mine[0]!.id, theirs[0]!.id);
      assert.equal((await searchAll(globexReader, { query: word })).records.length, 1);
      const exported = await (await exportRecords(acmeToken, { query: word })).text();
      assert.equal(exported.trim().split('\n').length, 1);
    });

    test('without telemetry:read both endpoints answer 403 naming the permission', async () => {
      const token = (await issueToken(server, acme, ['cases:read'])).value;
      const client = apiClient(server, bearer(token));
      assert.equal(expectProblem(await client.post('/v1/telemetry/search', {}), 403, 'permission_denied').required_permission, 'telemetry:read');
      const exported = await exportRecords(token, {});
      assert.equal(exported.status, 403);
      assert.equal(((await exported.json()) as { required_permission: string }).required_permission, 'telemetry:read');
      assert.equal((await apiClient(server).post('/v1/telemetry/search', {})).status, 401);
    });

    test('export streams NDJSON over several pages, stops at max_records, and reports errors before streaming as problems', async () => {
      const run = randomUUID();
      const records = Array.from({ length: 1203 }, (_, i) => appRecord({ run, n: i }));
      await ingest(records);
      const response = await exportRecords(acmeToken, { filters: { run } });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/x-ndjson/);
      const text = await response.text();
      assert.ok(text.endsWith('\n'));
      const lines = text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as StoredRecord);
      assert.equal(lines.length, 1203);
      assert.deepEqual(lines.map((r) => r.record.n), records.map((r) => r.n));
      assert.equal(new Set(lines.map((r) => r.id)).size, 1203);

      const capped = await (await exportRecords(acmeToken, { filters: { run }, max_records: 10 })).text();
      assert.equal(capped.trim().split('\n').length, 10);
      const none = await exportRecords(acmeToken, { filters: { run, n: -1 } });
      assert.equal(none.status, 200);
      assert.equal(await none.text(), '');

      const bad = await exportRecords(acmeToken, { filters: { 'a..b': 1 } });
      assert.equal(bad.status, 400);
      assert.match(bad.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(((await bad.json()) as { code: string }).code, 'invalid_request');
    });

    test('the OpenAPI document describes both operations, the export as application/x-ndjson', async () => {
      const spec = (await reader.get('/v1/openapi.json')).body;
      const search = spec.paths['/v1/telemetry/search'].post;
      const exported = spec.paths['/v1/telemetry/export'].post;
      assert.deepEqual(search.tags, ['Telemetry']);
      assert.ok(search.responses['200'].content['application/json']);
      assert.ok(exported.responses['200'].content['application/x-ndjson'].schema);
      assert.ok(exported.responses['400'] && exported.responses['403']);
      assert.match(exported.description, /telemetry:read/);
    });

    test('read-your-writes: a text search right after a 201 finds the records it acknowledged', async () => {
      for (let round = 0; round < 5; round++) {
        const word = `narwhal${round}x${Date.now()}`;
        const batch = Array.from({ length: 300 }, (_, i) => appRecord({ message: `${word} ${i}` }));
        await ingest(batch);
        const found = (await searchAll(reader, { query: word, limit: 1000 })).records;
        assert.equal(found.length, 300, `round ${round}`);
      }
    });

    test('a text search first indexes records no indexer has seen yet', async () => {
      const { db } = server.sightline.database;
      const word = `okapi${Date.now()}`;
      // Let the writer's own background indexing settle, then write behind its back.
      await sleep(50);
      const now = Date.now();
      const rows = Array.from({ length: 20_000 }, (_, i) => ({
        tenant_id: acme.id,
        received_at: now,
        event_time: now,
        record: JSON.stringify(appRecord({ message: i % 4000 === 0 ? `${word} ${i}` : `filler ${i}` })),
        meta: null,
      }));
      for (let i = 0; i < rows.length; i += 1000) await db.insertInto('telemetry_records').values(rows.slice(i, i + 1000)).execute();
      if (target.kind === 'sqlite') assert.ok((await searchIndexLag(db)) > 0, 'nothing indexed them yet');

      // On SQLite the writer thread indexes: the event loop keeps turning meanwhile.
      let longestStall = 0;
      let last = performance.now();
      const ticker = setInterval(() => {
        const now = performance.now();
        longestStall = Math.max(longestStall, now - last);
        last = now;
      }, 1);
      try {
        const found = (await searchAll(reader, { query: word })).records;
        assert.deepEqual(found.map((r) => r.record.message), [0, 4000, 8000, 12000, 16000].map((i) => `${word} ${i}`));
      } finally {
        clearInterval(ticker);
      }
      assert.equal(await searchIndexLag(db), 0);
      assert.ok(longestStall < 150, `the event loop stalled for ${Math.round(longestStall)} ms`);
    });

    test('records PostgreSQL cannot read as jsonb never break a filtered search', async () => {
      const run = randomUUID();
      const unreadable = [
        `{"run":"${run}","id":"nul","s":"a\\u0000b"}`,
        `{"run":"${run}","id":"lone-surrogate","s":"\\ud800x"}`,
        `{"run":"${run}","id":"huge-number","n":1e140000}`,
      ];
      const readable = [`{"run":"${run}","id":"emoji","s":"\\ud83d\\ude00"}`, `{"run":"${run}","id":"hex","s":"3fe12345"}`];
      await ingest([...unreadable, ...readable]);
      const filtered = (await searchAll(reader, { filters: { run } })).records.map((r) => r.record.id);
      assert.deepEqual(filtered, target.kind === 'postgres' ? ['emoji', 'hex'] : ['nul', 'lone-surrogate', 'huge-number', 'emoji', 'hex']);
      const exported = await exportRecords(acmeToken, { filters: { run } });
      assert.equal(exported.status, 200);
      // Unfiltered reads find them all, on either database.
      const since = (await searchAll(reader, { filters: { run, id: 'emoji' } })).records[0]!.received_at;
      const all = (await searchAll(reader, { since })).records.filter((r) => r.record.run === run);
      assert.equal(all.length, 5);
    });
  });
}
