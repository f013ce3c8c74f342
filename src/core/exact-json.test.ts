// Stored records are written into answers as their own text, and pretty-printed ones are kept
// with only the whitespace between tokens removed: numbers come back with every digit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseLossless } from 'lossless-json';
import { compactJson, RawJson, stringifyWithRawJson } from './exact-json.js';

const SENT = '{"big":18446744073709551615,"neg":-9007199254740993,"dec":0.1000000000000000055511151231257827,"n":1.50}';

test('a RawJson is written as its own text, wherever it sits in the value', () => {
  const written = stringifyWithRawJson({
    records: [
      { id: 'rec_1', record: new RawJson(SENT) },
      { id: 'rec_2', record: new RawJson('{}') },
    ],
    one: new RawJson('[1,2]'),
    text: 'plain',
  });
  assert.equal(
    written,
    `{"records":[{"id":"rec_1","record":${SENT}},{"id":"rec_2","record":{}}],"one":[1,2],"text":"plain"}`,
  );
  // A lossless reader finds every digit; JSON.parse alone would not.
  const read = parseLossless(written) as { records: { record: Record<string, unknown> }[] };
  assert.equal(String(read.records[0]!.record.big), '18446744073709551615');
  assert.equal(String(read.records[0]!.record.dec), '0.1000000000000000055511151231257827');
});

test('a string that looks like the placeholder stays a string: the placeholder holds a fresh nonce', () => {
  const raw = new RawJson('{"a":1}');
  const written = stringifyWithRawJson({ record: raw, note: '\u2063raw-0-0', other: '"\u2063raw-' });
  const parsed = JSON.parse(written) as Record<string, unknown>;
  assert.deepEqual(parsed, { record: { a: 1 }, note: '\u2063raw-0-0', other: '"\u2063raw-' });
});

test('indentation applies around the raw text, which is kept as it is', () => {
  assert.equal(stringifyWithRawJson({ r: new RawJson('{"x":1.0}') }, 2), '{\n  "r": {"x":1.0}\n}');
});

test('a value with no RawJson is written as JSON.stringify writes it', () => {
  const value = { a: [1, 'two', null], b: { c: true } };
  assert.equal(stringifyWithRawJson(value), JSON.stringify(value));
});

test('compacting removes whitespace between tokens only: strings, escapes and numbers stay', () => {
  const pretty =
    '{\r\n  "message" : "two  spaces\\" and \\\\ \\n",\n\t"big": 18446744073709551615 ,\n  "list": [ 1.0 , "a b" ]\n}\n';
  const compact = compactJson(pretty);
  assert.equal(compact, '{"message":"two  spaces\\" and \\\\ \\n","big":18446744073709551615,"list":[1.0,"a b"]}');
  assert.deepEqual(JSON.parse(compact), JSON.parse(pretty));
  assert.equal(compactJson(SENT), SENT, 'compact text is left alone');
});
