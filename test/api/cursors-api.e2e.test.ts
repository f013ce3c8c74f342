// List, search and tail cursors through real HTTP on SQLite and PostgreSQL: a cursor shows its
// holder nothing of the position it carries (the record log's sequences and times are
// platform-wide), works only unchanged and only in the tenant it was handed out in.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, ingest, issueToken, type ApiClient } from '../helpers/api.js';
import type { Page, RecordSearch } from '../helpers/responses.js';
import type { ApiToken } from '../../src/identity/tokens/token-service.js';

/** The cursor's bytes as text: what a holder decoding it as base64 would see. */
const decoded = (cursor: string) => Buffer.from(cursor, 'base64url').toString('latin1');

for (const target of databaseTargets) {
  describe(`cursors on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let acme: ApiClient;
    let acmeAgain: ApiClient;
    let globex: ApiClient;
    const run = randomUUID();
    before(async () => {
      acme = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme)).value));
      acmeAgain = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme)).value));
      globex = apiClient(suite.server, bearer((await issueToken(suite.server, suite.globex)).value));
      for (let i = 0; i < 3; i++) await issueToken(suite.server, suite.globex, ['cases:read'], { name: `g ${i}` });
      // Other tenants' traffic between acme's records: it moves the platform-wide sequences.
      await ingest(suite.server, [
        { run, n: 1 },
        { run, n: 2 },
      ]);
      await ingest(
        suite.server,
        Array.from({ length: 40 }, (_, n) => ({ run, n })),
        'globex',
      );
      await ingest(suite.server, [
        { run, n: 3 },
        { run, n: 4 },
      ]);
    });

    const search = (client: ApiClient, body: Record<string, unknown>) =>
      client.post<RecordSearch>('/v1/telemetry/search', { filters: { run }, limit: 1, ...body });

    test('a search cursor carries no sequence or time a holder could read', async () => {
      const first = await search(acme, {});
      assert.equal(first.status, 200, JSON.stringify(first.body));
      const cursor = first.body.next_cursor;
      assert.ok(cursor);
      const { db } = suite.server.sightline.database;
      const rows = await db
        .selectFrom('telemetry_records')
        .select(['seq', 'received_at'])
        .where('tenant_id', '=', suite.acme.id)
        .execute();
      assert.equal(rows.length, 4);
      const text = decoded(cursor);
      for (const row of rows) {
        assert.ok(!text.includes(String(row.received_at)), 'the receive time shows');
        assert.ok(!text.includes(`"s":${row.seq}`), 'the sequence shows');
      }
      for (const field of ['"a":', '"s":', '"r":']) assert.ok(!text.includes(field), `${field} shows`);
      // Later pages, made at larger sequences, have cursors of the same length.
      const second = await search(acme, { cursor });
      const third = await search(acme, { cursor: second.body.next_cursor });
      assert.deepEqual(
        [first, second, third].map((page) => page.body.records[0]?.record.n),
        [1, 2, 3],
      );
      assert.equal(second.body.next_cursor?.length, cursor.length);
      for (const field of ['tail', '"x":']) assert.ok(!decoded(first.body.tail_cursor).includes(field));
    });

    test('a cursor from one tenant is refused in another, and works for anyone in its own', async () => {
      const records = await search(acme, {});
      const page = records.body.next_cursor;
      const tail = records.body.tail_cursor;
      assert.ok(page);
      const tokens = await acme.get<Page<'tokens', ApiToken>>('/v1/tokens?limit=1');
      const tokenCursor = tokens.body.next_cursor;
      assert.ok(tokenCursor);
      const audit = await acme.get<Page<'events', unknown>>('/v1/audit-events?limit=1');
      const auditCursor = audit.body.next_cursor;
      assert.ok(auditCursor);

      for (const client of [acme, acmeAgain]) {
        assert.equal((await search(client, { cursor: page })).status, 200);
        assert.equal((await client.post('/v1/telemetry/tail', { tail_cursor: tail })).status, 200);
        assert.equal((await client.get(`/v1/tokens?limit=1&cursor=${tokenCursor}`)).status, 200);
        assert.equal((await client.get(`/v1/audit-events?limit=1&cursor=${auditCursor}`)).status, 200);
      }
      expectProblem(await search(globex, { cursor: page }), 400, 'invalid_cursor');
      expectProblem(await globex.post('/v1/telemetry/tail', { tail_cursor: tail }), 400, 'invalid_cursor');
      expectProblem(await globex.get(`/v1/tokens?limit=1&cursor=${tokenCursor}`), 400, 'invalid_cursor');
      expectProblem(await globex.get(`/v1/audit-events?limit=1&cursor=${auditCursor}`), 400, 'invalid_cursor');
    });

    test('an edited, cut or home-made cursor is refused, a returned one works', async () => {
      const first = await acme.get<Page<'tokens', ApiToken>>('/v1/tokens?limit=1');
      const cursor = first.body.next_cursor;
      assert.ok(cursor);
      const second = await acme.get<Page<'tokens', ApiToken>>(`/v1/tokens?limit=1&cursor=${cursor}`);
      assert.equal(second.status, 200);
      assert.notEqual(second.body.tokens[0]?.id, first.body.tokens[0]?.id);

      const bytes = Buffer.from(cursor, 'base64url');
      const flipped = (at: number) => {
        const copy = Buffer.from(bytes);
        copy[at] = (copy[at] ?? 0) ^ 0x20;
        return copy.toString('base64url');
      };
      const forged = [
        flipped(0),
        flipped(5),
        flipped(Math.floor(bytes.length / 2)),
        flipped(bytes.length - 1),
        bytes.subarray(0, -16).toString('base64url'),
        `${cursor}AAAA`,
        `${cursor}.${cursor}`,
        Buffer.from('{"c":1,"i":"x"}').toString('base64url'),
      ];
      for (const cursor of forged)
        expectProblem(await acme.get(`/v1/tokens?limit=1&cursor=${cursor}`), 400, 'invalid_cursor');
      expectProblem(await search(acme, { cursor: flipped(9) }), 400, 'invalid_cursor');
    });
  });
}
