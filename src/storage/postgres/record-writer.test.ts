// The PostgreSQL record-log writer against a real server: a group of batches from several
// tenants is one transaction whose position is its last record; every column is stored exactly
// as given, whether the group travels as split text (JSON records) or, for text the split
// cannot carry, as arrays; each record is marked when PostgreSQL can surely read it as jsonb,
// by COPY and by both forms of the INSERT.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type pg from 'pg';
import { databaseTargets, type TestDatabase } from '../../../test/helpers/databases.js';
import { schemaClient } from '../../../test/helpers/postgres.js';
import { closeOpened } from '../../../test/helpers/suite.js';
import { openDatabase, type PostgresDatabase } from '../database.js';
import { migrateToLatest } from '../migrate.js';
import { createTenant } from '../../identity/tenants/tenant-service.js';
import { PostgresRecordWriter } from './record-writer.js';
import { insertRecords } from './record-insert.js';
import type { RecordBatch } from '../../record-log/record-log.js';

const postgres = databaseTargets.find((target) => target.kind === 'postgres')!;

interface StoredRow {
  seq: number;
  tx_id: string;
  tenant_id: number;
  received_at: number;
  event_time: number;
  record: string;
  meta: string | null;
}

describe('PostgreSQL record writer', { skip: postgres.skip }, () => {
  let testDb: TestDatabase;
  let database: PostgresDatabase;
  let writer: PostgresRecordWriter;
  let acme: number;
  let globex: number;

  before(async () => {
    testDb = await postgres.create();
    database = (await openDatabase(testDb)) as PostgresDatabase;
    await migrateToLatest(database);
    acme = (await createTenant(database.db, { codeName: 'acme', name: 'Acme' })).id;
    globex = (await createTenant(database.db, { codeName: 'globex', name: 'Globex' })).id;
    writer = new PostgresRecordWriter(database.pgConfig);
    await writer.ready();
  });
  after(() => closeOpened(writer, database, testDb));

  /** Appends one group and reads back what it stored, in log order. */
  async function appendAndRead(batches: RecordBatch[]): Promise<{ rows: StoredRow[]; seq: number; txId: string }> {
    const position = await writer.append(batches);
    const { rows } = await sql<StoredRow>`
      SELECT seq, tx_id::text AS tx_id, tenant_id, received_at, event_time, record, meta
      FROM telemetry_records WHERE tx_id = ${position.txId}::xid8 ORDER BY seq`.execute(database.db);
    return { rows, ...position };
  }

  const expected = (batches: RecordBatch[]) =>
    batches.flatMap((batch) =>
      batch.records.map((record, i) => ({
        tenant_id: batch.tenantId,
        received_at: batch.receivedAt,
        event_time: Number.isNaN(batch.eventTimes[i]) ? batch.receivedAt : batch.eventTimes[i],
        record,
        meta: batch.metas[i],
      })),
    );
  const columns = (rows: StoredRow[]) =>
    rows.map(({ tenant_id, received_at, event_time, record, meta }) => ({
      tenant_id,
      received_at,
      event_time,
      record,
      meta,
    }));

  test('a group from two tenants is one transaction; its records keep their tenant, times, text and metadata', async () => {
    const now = Date.now();
    const batches: RecordBatch[] = [
      {
        tenantId: acme,
        receivedAt: now,
        records: [
          '{"msg":"nul escape \\u0000 and record separator escape \\u001e","path":"C:\\\\Windows\\\\System32"}',
          '{\r\n\t"pretty": true,\n  "quote": "say \\"hi\\"",  "emoji": "\\ud83d\\ude00 😀" }',
        ],
        eventTimes: [Number.NaN, now - 60_000],
        metas: [null, '{"stream":"stderr","time":"2026-11-22T09:00:00.5Z"}'],
      },
      {
        tenantId: globex,
        receivedAt: now + 1,
        records: ['{"a":1}', '{"b":"ünïcödé, comma, {braces}"}', '{"c":null}'],
        eventTimes: [now - 1, Number.NaN, now - 3],
        metas: ['{"stream":"stdout","time":"2026-11-22T09:00:01Z"}', null, null],
      },
    ];
    const { rows, seq } = await appendAndRead(batches);
    assert.deepEqual(columns(rows), expected(batches));
    assert.equal(seq, rows.at(-1)!.seq, "the position is the group's last record");
  });

  test('text that the split cannot carry (the separator, an empty text) is stored as given too', async () => {
    const now = Date.now();
    const batches: RecordBatch[] = [
      {
        tenantId: acme,
        receivedAt: now,
        records: ['not JSON: a\x1eb', '', '{"ok":true}'],
        eventTimes: [Number.NaN, Number.NaN, Number.NaN],
        metas: ['', null, 'x\x1ey'],
      },
      { tenantId: globex, receivedAt: now, records: ['{"z":0}'], eventTimes: [now], metas: [null] },
    ];
    const { rows, seq } = await appendAndRead(batches);
    assert.deepEqual(columns(rows), expected(batches));
    assert.equal(seq, rows.at(-1)!.seq);
  });

  test("text holding the COPY stream's own characters (unit separator, line ends, a lone \\.) is stored as given", async () => {
    const now = Date.now();
    const batches: RecordBatch[] = [
      {
        tenantId: acme,
        receivedAt: now,
        records: ['a\x1fb', 'line\nbreak', 'cr\rhere', '\\.', '\\N', '"quoted, with comma"', '\x1e\x1e', ' '],
        eventTimes: [now, now, now, now, now, now, now, now],
        metas: ['\x1f', '\n', null, '\\.', '', '""', null, '\\'],
      },
    ];
    const { rows, seq } = await appendAndRead(batches);
    assert.deepEqual(columns(rows), expected(batches));
    assert.equal(seq, rows.at(-1)!.seq);
  });

  test('a group PostgreSQL refuses stores none of its records, and the writer goes on', async () => {
    const now = Date.now();
    const marker = `refused-${now}`;
    const refused: RecordBatch[] = [
      { tenantId: acme, receivedAt: now, records: [`{"m":"${marker}"}`], eventTimes: [now], metas: [null] },
      // PostgreSQL text cannot hold NUL: the whole group fails.
      { tenantId: globex, receivedAt: now, records: [`{"m":"${marker}\u0000"}`], eventTimes: [now], metas: [null] },
    ];
    await assert.rejects(writer.append(refused));
    const { rows: kept } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM telemetry_records WHERE record LIKE ${`%${marker}%`}`.execute(database.db);
    assert.equal(kept[0]?.n, 0, 'nothing of the refused group is stored');
    const { rows, seq } = await appendAndRead([
      { tenantId: acme, receivedAt: now, records: ['{"after":true}'], eventTimes: [now], metas: [null] },
    ]);
    assert.deepEqual(
      rows.map((row) => row.record),
      ['{"after":true}'],
    );
    assert.equal(seq, rows[0]!.seq);
  });

  test("large groups keep their records' order; the position is the group's own last record although another session took later sequences", async () => {
    const other = await schemaClient(testDb.databaseUrl);
    try {
      const batch = (n: number): RecordBatch => ({
        tenantId: acme,
        receivedAt: Date.now(),
        records: Array.from({ length: 2_000 }, (_, i) => `{"n":${n},"i":${i}}`),
        eventTimes: Array.from({ length: 2_000 }, () => Number.NaN),
        metas: Array.from({ length: 2_000 }, () => null),
      });
      // The other session takes sequence values between and after this writer's groups.
      await appendAndRead([batch(1)]);
      await other.query(
        `SELECT nextval(pg_get_serial_sequence('telemetry_records', 'seq')) FROM generate_series(1, 10)`,
      );
      const { rows, seq } = await appendAndRead([batch(2), batch(3)]);
      await other.query(`SELECT nextval(pg_get_serial_sequence('telemetry_records', 'seq'))`);
      assert.equal(rows.length, 4_000);
      assert.equal(seq, rows.at(-1)!.seq);
      assert.deepEqual(
        rows.map((row) => row.record),
        [...batch(2).records, ...batch(3).records],
        'sequences follow the order of the batches and their records',
      );
    } finally {
      await other.end();
    }
  });

  test('each record is marked when PostgreSQL can surely read it as jsonb and when it is plain text', async () => {
    const records = [
      '{"ordinary":"GET /x 200","n":1.5e3,"hex":"3fe12345"}',
      '{"escape":"\\ud83d\\ude00"}',
      '{"huge":1e140000}',
      `{"digits":${'7'.repeat(16_400)}}`,
      '{"path":"C:\\\\Windows\\\\cmd.exe","n":503.0}',
      '{"url":"http:\\/\\/example.com"}',
    ];
    // [jsonb_ok, plain_text] per record.
    const marks = [
      [true, null],
      [null, null],
      [null, null],
      [null, true],
      [true, true],
      [true, null],
    ];
    const batch = (metas: (string | null)[]): RecordBatch => ({
      tenantId: acme,
      receivedAt: Date.now(),
      records,
      eventTimes: records.map(() => Number.NaN),
      metas,
    });
    const marked = async (txId: string) => {
      const { rows } = await sql<{ jsonb_ok: boolean | null; plain_text: boolean | null; readable: boolean | null }>`
        SELECT jsonb_ok, plain_text, CASE WHEN jsonb_ok THEN (record::jsonb IS NOT NULL) END AS readable
        FROM telemetry_records WHERE tx_id = ${txId}::xid8 ORDER BY seq`.execute(database.db);
      assert.equal(rows[0]?.readable, true, 'a record marked readable reads as jsonb');
      return rows.map((row) => [row.jsonb_ok, row.plain_text]);
    };
    const none = records.map(() => null);
    assert.deepEqual(await marked((await writer.append([batch(none)])).txId), marks, 'COPY');
    const client = await schemaClient(testDb.databaseUrl);
    try {
      // The split statement, and the array one (which an empty meta, among others, takes).
      for (const metas of [none, ['', ...none.slice(1)]]) {
        const inserted = await insertRecords(client as unknown as pg.PoolClient, [batch(metas)]);
        assert.deepEqual(await marked(inserted.rows[0]?.tx_id ?? ''), marks, metas[0] === '' ? 'arrays' : 'split');
      }
    } finally {
      await client.end();
    }
  });

  test('consecutive groups take increasing positions, each its own transaction', async () => {
    const batch = (record: string): RecordBatch => ({
      tenantId: acme,
      receivedAt: Date.now(),
      records: [record],
      eventTimes: [Number.NaN],
      metas: [null],
    });
    const first = await appendAndRead([batch('{"n":1}'), batch('{"n":2}')]);
    const second = await appendAndRead([batch('{"n":3}')]);
    assert.equal(first.rows.length, 2);
    assert.equal(second.rows.length, 1);
    assert.ok(second.seq > first.seq);
    assert.notEqual(second.txId, first.txId);
  });
});
