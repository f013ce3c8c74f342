import { test } from 'node:test';
import assert from 'node:assert/strict';
import { surelyJsonbReadable } from './jsonb-readable.js';

test('ordinary records are surely readable as jsonb', () => {
  for (const record of [
    '{"message":"GET /index.html 200","bytes":5123,"ratio":1.5e3,"id":"3fe12345"}',
    '{"n":-0.000001,"big":12345678901234567890,"nested":{"a":[1,2,{"b":null}]}}',
    '{"text":"caf\u00e9 \ud83d\ude00","hex":"3fe12345","key":"e99999"}',
  ])
    assert.equal(surelyJsonbReadable(record), true, record);
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
    assert.equal(surelyJsonbReadable(record), false, record.slice(0, 40));
  assert.equal(surelyJsonbReadable(`{"s":"${'x'.repeat(20_000)}","n":${'9'.repeat(100)}}`), true);
});
