// Searching and exporting telemetry through HTTP, on SQLite and PostgreSQL: records posted to
// the collector, read back by time range, text and field filters, page by page and as an NDJSON
// stream; scoped to the caller's tenant; text search sees what was just acknowledged. Newest
// first, the live tail and the histogram: telemetry-live-api.e2e.test.ts.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { apiClient, bearer, expectProblem, ingest, issueToken, type ApiClient } from '../helpers/api.js';
import type { OpenApiDocument, RecordSearch } from '../helpers/responses.js';
import { apiSuite } from '../helpers/suite.js';
import { exportRecords, searchAll, telemetryReaders } from '../helpers/telemetry.js';
import { appRecord, webAccessRecord } from '../helpers/factories.js';
import { searchIndexLag } from '../../src/telemetry/telemetry-store.js';
import type { RecordAsRead as StoredRecord } from '../../src/telemetry/telemetry-service.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';

for (const target of databaseTargets) {
  describe(`telemetry API on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let server: TestServer;
    let acme: Tenant;
    let acmeToken: string;
    let reader: ApiClient;
    let globexReader: ApiClient;

    before(async () => {
      ({ server, acme } = suite);
      ({ acmeToken, reader, globexReader } = await telemetryReaders(suite));
    });

    test('since (inclusive) and until (exclusive) select records by receive time; until must be later', async () => {
      const run = randomUUID();
      const early = [appRecord({ run }), appRecord({ run })];
      await ingest(server, early);
      await sleep(5);
      const late = [appRecord({ run })];
      await ingest(server, late);

      const all = (await searchAll(reader, { filters: { run } })).records;
      assert.deepEqual(
        all.map((r) => r.record.marker),
        [...early, ...late].map((r) => r.marker),
      );
      const lateTime = all[2]!.received_at;
      assert.ok(Date.parse(lateTime) > Date.parse(all[1]!.received_at));

      const from = (await searchAll(reader, { filters: { run }, since: lateTime })).records;
      assert.deepEqual(
        from.map((r) => r.record.marker),
        [late[0]!.marker],
      );
      const before = (await searchAll(reader, { filters: { run }, until: lateTime })).records;
      assert.deepEqual(
        before.map((r) => r.record.marker),
        early.map((r) => r.marker),
      );

      const reversed = await reader.post('/v1/telemetry/search', { since: lateTime, until: all[0]!.received_at });
      assert.equal(expectProblem(reversed, 400, 'invalid_request').field, 'until');
      expectProblem(await reader.post('/v1/telemetry/search', { since: 'yesterday' }), 400, 'invalid_request');
    });

    test('query: every word must occur, case-insensitively', async () => {
      const run = randomUUID();
      const word = `quokka${Date.now()}`;
      const both = appRecord({ run, message: `${word} payment DECLINED for order` });
      const one = appRecord({ run, message: `${word} payment accepted` });
      await ingest(server, [both, one, appRecord({ run })]);
      const found = (await searchAll(reader, { query: `${word.toUpperCase()} declined` })).records;
      assert.deepEqual(
        found.map((r) => r.record.marker),
        [both.marker],
      );
      const either = (await searchAll(reader, { query: `  ${word}  payment ` })).records;
      assert.deepEqual(
        either.map((r) => r.record.marker),
        [both.marker, one.marker],
      );
      const blank = (await searchAll(reader, { query: '   ', filters: { run } })).records;
      assert.equal(blank.length, 3, 'a blank query matches everything');
    });

    test('field filters: strict JSON-type equality on dotted paths, all filters must hold', async () => {
      const run = randomUUID();
      const lines = {
        number500: {
          run,
          id: 'number500',
          http: { status: 500, method: 'POST' },
          kubernetes: { namespace: 'prod' },
          cached: true,
          user: null,
        },
        string500: {
          run,
          id: 'string500',
          http: { status: '500', method: 'POST' },
          kubernetes: { namespace: 'prod' },
          cached: 'true',
        },
        real500: `{"run":"${run}","id":"real500","http":{"status":500.0},"kubernetes":{"namespace":"staging"},"cached":false}`,
        arrays: { run, id: 'arrays', http: [{ status: 500 }], tags: ['prod'], kubernetes: { namespace: ['prod'] } },
        dotted: { run, id: 'dotted', 'http.status': 500, 'a b': { 'ü-x': 'yes' } },
      };
      await ingest(server, Object.values(lines));
      const ids = async (filters: Record<string, unknown>) =>
        (await searchAll(reader, { filters: { run, ...filters } })).records.map((r) => r.record.id);

      assert.deepEqual(
        await ids({ 'http.status': 500 }),
        ['number500', 'real500'],
        'numbers compare as numbers, never as strings',
      );
      assert.deepEqual(await ids({ 'http.status': '500' }), ['string500']);
      assert.deepEqual(
        await ids({ 'kubernetes.namespace': 'prod' }),
        ['number500', 'string500'],
        'array elements are not matched',
      );
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
        const problem = expectProblem(
          await reader.post('/v1/telemetry/search', { filters: { [path]: 1 } }),
          400,
          'invalid_request',
        );
        assert.equal(problem.field, 'filters');
        assert.equal(problem.filter, path);
        assert.ok(problem.detail.includes(JSON.stringify(path)), problem.detail);
      }
      const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, i]));
      expectProblem(await reader.post('/v1/telemetry/search', { filters: many }), 400, 'invalid_request');
      expectProblem(await reader.post('/v1/telemetry/search', { filters: { a: { b: 1 } } }), 400, 'invalid_request');
      assert.equal(
        expectProblem(await reader.post('/v1/telemetry/search', { filters: { a: [1] } }), 400, 'invalid_request')
          .filter,
        'a',
      );
      expectProblem(await reader.post('/v1/telemetry/search', { limit: 1001 }), 400, 'invalid_request');
      expectProblem(await reader.post('/v1/telemetry/search', { limit: 0 }), 400, 'invalid_request');
      const cursor = expectProblem(
        await reader.post('/v1/telemetry/search', { cursor: 'not-a-cursor' }),
        400,
        'invalid_cursor',
      );
      assert.equal(cursor.field, 'cursor');
    });

    test('pagination returns every record exactly once, in log order, and ends without an empty page', async () => {
      const run = randomUUID();
      const records = Array.from({ length: 21 }, () => webAccessRecord({ run }));
      await ingest(server, records.slice(0, 10));
      await ingest(server, records.slice(10));
      const { records: found, pages } = await searchAll(reader, { filters: { run }, limit: 7 });
      assert.equal(pages, 3);
      assert.deepEqual(
        found.map((r) => r.record.marker),
        records.map((r) => r.marker),
      );
      assert.equal(new Set(found.map((r) => r.id)).size, 21);
      const first = await reader.post<RecordSearch>('/v1/telemetry/search', { filters: { run } });
      assert.equal(first.body.records.length, 21);
      assert.equal(first.body.next_cursor, null);
      const record = first.body.records[0]!;
      assert.deepEqual(Object.keys(record).sort(), ['event_time', 'id', 'received_at', 'record']);
      assert.deepEqual(record.record, records[0]);
    });

    test("tenants are isolated: another tenant's token never sees these records", async () => {
      const run = randomUUID();
      const word = `wombat${Date.now()}`;
      await ingest(server, [appRecord({ run, message: word })]);
      await ingest(server, [appRecord({ run, message: word })], 'globex');
      const mine = (await searchAll(reader, { filters: { run } })).records;
      const theirs = (await searchAll(globexReader, { filters: { run } })).records;
      assert.equal(mine.length, 1);
      assert.equal(theirs.length, 1);
      assert.notEqual(mine[0]!.id, theirs[0]!.id);
      assert.equal((await searchAll(globexReader, { query: word })).records.length, 1);
      const exported = await (await exportRecords(server, acmeToken, { query: word })).text();
      assert.equal(exported.trim().split('\n').length, 1);
    });

    test('without telemetry:read every endpoint answers 403 naming the permission', async () => {
      const token = (await issueToken(server, acme, ['cases:read'])).value;
      const client = apiClient(server, bearer(token));
      assert.equal(
        expectProblem(await client.post('/v1/telemetry/search', {}), 403, 'permission_denied').required_permission,
        'telemetry:read',
      );
      assert.equal(
        expectProblem(await client.post('/v1/telemetry/tail', {}), 403, 'permission_denied').required_permission,
        'telemetry:read',
      );
      const histogram = await client.post('/v1/telemetry/histogram', {
        since: new Date(Date.now() - 60_000).toISOString(),
      });
      assert.equal(expectProblem(histogram, 403, 'permission_denied').required_permission, 'telemetry:read');
      const exported = await exportRecords(server, token, {});
      assert.equal(exported.status, 403);
      assert.equal(((await exported.json()) as { required_permission: string }).required_permission, 'telemetry:read');
      assert.equal((await apiClient(server).post('/v1/telemetry/search', {})).status, 401);
    });

    test('export streams NDJSON over several pages, stops at max_records, and reports errors before streaming as problems', async () => {
      const run = randomUUID();
      const records = Array.from({ length: 4203 }, (_, i) => appRecord({ run, n: i }));
      await ingest(server, records);
      const response = await exportRecords(server, acmeToken, { filters: { run } });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/x-ndjson/);
      const text = await response.text();
      assert.ok(text.endsWith('\n'));
      const lines = text
        .slice(0, -1)
        .split('\n')
        .map((line) => JSON.parse(line) as StoredRecord);
      assert.equal(lines.length, 4203);
      assert.deepEqual(
        lines.map((r) => r.record.n),
        records.map((r) => r.n),
      );
      assert.equal(new Set(lines.map((r) => r.id)).size, 4203);

      const capped = await (await exportRecords(server, acmeToken, { filters: { run }, max_records: 10 })).text();
      assert.equal(capped.trim().split('\n').length, 10);
      const none = await exportRecords(server, acmeToken, { filters: { run, n: -1 } });
      assert.equal(none.status, 200);
      assert.equal(await none.text(), '');

      const bad = await exportRecords(server, acmeToken, { filters: { 'a..b': 1 } });
      assert.equal(bad.status, 400);
      assert.match(bad.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(((await bad.json()) as { code: string }).code, 'invalid_request');
    });

    test('the OpenAPI document describes every operation, the export as application/x-ndjson', async () => {
      const spec = (await reader.get<OpenApiDocument>('/v1/openapi.json')).body;
      const search = spec.paths['/v1/telemetry/search']!.post!;
      const exported = spec.paths['/v1/telemetry/export']!.post!;
      assert.deepEqual(search.tags, ['Telemetry']);
      assert.ok(search.responses['200']!.content!['application/json']);
      assert.ok(search.requestBody!.content['application/json']!.schema!.properties!.order);
      for (const path of ['/v1/telemetry/tail', '/v1/telemetry/histogram']) {
        const operation = spec.paths[path]!.post!;
        assert.deepEqual(operation.tags, ['Telemetry']);
        assert.match(operation.description!, /telemetry:read/);
        assert.ok(operation.responses['200']!.content!['application/json']!.schema);
      }
      const tail = spec.paths['/v1/telemetry/tail']!.post!.responses['200']!.content!['application/json']!.schema!;
      assert.deepEqual(Object.keys(tail.properties!).sort(), ['caught_up', 'records', 'tail_cursor']);
      assert.ok(exported.responses['200']!.content!['application/x-ndjson']!.schema);
      assert.ok(exported.responses['400'] && exported.responses['403']);
      assert.match(exported.description!, /telemetry:read/);
    });

    test('read-your-writes: a text search right after a 201 finds the records it acknowledged', async () => {
      for (let round = 0; round < 5; round++) {
        const word = `narwhal${round}x${Date.now()}`;
        const batch = Array.from({ length: 300 }, (_, i) => appRecord({ message: `${word} ${i}` }));
        await ingest(server, batch);
        const found = (await searchAll(reader, { query: word, limit: 1000 })).records;
        assert.equal(found.length, 300, `round ${round}`);
      }
    });

    test('a text search never waits long for a lagging index: it says what it covers, and finds the rest soon after', async () => {
      const { db } = server.sightline.database;
      const word = `okapi${Date.now()}`;
      const expected = [0, 4000, 8000, 12000, 16000].map((i) => `${word} ${i}`);
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
      for (let i = 0; i < rows.length; i += 1000)
        await db
          .insertInto('telemetry_records')
          .values(rows.slice(i, i + 1000))
          .execute();
      if (target.kind === 'sqlite') assert.ok((await searchIndexLag(db)) > 0, 'nothing indexed them yet');

      const started = performance.now();
      const first = await reader.post<RecordSearch>('/v1/telemetry/search', { query: word, limit: 1000 });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.ok(performance.now() - started < 5_000, 'the search answered without waiting for the whole index');
      if (first.body.partial) {
        // What it covers ends at or before the records not yet indexed; the index is written in
        // arrival order, so what it found is the first of the matching records, never a gap.
        assert.ok(Date.parse(first.body.complete_up_to ?? '') <= now, JSON.stringify(first.body.complete_up_to));
        const messages = first.body.records.map((r) => r.record.message);
        assert.deepEqual(messages, expected.slice(0, messages.length));
      } else {
        assert.equal(first.body.complete_up_to, undefined);
        assert.equal(first.body.records.length, 5);
      }
      // A field condition never reads the text index, so it is never partial.
      const fields = await reader.post<RecordSearch>('/v1/telemetry/search', { query: 'level:info', limit: 1 });
      assert.equal(fields.body.partial, false);

      // Asked again (searchAll does, while partial), every record is found once the index has them.
      const found = (await searchAll(reader, { query: word })).records;
      assert.deepEqual(
        found.map((r) => r.record.message),
        expected,
      );
    });

    test('records PostgreSQL cannot read as jsonb never break a filtered search', async () => {
      const run = randomUUID();
      const unreadable = [
        `{"run":"${run}","id":"nul","s":"a\\u0000b"}`,
        `{"run":"${run}","id":"lone-surrogate","s":"\\ud800x"}`,
        `{"run":"${run}","id":"huge-number","n":1e140000}`,
      ];
      const readable = [
        `{"run":"${run}","id":"emoji","s":"\\ud83d\\ude00"}`,
        `{"run":"${run}","id":"hex","s":"3fe12345"}`,
      ];
      await ingest(server, [...unreadable, ...readable]);
      const filtered = (await searchAll(reader, { filters: { run } })).records.map((r) => r.record.id);
      assert.deepEqual(
        filtered,
        target.kind === 'postgres' ? ['emoji', 'hex'] : ['nul', 'lone-surrogate', 'huge-number', 'emoji', 'hex'],
      );
      const exported = await exportRecords(server, acmeToken, { filters: { run } });
      assert.equal(exported.status, 200);
      // Unfiltered reads find them all, on either database.
      const since = (await searchAll(reader, { filters: { run, id: 'emoji' } })).records[0]!.received_at;
      const all = (await searchAll(reader, { since })).records.filter((r) => r.record.run === run);
      assert.equal(all.length, 5);
    });
  });
}
