// The detection thread's connection commits without an fsync of its own; every other connection,
// the record writer's first (its 201 means fsync'd), keeps FULL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { configureSqliteConnection, openDatabase, relaxSqliteCommits } from './database.js';

test('relaxed commits are one connection’s: others still flush every commit', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-relaxed-'));
  const relaxed = await openDatabase({ databaseUrl: '', dataDir: dir });
  const writer = new SQLite(path.join(dir, 'sightline.db'));
  t.after(async () => {
    writer.close();
    await relaxed.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  configureSqliteConnection(writer);
  assert.equal(relaxed.kind, 'sqlite');
  const level = async () => (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(relaxed.db)).rows[0];
  assert.deepEqual(await level(), { synchronous: 2 }, 'FULL until relaxed');
  await relaxSqliteCommits(relaxed);
  assert.deepEqual(await level(), { synchronous: 1 }, 'NORMAL once relaxed');
  assert.equal(writer.pragma('synchronous', { simple: true }), 2, 'the record writer’s connection stays FULL');
  // Both still write to the same WAL, in order.
  await sql`CREATE TABLE t (n INTEGER)`.execute(relaxed.db);
  await sql`INSERT INTO t VALUES (1)`.execute(relaxed.db);
  writer.prepare('INSERT INTO t VALUES (2)').run();
  assert.deepEqual(writer.prepare('SELECT n FROM t ORDER BY n').all(), [{ n: 1 }, { n: 2 }]);
});
