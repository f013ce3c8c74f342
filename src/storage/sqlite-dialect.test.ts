// A transaction that reads and then writes, while another connection commits in between (as the
// record writer and the detection thread do all the time under ingest), must wait for the write
// lock rather than fail: begun deferred, SQLite fails its first write with SQLITE_BUSY at once.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type Database } from './database.js';
import { beginImmediate } from './sqlite-dialect.js';

/** A fresh embedded database with a one-row counter table, and a second connection to it that never waits for a lock. */
async function counterDatabase(t: TestContext): Promise<{ database: Database; other: SQLite.Database }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-dialect-'));
  const database = await openDatabase({ databaseUrl: '', dataDir: dir });
  const other = new SQLite(path.join(dir, 'sightline.db'));
  t.after(async () => {
    other.close();
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  await sql`CREATE TABLE counter (n INTEGER NOT NULL)`.execute(database.db);
  await sql`INSERT INTO counter VALUES (0)`.execute(database.db);
  // It tries once, without waiting, as a commit landing at that moment would.
  other.pragma('busy_timeout = 0');
  return { database, other };
}

test('a transaction that reads, then writes after another connection committed, succeeds', async (t) => {
  const { database, other } = await counterDatabase(t);
  let otherCommitted = false;
  await database.db.transaction().execute(async (trx) => {
    const before = await sql<{ n: number }>`SELECT n FROM counter`.execute(trx);
    try {
      other.prepare('UPDATE counter SET n = n + 100').run();
      otherCommitted = true;
    } catch (error) {
      assert.equal((error as { code?: string }).code, 'SQLITE_BUSY', 'only the write lock keeps it out');
    }
    await sql`UPDATE counter SET n = ${Number(before.rows[0]?.n) + 1}`.execute(trx);
  });
  assert.equal(otherCommitted, false, 'the transaction held the write lock from its start');
  assert.deepEqual(other.prepare('SELECT n FROM counter').get(), { n: 1 });
});

test('a transaction declared read only leaves the write lock to others', async (t) => {
  const { database, other } = await counterDatabase(t);
  const seen = await database.db
    .transaction()
    .setAccessMode('read only')
    .execute(async (trx) => {
      await sql`SELECT n FROM counter`.execute(trx);
      other.prepare('UPDATE counter SET n = n + 100').run();
      return (await sql<{ n: number }>`SELECT n FROM counter`.execute(trx)).rows[0]?.n;
    });
  assert.equal(seen, 0, 'it reads one snapshot throughout');
  assert.deepEqual(other.prepare('SELECT n FROM counter').get(), { n: 100 });
});

/**
 * Ticks the 150 ms waits below must see. A free machine gives about 70; a loaded one delays
 * timers, and an event loop held up by the lock wait gives none.
 */
const MIN_TICKS = 4;

/** Ticks of a 2 ms timer while `work` runs: an event loop held up by a lock wait does not tick. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 2);
  try {
    return { result: await work(), ticks };
  } finally {
    clearInterval(timer);
  }
}

test('a write transaction waits for the write lock without holding up the event loop', async (t) => {
  const { database, other } = await counterDatabase(t);
  other.exec('BEGIN IMMEDIATE');
  // Only the event loop can let the other connection go: a wait that sleeps the thread never ends.
  setTimeout(() => other.exec('COMMIT'), 150);
  const { ticks } = await ticksDuring(() =>
    database.db.transaction().execute((trx) => sql`UPDATE counter SET n = n + 1`.execute(trx)),
  );
  assert.ok(ticks >= MIN_TICKS, `the timer ticked ${ticks} times in the 150 ms wait`);
  assert.deepEqual(other.prepare('SELECT n FROM counter').get(), { n: 1 });
});

test('a write outside a transaction waits for the write lock without holding up the event loop', async (t) => {
  const { database, other } = await counterDatabase(t);
  const db = database.db as unknown as Kysely<{ counter: { n: number } }>;
  other.exec('BEGIN IMMEDIATE');
  setTimeout(() => other.exec('COMMIT'), 150);
  const { result, ticks } = await ticksDuring(() => db.updateTable('counter').set({ n: 7 }).executeTakeFirst());
  assert.ok(ticks >= MIN_TICKS, `the timer ticked ${ticks} times in the 150 ms wait`);
  assert.equal(result.numUpdatedRows, 1n);
  assert.deepEqual(other.prepare('SELECT n FROM counter').get(), { n: 7 });
  // It committed and let the lock go: the other connection takes it at once.
  other.exec('BEGIN IMMEDIATE');
  other.exec('ROLLBACK');
});

test('waiting for the write lock gives up with SQLITE_BUSY after its time, and keeps busy_timeout', async (t) => {
  const { database, other } = await counterDatabase(t);
  assert.equal(database.kind, 'sqlite');
  const mine = new SQLite(database.sqlitePath);
  mine.pragma('busy_timeout = 1234');
  other.exec('BEGIN IMMEDIATE');
  const started = Date.now();
  try {
    await assert.rejects(beginImmediate(mine, 60), (error: { code?: string }) => {
      assert.equal(error.code, 'SQLITE_BUSY');
      return true;
    });
  } finally {
    other.exec('ROLLBACK');
  }
  assert.ok(Date.now() - started >= 60, 'it waited its time first');
  assert.equal(mine.pragma('busy_timeout', { simple: true }), 1234);
  assert.equal(mine.inTransaction, false);
  mine.close();
});
