// The collector through real HTTP on a real database (SQLite, and PostgreSQL when configured):
// the documented examples and errors, bodies and encodings, tenancy, limits, and back-pressure.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import pg from 'pg';
import { closeOpened } from '../helpers/suite.js';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { appRecord, ndjson, syslogRecord, webAccessRecord } from '../helpers/factories.js';
import type { RecordAsRead as StoredRecord } from '../../src/telemetry/telemetry-service.js';
import { createTenant } from '../../src/identity/tenants/tenant-service.js';
import { findTenantByCodeName } from '../../src/identity/tenants/tenant-store.js';
import { telemetryReader } from '../helpers/storage-ports.js';
import { matchText, readStored } from '../helpers/telemetry.js';

for (const target of databaseTargets) {
  describe(`collector on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;

    before(async () => {
      database = await target.create();
      server = await startServer(database, { maxBodyBytes: '256KiB', maxRecordBytes: '64KiB' });
    });
    after(() => closeOpened(server, database));

    async function stored(codeName = 'demo', text?: string): Promise<StoredRecord[]> {
      const { database: opened } = server.sightline;
      const tenant = await findTenantByCodeName(opened.db, codeName);
      assert.ok(tenant, `tenant ${codeName} exists`);
      return readStored(telemetryReader(opened), tenant.id, text ? matchText(text) : {});
    }

    async function storedMarkers(codeName = 'demo'): Promise<Set<unknown>> {
      return new Set((await stored(codeName)).map((r) => r.record.marker));
    }

    async function problem(response: Response, status: number, code: string) {
      assert.equal(response.status, status);
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body.code, code);
      assert.equal(body.status, status);
      assert.equal(body.type, `urn:sightline:problem:${code}`);
      assert.equal(typeof body.title, 'string');
      assert.equal(typeof body.detail, 'string');
      return body;
    }

    test("the README's example: one JSON object with Content-Type application/json gets 201 and is stored with a receive time", async () => {
      const record = webAccessRecord();
      const before = Date.now();
      const response = await server.post(JSON.stringify(record));
      assert.equal(response.status, 201);
      assert.deepEqual(await response.json(), { accepted: 1 });
      const found = (await stored()).find((r) => r.record.marker === record.marker);
      assert.ok(found, 'the record is stored');
      assert.deepEqual(found.record, record);
      assert.match(found.received_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.ok(Date.parse(found.received_at) >= before - 5 && Date.parse(found.received_at) <= Date.now());
      assert.equal(found.event_time, record.timestamp, "the record's own timestamp is its event time");
    });

    test('NDJSON of mixed families: every record stored in order, event time falls back to the receive time', async () => {
      const records = [webAccessRecord(), syslogRecord(), appRecord(), syslogRecord()];
      const response = await server.post(ndjson(records), { 'content-type': 'application/x-ndjson' });
      assert.equal(response.status, 201);
      assert.deepEqual(await response.json(), { accepted: 4 });
      const all = await stored();
      const mine = all.filter((r) => records.some((x) => x.marker === r.record.marker));
      assert.deepEqual(
        mine.map((r) => r.record.marker),
        records.map((r) => r.marker),
      );
      const app = mine[2]!;
      assert.equal(app.event_time, app.received_at, 'no own time: event time is the receive time');
      assert.equal(mine[1]!.event_time, '2026-11-22T09:00:00.000Z', 'offset times are stored in UTC');
    });

    test('the documented error: a Fluent Bit `Format json` array answers 500 and stores nothing', async () => {
      const records = [webAccessRecord(), webAccessRecord()];
      const body = JSON.stringify(records.map((record) => ({ date: 1763805600.123, ...record })));
      const response = await server.post(body);
      const problemBody = await problem(response, 500, 'forwarder_array_format');
      assert.match(String(problemBody.detail), /Could not add time to JSON/);
      assert.match(String(problemBody.detail), /json_lines/);
      const markers = await storedMarkers();
      for (const record of records) assert.ok(!markers.has(record.marker));
    });

    test('invalid JSON: 400 naming the line; nothing of the request is stored (all or nothing)', async () => {
      const good = [appRecord(), appRecord()];
      const body = `${JSON.stringify(good[0])}\n${JSON.stringify(good[1])}\n{"broken": \n`;
      const problemBody = await problem(await server.post(body), 400, 'invalid_json');
      assert.equal(problemBody.line, 3);
      assert.match(String(problemBody.detail), /^line 3:/);
      const markers = await storedMarkers();
      for (const record of good) assert.ok(!markers.has(record.marker), 'earlier valid lines are not stored');
      const notObject = await problem(
        await server.post(`${JSON.stringify(appRecord())}\n"text"\n`),
        400,
        'not_an_object',
      );
      assert.equal(notObject.line, 2);
    });

    test('content types: JSON, NDJSON, text/plain, none and curl -d form type are read as JSON; others get 415', async () => {
      for (const type of [
        'application/json; charset=utf-8',
        'application/x-ndjson',
        'text/plain',
        'application/x-www-form-urlencoded',
      ]) {
        const response = await server.post(JSON.stringify(appRecord()), { 'content-type': type });
        assert.equal(response.status, 201, type);
      }
      const untyped = await fetch(`${server.baseUrl}/log_sink`, {
        method: 'POST',
        body: new Uint8Array(Buffer.from(JSON.stringify(appRecord()))),
      });
      assert.equal(untyped.status, 201, 'no Content-Type');
      await problem(await server.post('<log/>', { 'content-type': 'application/xml' }), 415, 'unsupported_media_type');
      await problem(
        await server.post('{}', { 'content-type': 'application/json; charset=latin1' }),
        415,
        'unsupported_media_type',
      );
    });

    test('gzip, deflate (zlib and raw) and br bodies are accepted; other encodings get 415; bad data 400', async () => {
      const encodings: [string, (input: Buffer) => Buffer][] = [
        ['gzip', zlib.gzipSync],
        ['deflate', zlib.deflateSync],
        ['deflate', zlib.deflateRawSync],
        ['br', zlib.brotliCompressSync],
      ];
      for (const [encoding, compress] of encodings) {
        const records = [syslogRecord(), syslogRecord()];
        const response = await server.post(compress(Buffer.from(ndjson(records))), {
          'content-type': 'application/x-ndjson',
          'content-encoding': encoding,
        });
        assert.equal(response.status, 201, encoding);
        const markers = await storedMarkers();
        for (const record of records) assert.ok(markers.has(record.marker), `${encoding} record stored`);
      }
      await problem(
        await server.post('{}', { 'content-type': 'application/json', 'content-encoding': 'zstd' }),
        415,
        'unsupported_content_encoding',
      );
      await problem(
        await server.post('not gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' }),
        400,
        'invalid_compressed_body',
      );
    });

    test('limits: a body over the limit, a decompression bomb and a record over the limit all get 413', async () => {
      const big = ndjson(Array.from({ length: 600 }, () => appRecord({ padding: 'x'.repeat(400) })));
      assert.ok(big.length > 256 * 1024);
      const tooLarge = await problem(await server.post(big), 413, 'body_too_large');
      assert.equal(tooLarge.limit_bytes, 256 * 1024);
      // 50 MB of one repeated record compresses to ~100 KB of gzip: under the limit as sent.
      const bomb = zlib.gzipSync(Buffer.from(`${JSON.stringify({ a: 'b'.repeat(100) })}\n`.repeat(400_000)), {
        level: 9,
      });
      assert.ok(bomb.length < 256 * 1024);
      await problem(
        await server.post(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' }),
        413,
        'body_too_large',
      );
      const recordTooLarge = await problem(
        await server.post(`{"a":1}\n${JSON.stringify({ m: 'y'.repeat(70_000) })}\n`),
        413,
        'record_too_large',
      );
      assert.equal(recordTooLarge.line, 2);
      const ready = await fetch(`${server.baseUrl}/readyz`);
      assert.equal(ready.status, 200, 'the server is unharmed');
    });

    test('tenancy: the Host header routes to the tenant; unknown collector 401 (as a keyed tenant answers); other hosts go to the default tenant', async () => {
      await createTenant(server.sightline.database.db, { codeName: 'acme', name: 'Acme Corp' });
      const record = appRecord();
      const toAcme = await server.post(JSON.stringify(record), {
        'content-type': 'application/json',
        host: 'acme-collector.localhost:8080',
      });
      assert.equal(toAcme.status, 201);
      assert.ok((await storedMarkers('acme')).has(record.marker));
      assert.ok(!(await storedMarkers('demo')).has(record.marker), 'not visible to another tenant');

      // Unknown, or not a code name at all: the answer a tenant requiring ingest keys gives.
      const unknown = await problem(
        await server.post('{"a":1}', { 'content-type': 'application/json', host: 'nobody-collector.localhost' }),
        401,
        'ingest_key_required',
      );
      assert.doesNotMatch(String(unknown.detail), /nobody/, 'the answer does not echo the address');

      for (const host of ['x.acme-collector.localhost', 'Bad_Name-collector.localhost', '-collector.localhost']) {
        await problem(
          await server.post('{"a":1}', { 'content-type': 'application/json', host }),
          401,
          'ingest_key_required',
        );
      }

      const other = appRecord();
      assert.equal(
        (await server.post(JSON.stringify(other), { 'content-type': 'application/json', host: 'logs.internal' }))
          .status,
        201,
      );
      assert.ok((await storedMarkers('demo')).has(other.marker));
    });

    test('container-runtime wrappers are unwrapped end to end, stream and time kept as metadata', async () => {
      const inner = appRecord();
      const wrapper = { log: `${JSON.stringify(inner)}\n`, stream: 'stdout', time: '2026-11-22T09:30:00.000000001Z' };
      assert.equal((await server.post(JSON.stringify(wrapper))).status, 201);
      const found = (await stored()).find((r) => r.record.marker === inner.marker);
      assert.ok(found);
      assert.deepEqual(found.record, inner);
      assert.deepEqual(found.meta, { stream: 'stdout', time: '2026-11-22T09:30:00.000000001Z' });
    });

    test('full-text search finds records by their words', async () => {
      const word = `needle${Date.now()}`;
      const record = syslogRecord({ message: `Failed password for root from 192.0.2.7 port 22 ${word}` });
      assert.equal((await server.post(JSON.stringify(record))).status, 201);
      const hits = await stored('demo', `${word} root`);
      assert.deepEqual(
        hits.map((r) => r.record.marker),
        [record.marker],
      );
      assert.deepEqual(await stored('demo', `${word} absentword`), []);
    });

    test('the search index follows the log by itself: its lag returns to 0 without any search', async () => {
      assert.equal(
        (
          await server.post(ndjson(Array.from({ length: 50 }, () => appRecord())), {
            'content-type': 'application/x-ndjson',
          })
        ).status,
        201,
      );
      let lag = Number.NaN;
      for (let attempt = 0; attempt < 50; attempt++) {
        const metrics = await server.metrics();
        lag = Number(/^sightline_search_index_lag_records (\d+)/m.exec(metrics)?.[1]);
        if (lag === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(lag, 0);
    });

    if (target.kind === 'postgres')
      test('a dropped database connection does not take the server down', async () => {
        const schema = new URL(database.databaseUrl).searchParams.get('schema');
        const admin = new pg.Client({ connectionString: process.env.SIGHTLINE_TEST_DATABASE_URL });
        await admin.connect();
        try {
          const killed = await admin.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`,
            [`sightline:${schema}`],
          );
          assert.ok(killed.rowCount && killed.rowCount > 0, 'the server had connections to drop');
        } finally {
          await admin.end();
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
        const record = appRecord();
        // The first use of a dropped connection may fail; a forwarder retries, and so do we, once.
        let response = await server.post(JSON.stringify(record));
        if (response.status !== 201) response = await server.post(JSON.stringify(record));
        assert.equal(response.status, 201);
        assert.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);
      });

    test('other methods on /log_sink get 405 with Allow; unknown paths 404', async () => {
      const get = await fetch(`${server.baseUrl}/log_sink`);
      await problem(get, 405, 'method_not_allowed');
      assert.equal(get.headers.get('allow'), 'POST');
      await problem(await fetch(`${server.baseUrl}/nope`), 404, 'not_found');
    });

    test('healthz, readyz and metrics answer; metrics count records and rejects by reason', async () => {
      assert.deepEqual(await (await fetch(`${server.baseUrl}/healthz`)).json(), { status: 'ok' });
      const ready = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as { status: string };
      assert.equal(ready.status, 'ready');
      const metrics = await server.metrics();
      assert.match(metrics, /^sightline_collector_records_total \d+/m);
      assert.match(metrics, /sightline_collector_rejects_total\{reason="invalid_json"\} \d+/);
      assert.match(metrics, /sightline_record_log_commit_seconds_count \d+/);
      assert.match(metrics, /sightline_http_requests_total\{route="\/log_sink",status="201"\} \d+/);
    });
  });
}
