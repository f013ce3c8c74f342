import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../core/errors.js';
import { MAX_NESTING_DEPTH } from '../intake/parse.js';
import { memberTexts, splitObjects } from './hec-stream.js';

const limits = { maxRecordBytes: 256 };
const texts = (body: string) => splitObjects(body, limits).map((object) => object.text);

function refusal(body: string, code: string, eventNumber?: number): AppError {
  try {
    splitObjects(body, limits);
  } catch (error) {
    assert.ok(error instanceof AppError, `expected AppError, got ${String(error)}`);
    assert.equal(error.code, code);
    if (eventNumber !== undefined) assert.equal(error.extensions.event_number, eventNumber);
    return error;
  }
  return assert.fail(`accepted ${body}`);
}

test('objects one after another, with any whitespace or none between them', () => {
  assert.deepEqual(texts('{"event":1}{"event":2}'), ['{"event":1}', '{"event":2}']);
  assert.deepEqual(texts(' \r\n{"event":1}\n\n\t{"event":2} \n'), ['{"event":1}', '{"event":2}']);
  assert.deepEqual(texts('\uFEFF{"event":{"nested":{"deep":[1,{"x":2}]}}}'), [
    '{"event":{"nested":{"deep":[1,{"x":2}]}}}',
  ]);
  assert.deepEqual(texts(''), []);
  assert.deepEqual(texts(' \n '), []);
});

test('braces, brackets and escaped quotes inside strings do not end an object', () => {
  const tricky = '{"event":"a } { ] [ \\" } still inside \\\\"}';
  assert.deepEqual(texts(`${tricky}{"event":"next"}`), [tricky, '{"event":"next"}']);
  assert.equal(splitObjects(tricky, limits)[0]?.value.event, 'a } { ] [ " } still inside \\');
});

test('a bad object is refused with its number, counted from 0', () => {
  refusal('{"event":1}{"event":}', 'hec_invalid_event', 1);
  refusal('{"event":1}{"event":2', 'hec_invalid_event', 1);
  refusal('{"event":"unterminated}', 'hec_invalid_event', 0);
  refusal('{"event":1}, {"event":2}', 'hec_invalid_event', 1);
  refusal('[{"event":1}]', 'hec_invalid_event', 0);
  refusal('"just text"', 'hec_invalid_event', 0);
  refusal('{"event":1}}', 'hec_invalid_event', 1);
});

test('size and depth limits are per event', () => {
  const big = `{"event":"${'x'.repeat(300)}"}`;
  const tooLarge = refusal(`{"event":1}${big}`, 'record_too_large', 1);
  assert.equal(tooLarge.extensions.limit_bytes, 256);
  // Multi-byte characters count as the bytes they are sent as.
  refusal(`{"event":"${'é'.repeat(130)}"}`, 'record_too_large', 0);
  const deep = `{"event":${'['.repeat(MAX_NESTING_DEPTH)}${']'.repeat(MAX_NESTING_DEPTH)}}`;
  refusal(deep, 'nesting_too_deep', 0);
  const deepAtLimit = `{"event":${'['.repeat(MAX_NESTING_DEPTH - 1)}${']'.repeat(MAX_NESTING_DEPTH - 1)}}`;
  assert.equal(splitObjects(deepAtLimit, { maxRecordBytes: 4096 }).length, 1);
});

test('member texts are the values as written, numbers and escapes untouched', () => {
  const members = memberTexts(
    '{ "event" : {"n":18446744073709551615,"s":"}"} , "time":1790000000.250,"host":"h\\u00e9","fields":{},"x":null,"t":true }',
  );
  assert.deepEqual(Object.fromEntries(members), {
    event: '{"n":18446744073709551615,"s":"}"}',
    time: '1790000000.250',
    host: '"h\\u00e9"',
    fields: '{}',
    x: 'null',
    t: 'true',
  });
  assert.equal(memberTexts('{}').size, 0);
  // A repeated name: the last one, as JSON.parse keeps it.
  assert.equal(memberTexts('{"event":1,"event":[2]}').get('event'), '[2]');
  assert.equal(memberTexts('{"k\\"ey":1}').get('k"ey'), '1');
});
