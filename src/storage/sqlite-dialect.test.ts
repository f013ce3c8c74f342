// A transaction that reads and then writes, while another connection commits in between (as the
// record writer and the detection thread do all the time under ingest), must wait for the write
// lock rather than fail: begun deferred, SQLite fails its first write with SQLITE_BUSY at once.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase, type Database } from './database.js';

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
