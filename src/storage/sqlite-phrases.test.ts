// The phrase check beside an index without positions must find what FTS5's own phrase queries
// (detail=full, the same tokenizer) find: the same records for every phrase asked, on records
// shaped as forwarders send them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import SQLite from 'better-sqlite3';
import { holdsPhrase, registerPhraseFunction, searchWords, wordsQuery } from './sqlite-phrases.js';

const RECORDS = [
  { remote_addr: '10.0.0.1', request: 'GET /wp-login.php?redirect_to=%2Fadmin HTTP/1.1', status: '404' },
  { remote_addr: '10.0.1.0', request: 'POST /api/v1/orders HTTP/2.0', status: '201' },
  { src: '0.0.1.10', msg: 'Failed password for root from 203.0.113.9 port 50522 ssh2' },
  { msg: 'Accepted password for root from 203.0.113.9 port 22 ssh2' },
  { Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', CommandLine: 'powershell -enc SQBFAFgA' },
  { Image: 'C:\\Windows\\System32\\cmd.exe', CommandLine: 'cmd.exe /c whoami /all' },
  { user: 'Zoë.Müller@example.com', note: 'Café opened the ÉCOLE report' },
  { message: 'order 42 created; order created 42 times' },
  { message: 'user-agent sqlmap/1.8.6#stable (https://sqlmap.org)' },
  { message: 'password reset for account 1234 from 198.51.100.7' },
].map((record) => JSON.stringify(record));

const PHRASES = [
  '10.0.0.1',
  '0.0.1',
  'password for root',
  'for root from',
  'root password',
  'System32 WindowsPowerShell',
  'windows system32 cmd.exe',
  'whoami /all',
  'zoe.muller@example.com',
  'cafe opened',
  'école report',
  'order created',
  'created order',
  'sqlmap/1.8.6',
  '203.0.113.9 port 22',
  'wp-login.php',
  'api v1 orders',
];

function index(detail: 'full' | 'none'): SQLite.Database {
  const db = new SQLite(':memory:');
  db.exec(`CREATE VIRTUAL TABLE f USING fts5(record, detail=${detail}, tokenize='unicode61 remove_diacritics 2')`);
  const insert = db.prepare('INSERT INTO f (rowid, record) VALUES (?, ?)');
  RECORDS.forEach((record, i) => insert.run(i + 1, record));
  registerPhraseFunction(db);
  return db;
}

test('an index of words plus the phrase check finds what a positional phrase query finds', () => {
  const full = index('full');
  const words = index('none');
  for (const phrase of PHRASES) {
    for (const prefix of [false, true]) {
      const expected = full
        .prepare(`SELECT rowid FROM f WHERE f MATCH ? ORDER BY rowid`)
        .all(`"${phrase.replaceAll('"', '""')}"${prefix ? ' *' : ''}`)
        .map((row) => (row as { rowid: number }).rowid);
      const asked = searchWords(phrase);
      const found = words
        .prepare(`SELECT rowid FROM f WHERE f MATCH ? AND sightline_phrase(record, ?, ?) = 1 ORDER BY rowid`)
        .all(wordsQuery(asked, prefix), JSON.stringify(asked), prefix ? 1 : 0)
        .map((row) => (row as { rowid: number }).rowid);
      assert.deepEqual(found, expected, `${JSON.stringify(phrase)}${prefix ? ' (prefix)' : ''}`);
    }
  }
  // Not vacuous: most phrases are found somewhere, and the reversed ones are not.
  assert.ok(holdsPhrase(RECORDS[2] ?? '', ['password', 'for', 'root'], false));
  assert.equal(holdsPhrase(RECORDS[2] ?? '', ['root', 'password'], false), false);
});

test('words are read as the index reads them: letters and digits, case and diacritics folded', () => {
  assert.deepEqual(searchWords('C:\\Windows\\System32\\cmd.exe'), ['c', 'windows', 'system32', 'cmd', 'exe']);
  assert.deepEqual(searchWords('Zoë.Müller@Example.COM'), ['zoe', 'muller', 'example', 'com']);
  assert.deepEqual(searchWords('10.0.0.1'), ['10', '0', '0', '1']);
  assert.deepEqual(searchWords(' -- '), []);
  assert.equal(wordsQuery(['a', 'b'], true), '"a" AND "b" *');
});
