import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JSONB_OK, PLAIN_TEXT, textMarks } from './record-text-marks.js';

const readable = (record: string) => (textMarks(record) & JSONB_OK) !== 0;
const plain = (record: string) => (textMarks(record) & PLAIN_TEXT) !== 0;

test('ordinary records are surely readable as jsonb', () => {
  for (const record of [
    '{"message":"GET /index.html 200","bytes":5123,"ratio":1.5e3,"id":"3fe12345"}',
    '{"n":-0.000001,"big":12345678901234567890,"nested":{"a":[1,2,{"b":null}]}}',
    '{"text":"caf\u00e9 \ud83d\ude00","hex":"3fe12345","key":"e99999"}',
    '{"Image":"C:\\\\Windows\\\\System32\\\\cmd.exe","quote":"say \\"hi\\"\\n"}',
  ])
    assert.equal(readable(record), true, record);
});

test('escapes, huge exponents and long digit runs are left to the query to decide', () => {
  for (const record of [
    '{"s":"a\\u0000b"}',
    '{"s":"\\ud800x"}',
    '{"s":"\\ud83d\\ude00"}',
    '{"n":1e140000}',
    '{"n":2.5E+10000}',
    `{"n":${'9'.repeat(16_384)}}`,
  ])
    assert.equal(readable(record), false, record.slice(0, 40));
  assert.equal(readable(`{"s":"${'x'.repeat(20_000)}","n":${'9'.repeat(100)}}`), true);
});

test('plain text: every string and number written as itself', () => {
  for (const record of [
    '{"message":"GET /index.html 200","bytes":5123,"id":"3fe12345","hex":"0x1e5"}',
    '{"Image":"C:\\\\Windows\\\\System32\\\\cmd.exe","quote":"say \\"hi\\"\\n","n":-0.5}',
    '{"text":"caf\u00e9","key":"e99999","ratio":"1.5e3"}',
  ])
    assert.equal(plain(record), true, record);
  for (const record of [
    '{"url":"http:\\/\\/example.com\\/"}',
    '{"s":"web\\u002d01"}',
    '{"ratio":1.5e3}',
    '{"list":[1,2E-7]}',
    '{"n": 5E2}',
  ])
    assert.equal(plain(record), false, record);
});
