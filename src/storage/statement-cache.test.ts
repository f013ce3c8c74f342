import { test } from 'node:test';
import assert from 'node:assert/strict';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { withStatementCache } from './statement-cache.js';

function memory() {
  const connection = new SQLite(':memory:');
  connection.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
  connection.prepare('INSERT INTO t (name) VALUES (?)').run('a');
  connection.prepare('INSERT INTO t (name) VALUES (?)').run('b');
  return connection;
}

test('the same SQL gets the statement compiled the first time; other SQL its own', () => {
  const cache = withStatementCache(memory());
  const first = cache.prepare('SELECT name FROM t WHERE id = ?');
  assert.equal(cache.prepare('SELECT name FROM t WHERE id = ?'), first);
  assert.notEqual(cache.prepare('SELECT id FROM t WHERE name = ?'), first);
  assert.deepEqual(first.all([2]), [{ name: 'b' }]);
  cache.close();
});

test('a statement still being iterated is not handed out again: the caller gets a fresh one', () => {
  const cache = withStatementCache(memory());
  const text = 'SELECT name FROM t ORDER BY id';
  const kept = cache.prepare(text);
  const streaming = kept.iterate([]);
  assert.deepEqual(streaming.next().value, { name: 'a' });
  const other = cache.prepare(text);
  assert.notEqual(other, kept);
  assert.deepEqual(other.all([]), [{ name: 'a' }, { name: 'b' }]);
  assert.deepEqual(streaming.next().value, { name: 'b' });
  assert.equal(streaming.next().done, true);
  // Once the iteration is done, the kept statement is handed out again.
  assert.equal(cache.prepare(text), kept);
  cache.close();
});

test('past its capacity the least recently used statement is dropped', () => {
  const cache = withStatementCache(memory(), 2);
  const a = cache.prepare('SELECT 1');
  const b = cache.prepare('SELECT 2');
  assert.equal(cache.prepare('SELECT 1'), a); // a is now the most recent
  cache.prepare('SELECT 3'); // drops b
  assert.equal(cache.prepare('SELECT 1'), a);
  assert.notEqual(cache.prepare('SELECT 2'), b);
  cache.close();
});

test('kept statements see schema changes made after they were compiled', async () => {
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: withStatementCache(memory()) }) });
  const read = () => sql<Record<string, unknown>>`SELECT * FROM t WHERE id = 1`.execute(db);
  assert.deepEqual((await read()).rows, [{ id: 1, name: 'a' }]);
  await sql`ALTER TABLE t ADD COLUMN note TEXT DEFAULT 'n'`.execute(db);
  assert.deepEqual((await read()).rows, [{ id: 1, name: 'a', note: 'n' }]);
  await db.destroy();
});
