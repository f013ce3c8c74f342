// Telemetry as it arrives, through HTTP on SQLite and PostgreSQL: newest-first pages while
// records keep coming, the live tail (each new matching record exactly once, in stored order,
// none skipped under concurrent writes, late commits or a lagging search index), and matches
// counted per time bucket; all scoped to the caller's tenant.
import { recordSeq } from '../../src/core/record-ids.js';
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { expectProblem, ingest, type ApiClient, type ApiResponse } from '../helpers/api.js';
import type { RecordSearch } from '../helpers/responses.js';
import { apiSuite } from '../helpers/suite.js';
import { drainTail, exportRecords, matchText, searchAll, tail, telemetryReaders } from '../helpers/telemetry.js';
import { appRecord } from '../helpers/factories.js';
import { schemaClient } from '../helpers/postgres.js';
import { catchUpSearchIndex } from '../../src/telemetry/search-index.js';
import type { RecordAsRead as StoredRecord } from '../../src/telemetry/telemetry-service.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import { storagePorts } from '../helpers/storage-ports.js';

/** POST /v1/telemetry/histogram */
interface Histogram {
  total: number;
  interval_ms: number;
  buckets: { start: string; count: number }[];
}

for (const target of databaseTargets) {
  describe(`live telemetry API on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let database: TestDatabase;
    let server: TestServer;
    let acme: Tenant;
    let acmeToken: string;
    let reader: ApiClient;
    let globexReader: ApiClient;

    before(async () => {
      ({ database, server, acme } = suite);
      ({ acmeToken, reader, globexReader } = await telemetryReaders(suite));
    });

    test('order "desc": newest first, pages without gaps or duplicates while records keep arriving', async () => {
      const run = randomUUID();
      const stored: Record<string, unknown>[] = [];
      for (let round = 0; round < 6; round++) {
        const batch = Array.from({ length: 4 }, (_, i) => appRecord({ run, n: round * 4 + i }));
        await ingest(server, batch);
        stored.push(...batch);
        if (round % 2 === 0) await sleep(3);
      }
      const ascending = (await searchAll(reader, { filters: { run } })).records;
      assert.deepEqual(
        ascending.map((r) => r.record.n),
        stored.map((r) => r.n),
      );

      // Page newest first, 5 at a time, while new records arrive: those are newer than the
      // cursor, so they never enter later pages, and nothing is skipped or repeated.
      const seen: StoredRecord[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response: ApiResponse<RecordSearch> = await reader.post('/v1/telemetry/search', {
          filters: { run },
          order: 'desc',
          limit: 5,
          ...(cursor ? { cursor } : {}),
        });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        seen.push(...response.body.records);
        cursor = response.body.next_cursor;
        pages++;
        await ingest(server, [appRecord({ run, n: 100 + pages })]);
      } while (cursor);
      assert.equal(pages, 5);
      assert.deepEqual(
        seen.map((r) => r.record.n),
        [...stored].reverse().map((r) => r.n),
      );
      for (let i = 1; i < seen.length; i++)
        assert.ok(seen[i - 1]!.received_at >= seen[i]!.received_at, 'receive times never increase');

      // The export takes the same order; cursors keep the order they were made for.
      const exported = await (
        await exportRecords(server, acmeToken, { filters: { run }, order: 'desc', max_records: 3 })
      ).text();
      const newest = (await searchAll(reader, { filters: { run }, order: 'desc', limit: 1000 })).records;
      assert.deepEqual(
        exported
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as StoredRecord).id),
        newest.slice(0, 3).map((r) => r.id),
      );
      const desc = await reader.post<RecordSearch>('/v1/telemetry/search', {
        filters: { run },
        order: 'desc',
        limit: 2,
      });
      const asc = await reader.post<RecordSearch>('/v1/telemetry/search', { filters: { run }, limit: 2 });
      expectProblem(
        await reader.post('/v1/telemetry/search', { filters: { run }, cursor: desc.body.next_cursor }),
        400,
        'invalid_cursor',
      );
      expectProblem(
        await reader.post('/v1/telemetry/search', { filters: { run }, order: 'desc', cursor: asc.body.next_cursor }),
        400,
        'invalid_cursor',
      );
      expectProblem(await reader.post('/v1/telemetry/search', { order: 'newest' }), 400, 'invalid_request');
    });

    test('tail: from a search or from now, each new matching record exactly once, in stored order, per tenant', async () => {
      const run = randomUUID();
      await ingest(server, [appRecord({ run, n: 0 })]);
      const search = await reader.post<RecordSearch>('/v1/telemetry/search', { filters: { run }, order: 'desc' });
      assert.equal(search.body.records.length, 1);
      assert.equal(typeof search.body.tail_cursor, 'string');
      const fromNow = await tail(reader, { filters: { run } });
      const globexFromNow = await tail(globexReader, { filters: { run } });
      assert.deepEqual(fromNow.records, [], 'a tail without a position starts at the end');
      assert.equal(fromNow.caught_up, true);

      const arriving = [appRecord({ run, n: 1 }), appRecord({ run, n: 2, level: 'error' }), appRecord({ run, n: 3 })];
      await ingest(server, arriving.slice(0, 2));
      await ingest(server, [appRecord({ run: 'someone else', n: 99 })]);
      await ingest(server, [appRecord({ run, n: 'globex' })], 'globex');
      await ingest(server, arriving.slice(2));

      for (const cursor of [search.body.tail_cursor, fromNow.tail_cursor]) {
        const { records, cursor: end } = await drainTail(
          reader,
          { filters: { run } },
          cursor,
          (found) => found.length >= 3,
        );
        assert.deepEqual(
          records.map((r) => r.record.n),
          [1, 2, 3],
          'new records in stored order, no other run, no other tenant',
        );
        // Ids are opaque; the server (this process) reads their place in the log back.
        const seqOf = (id: string) => recordSeq(id) ?? Number.NaN;
        assert.ok(records.every((r) => seqOf(r.id) > seqOf(search.body.records[0]!.id)));
        const again = await tail(reader, { filters: { run }, tail_cursor: end });
        assert.deepEqual(again.records, [], 'nothing twice');
      }
      // The criteria may change between calls: the cursor is a place in the log.
      const errors = await drainTail(
        reader,
        { filters: { run, level: 'error' } },
        fromNow.tail_cursor,
        (found) => found.length >= 1,
      );
      assert.deepEqual(
        errors.records.map((r) => r.record.n),
        [2],
      );
      // A cursor works only in the tenant it was handed out in; another tenant's own sees its record.
      expectProblem(
        await globexReader.post('/v1/telemetry/tail', { filters: { run }, tail_cursor: fromNow.tail_cursor }),
        400,
        'invalid_cursor',
      );
      const theirs = await drainTail(
        globexReader,
        { filters: { run } },
        globexFromNow.tail_cursor,
        (found) => found.length >= 1,
      );
      assert.deepEqual(
        theirs.records.map((r) => r.record.n),
        ['globex'],
      );
    });

    test('tail under concurrent writes: no record skipped or doubled, with a filter and with a text query', async () => {
      const run = randomUUID();
      const word = `pangolin${Date.now()}`;
      const start = (await tail(reader, { filters: { run } })).tail_cursor;
      const followers = [
        { body: { filters: { run } }, cursor: start, records: [] as StoredRecord[] },
        { body: { query: word }, cursor: start, records: [] as StoredRecord[] },
      ];
      // An object, so the loop below reads the flag the writes clear, not a value narrowed to `true`.
      const state = { writing: true };
      const writes = (async () => {
        try {
          for (let wave = 0; wave < 6; wave++) {
            await Promise.all(
              Array.from({ length: 5 }, (_, i) =>
                ingest(
                  server,
                  Array.from({ length: 10 }, (_, j) =>
                    appRecord({ run, n: (wave * 5 + i) * 10 + j, message: `${word} ${wave}` }),
                  ),
                ),
              ),
            );
            await ingest(server, [appRecord({ run, n: -1, message: `${word} elsewhere` })], 'globex');
          }
        } finally {
          state.writing = false;
        }
      })();
      // Small answers (limit 7) make most reads stop early, so positions land mid-batch.
      while (state.writing) {
        for (const follower of followers) {
          const answer = await tail(reader, { ...follower.body, tail_cursor: follower.cursor, limit: 7 });
          follower.records.push(...answer.records);
          follower.cursor = answer.tail_cursor;
        }
      }
      await writes;
      for (const follower of followers) {
        const rest = await drainTail(
          reader,
          { ...follower.body, limit: 7 },
          follower.cursor,
          (found) => follower.records.length + found.length >= 300,
        );
        const all = [...follower.records, ...rest.records];
        const numbers = all.map((r) => r.record.n as number);
        assert.equal(
          new Set(all.map((r) => r.id)).size,
          all.length,
          `${JSON.stringify(follower.body)}: no record twice`,
        );
        assert.deepEqual(
          [...numbers].sort((a, b) => a - b),
          Array.from({ length: 300 }, (_, i) => i),
          `${JSON.stringify(follower.body)}: every record once`,
        );
        const ids = all.map((r) => recordSeq(r.id) ?? Number.NaN);
        if (target.kind === 'sqlite')
          assert.deepEqual(
            ids,
            [...ids].sort((a, b) => a - b),
            'stored order',
          );
      }
    });

    test('tail with a text query waits for the search index instead of skipping what it has not indexed', async () => {
      const { db, kind } = server.sightline.database;
      const { tail } = storagePorts(server.sightline.database).telemetry;
      const word = `tapir${Date.now()}`;
      await sleep(50);
      const from = await tail.end(db);
      const now = Date.now();
      // Written behind the writer's back: no indexer has seen them.
      const inserted = await db
        .insertInto('telemetry_records')
        .values(
          Array.from({ length: 5 }, (_, i) => ({
            tenant_id: acme.id,
            received_at: now,
            event_time: now,
            record: JSON.stringify(appRecord({ message: `${word} ${i}` })),
            meta: null,
          })),
        )
        .returning('seq')
        .execute();
      const early = await tail.read(db, acme.id, matchText(word), from, { limit: 100, scan: 10_000 });
      if (kind === 'sqlite') {
        assert.deepEqual(early.rows, [], 'unindexed records are not matched yet');
        assert.ok(early.position.seq < inserted[0]!.seq, 'and the position stays before them');
      }
      await catchUpSearchIndex(storagePorts(server.sightline.database).searchIndex);
      const later = await tail.read(db, acme.id, matchText(word), early.position, { limit: 100, scan: 10_000 });
      const seqs = [...early.rows, ...later.rows].map((row) => row.seq);
      assert.deepEqual(
        seqs,
        inserted.map((row) => row.seq),
        'each found once, once indexed',
      );
    });

    test(
      'tail never skips a record whose transaction commits after later ones, nor repeats what a search showed (PostgreSQL)',
      { skip: target.kind === 'sqlite' ? 'SQLite has one writer: sequences commit in order' : false },
      async () => {
        const run = randomUUID();
        const start = (await tail(reader, { filters: { run } })).tail_cursor;
        const client = await schemaClient(database.databaseUrl);
        try {
          await client.query('BEGIN');
          await client.query(
            'INSERT INTO telemetry_records (tenant_id, received_at, event_time, record) VALUES ($1, $2, $2, $3)',
            [acme.id, Date.now(), JSON.stringify({ run, n: 'late' })],
          );
          await ingest(server, [appRecord({ run, n: 'early' })]);
          // The open transaction is older than 'early' and holds a lower sequence.
          const held = await drainTail(reader, { filters: { run } }, start, (found) => found.length >= 1);
          assert.deepEqual(
            held.records.map((r) => r.record.n),
            ['early'],
            'a committed record is not held back by an older transaction still running',
          );
          const search = await reader.post<RecordSearch>('/v1/telemetry/search', { filters: { run } });
          assert.deepEqual(
            search.body.records.map((r) => r.record.n),
            ['early'],
          );
          await client.query('COMMIT');
          for (const cursor of [held.cursor, search.body.tail_cursor]) {
            const late = await drainTail(reader, { filters: { run } }, cursor, (found) => found.length >= 1);
            assert.deepEqual(
              late.records.map((r) => r.record.n),
              ['late'],
              'the late one once it commits, and not again what was already shown',
            );
            const again = await tail(reader, { filters: { run }, tail_cursor: late.cursor });
            assert.deepEqual(again.records, [], 'nothing twice');
          }
        } finally {
          await client.end();
        }
      },
    );

    test('tail limits: at most `limit` records per answer, bad cursors and limits are 400', async () => {
      const run = randomUUID();
      const start = (await tail(reader, {})).tail_cursor;
      await ingest(
        server,
        Array.from({ length: 12 }, (_, n) => appRecord({ run, n })),
      );
      const first = await tail(reader, { filters: { run }, tail_cursor: start, limit: 5 });
      if (first.records.length === 5) assert.equal(first.caught_up, false, 'stopped at the limit: call again at once');
      assert.ok(first.records.length <= 5);
      const rest = await drainTail(
        reader,
        { filters: { run }, limit: 5 },
        first.tail_cursor,
        (found) => first.records.length + found.length >= 12,
      );
      assert.deepEqual(
        [...first.records, ...rest.records].map((r) => r.record.n),
        Array.from({ length: 12 }, (_, n) => n),
      );

      expectProblem(await reader.post('/v1/telemetry/tail', { limit: 1001 }), 400, 'invalid_request');
      expectProblem(await reader.post('/v1/telemetry/tail', { limit: 0 }), 400, 'invalid_request');
      assert.equal(
        expectProblem(await reader.post('/v1/telemetry/tail', { tail_cursor: 'nope' }), 400, 'invalid_cursor').field,
        'tail_cursor',
      );
      const pageCursor = (await reader.post<RecordSearch>('/v1/telemetry/search', { filters: { run }, limit: 1 })).body
        .next_cursor;
      expectProblem(await reader.post('/v1/telemetry/tail', { tail_cursor: pageCursor }), 400, 'invalid_cursor');
      expectProblem(await reader.post('/v1/telemetry/search', { cursor: start }), 400, 'invalid_cursor');
      expectProblem(await reader.post('/v1/telemetry/tail', { filters: { 'a..b': 1 } }), 400, 'invalid_request');
      expectProblem(
        await reader.post('/v1/telemetry/tail', { tail_cursor: start, cursor: start }),
        400,
        'invalid_request',
      );
    });

    test('histogram: matches per round, UTC-aligned bucket over the range, with text and field filters', async () => {
      const run = randomUUID();
      const word = `axolotl${Date.now()}`;
      const since = new Date(Date.now() - 1_000).toISOString();
      await ingest(server, [appRecord({ run, message: `${word} one` }), appRecord({ run, level: 'error' })]);
      await ingest(server, [appRecord({ run, message: `${word} two`, level: 'error' })]);
      const until = new Date(Date.now() + 1_000).toISOString();
      const count = async (body: Record<string, unknown>) => {
        const response = await reader.post<Histogram>('/v1/telemetry/histogram', { since, until, ...body });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        return response.body;
      };
      const all = await count({ filters: { run }, buckets: 10 });
      assert.equal(all.total, 3);
      assert.equal(all.interval_ms, 1_000, 'about 2 s in at most 10 buckets: the smallest width, 1 s');
      assert.ok(all.buckets.length <= 10);
      assert.equal(
        all.buckets.reduce((sum, b) => sum + b.count, 0),
        3,
      );
      for (const bucket of all.buckets)
        assert.equal(Date.parse(bucket.start) % all.interval_ms, 0, 'aligned to the width');
      assert.equal((await count({ query: word })).total, 2);
      assert.equal((await count({ query: word, filters: { level: 'error' } })).total, 1);
      assert.equal((await count({ filters: { run, level: 'error' } })).total, 2);
      const wide = await reader.post<Histogram>('/v1/telemetry/histogram', {
        since: new Date(Date.now() - 7 * 86_400_000).toISOString(),
        filters: { run },
      });
      assert.equal(wide.body.total, 3);
      assert.equal(wide.body.interval_ms, 3 * 3_600_000, '7 days in at most 60 buckets: 3 h');
      assert.equal(
        (await globexReader.post<Histogram>('/v1/telemetry/histogram', { since, until, filters: { run } })).body.total,
        0,
        'per tenant',
      );

      expectProblem(await reader.post('/v1/telemetry/histogram', {}), 400, 'invalid_request');
      expectProblem(
        await reader.post('/v1/telemetry/histogram', { since: until, until: since }),
        400,
        'invalid_request',
      );
      expectProblem(await reader.post('/v1/telemetry/histogram', { since, buckets: 1 }), 400, 'invalid_request');
      expectProblem(await reader.post('/v1/telemetry/histogram', { since, buckets: 201 }), 400, 'invalid_request');
    });
  });
}
