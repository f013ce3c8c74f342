// The SQLite purge thread tells the purger whether anyone else wrote since its previous batch,
// and the purger, when nobody did, pauses briefly instead of for nine times the batch: on an
// idle database a large backlog goes at the speed of the deletes, not a tenth of it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sql } from 'kysely';
import { tempDir } from '../../../test/helpers/databases.js';
import { openDatabase, type SqliteDatabase } from '../database.js';
import { migrateToLatest } from '../migrate.js';
import { SqlitePurgeThread } from './purge-thread-client.js';
import { sqliteRecordPurge } from './record-purge.js';
import { RetentionPurger } from '../../retention/purger.js';
import { DAY_MS } from '../../retention/retention-rules.js';
import SQLite from 'better-sqlite3';
import { readLevels, reclaimPending } from './search-merging.js';

/** `count` records of one new tenant received 60 days ago, indexed and past every follower. */
async function oldRecords(database: SqliteDatabase, code: string, count: number, indexChunks = 1): Promise<number> {
  const { db } = database;
  await sql`INSERT INTO tenants (code_name, name, created_at) VALUES (${code}, ${code}, ${Date.now()})`.execute(db);
  const tenant = await db.selectFrom('tenants').select('id').where('code_name', '=', code).executeTakeFirstOrThrow();
  const at = Date.now() - 60 * DAY_MS;
  await sql`WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${count})
    INSERT INTO telemetry_records (tenant_id, received_at, event_time, record)
    SELECT ${tenant.id}, ${at} + g, ${at} + g,
      '{"message":"old event ' || g || '","host":"web-' || (g % 7) || '","bytes":' || (g * 37 % 9973) || '}' FROM s`.execute(
    db,
  );
  // Indexed in chunks, as the record writer does: segments on several levels, like a real index.
  const first = await db
    .selectFrom('telemetry_records')
    .select((eb) => eb.fn.min<number>('seq').as('seq'))
    .where('tenant_id', '=', tenant.id)
    .executeTakeFirstOrThrow();
  const size = Math.ceil(count / indexChunks);
  for (let from = first.seq; from < first.seq + count; from += size)
    await sql`INSERT INTO telemetry_fts (rowid, record) SELECT seq, record FROM telemetry_records
      WHERE tenant_id = ${tenant.id} AND seq >= ${from} AND seq < ${from + size}`.execute(db);
  const end = await db
    .selectFrom('telemetry_records')
    .select((eb) => eb.fn.max<number>('seq').as('seq'))
    .executeTakeFirstOrThrow();
  await db.updateTable('log_cursors').set({ seq: end.seq }).execute();
  return tenant.id;
}

const seqsOf = async (database: SqliteDatabase, tenantId: number) =>
  (await database.db.selectFrom('telemetry_records').select('seq').where('tenant_id', '=', tenantId).execute()).map(
    (row) => row.seq,
  );

describe('SQLite purge pacing', () => {
  let dataDir: string;
  let database: SqliteDatabase;
  // The purge thread does not keep the process alive (a server's event loop does).
  let alive: NodeJS.Timeout;
  before(async () => {
    alive = setInterval(() => undefined, 1_000);
    dataDir = tempDir();
    const opened = await openDatabase({ dataDir, databaseUrl: '' });
    if (opened.kind !== 'sqlite') throw new Error('expected SQLite');
    database = opened;
    await migrateToLatest(database);
  });
  after(async () => {
    clearInterval(alive);
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('each batch says whether another connection committed since the previous one', async () => {
    const tenantId = await oldRecords(database, 'contention', 10);
    const seqs = await seqsOf(database, tenantId);
    const worker = new SqlitePurgeThread(database.sqlitePath);
    try {
      await worker.delete(tenantId, seqs.slice(0, 2));
      const quiet = await worker.delete(tenantId, seqs.slice(2, 4));
      assert.equal(quiet.deleted, 2);
      assert.equal(quiet.contended, false, 'nobody else wrote between the two batches');
      await sql`UPDATE tenants SET name = 'Renamed' WHERE id = ${tenantId}`.execute(database.db);
      const busy = await worker.delete(tenantId, seqs.slice(4, 6));
      assert.equal(busy.contended, true, 'the server connection committed in between');
      const reclaim = await worker.reclaim(100);
      assert.equal(reclaim.contended, false, 'reclaim steps say so too');
      await sql`UPDATE tenants SET name = 'Again' WHERE id = ${tenantId}`.execute(database.db);
      assert.equal((await worker.reclaim(100)).contended, true);
    } finally {
      await worker.close();
    }
  });

  test('reclaim steps say there is more while the deleted entries are merged away, then that there is none', async () => {
    // A database of its own: what the other tests left in the index would change the steps.
    const ownDir = tempDir();
    const own = await openDatabase({ dataDir: ownDir, databaseUrl: '' });
    if (own.kind !== 'sqlite') throw new Error('expected SQLite');
    await migrateToLatest(own);
    const tenantId = await oldRecords(own, 'reclaim', 10_000, 20);
    const seqs = await seqsOf(own, tenantId);
    const worker = new SqlitePurgeThread(own.sqlitePath);
    const pages = async () =>
      (await sql<{ n: number }>`SELECT count(*) AS n FROM telemetry_fts_data`.execute(own.db)).rows[0]?.n ?? 0;
    try {
      // Three quarters: a merge writes the entries left, so only they make it take steps.
      for (let at = 0; at < 7_500; at += 2_500) await worker.delete(tenantId, seqs.slice(at, at + 2_500));
      const before = await pages();
      let steps = 0;
      let worked = 0;
      for (; steps < 200; steps++) {
        const step = await worker.reclaim(1);
        if (!step.more) break;
        worked++;
      }
      assert.ok(worked > 0, 'the deleted entries took at least one merge step');
      assert.ok(steps < 200, 'the steps came to an end');
      assert.equal((await worker.reclaim(1)).more, false, 'and another step has nothing to do');
      assert.ok((await pages()) < before, `the index shrank (${before} pages before)`);
    } finally {
      await worker.close();
      await own.close();
      fs.rmSync(ownDir, { recursive: true, force: true });
    }
  });

  test('a reclaim comes to an end while others keep adding to the index between its steps', async () => {
    // A database of its own: the index this test grows would make the other tests' reclaims long.
    const ownDir = tempDir();
    const own = await openDatabase({ dataDir: ownDir, databaseUrl: '' });
    if (own.kind !== 'sqlite') throw new Error('expected SQLite');
    await migrateToLatest(own);
    const tenantId = await oldRecords(own, 'merging', 4_000, 40);
    const seqs = await seqsOf(own, tenantId);
    const raw = new SQLite(own.sqlitePath);
    const worker = new SqlitePurgeThread(own.sqlitePath);
    try {
      // Every other record: the merge has the rest to write, page by page.
      await worker.delete(
        tenantId,
        seqs.filter((_seq, i) => i % 2 === 0),
      );
      // Another connection indexes as the record writer does, between every two steps. A step
      // that started the merge again each time (moving the new segments in with the merged part)
      // would never finish.
      const index = raw.prepare(`INSERT INTO telemetry_fts (rowid, record) VALUES (?, ?)`);
      let next = 10_000_000;
      const chunk = raw.transaction(() => {
        for (const end = next + 500; next < end; next++)
          index.run(next, `{"message":"new event ${next} from host-${next % 97}"}`);
      });
      assert.ok(reclaimPending(readLevels(raw)), 'half of the entries are deleted');
      let steps = 0;
      for (;;) {
        if (!(await worker.reclaim(2)).more) break;
        assert.ok(++steps < 300, 'the steps came to an end');
        chunk();
      }
      assert.equal(reclaimPending(readLevels(raw)), false, JSON.stringify(readLevels(raw)));
      raw.prepare(`INSERT INTO telemetry_fts (telemetry_fts) VALUES ('integrity-check')`).run();
      const found = (term: string) =>
        (raw.prepare(`SELECT count(*) AS n FROM telemetry_fts WHERE telemetry_fts MATCH ?`).get(term) as { n: number })
          .n;
      assert.equal(found('old'), 2_000, 'the records kept are still found, the purged ones not');
      assert.equal(found('new'), next - 10_000_000, 'and so is everything indexed meanwhile');
    } finally {
      await worker.close();
      raw.close();
      await own.close();
      fs.rmSync(ownDir, { recursive: true, force: true });
    }
  });

  test('with nobody else writing, a pass does not pause nine times each batch', { timeout: 120_000 }, async () => {
    const tenantId = await oldRecords(database, 'idle', 3_000);
    // Pauses as a multiple of each batch's lock time so long that 30 batches would take many
    // minutes if the purge paced itself as though ingest were running.
    const purger = new RetentionPurger({
      db: database.db,
      purge: sqliteRecordPurge(database),
      holder: 'test',
      batchSize: 100,
      maxBatchSize: 100,
      pauseFactor: 10_000,
      minPauseMs: 1,
      idlePauseMs: 5,
    });
    try {
      const started = performance.now();
      const report = await purger.runPass();
      const seconds = (performance.now() - started) / 1000;
      assert.equal(report.purged.idle, 3_000);
      assert.deepEqual(await seqsOf(database, tenantId), []);
      assert.ok(seconds < 60, `the pass took ${seconds.toFixed(1)} s`);
    } finally {
      await purger.stop();
    }
  });
});
