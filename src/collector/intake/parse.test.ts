import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBody } from './parse.js';
import { AppError } from '../../core/errors.js';

const limits = { maxRecordBytes: 1024 };
const parse = (text: string | Buffer) => parseBody(typeof text === 'string' ? Buffer.from(text) : text, limits);

function rejects(text: string | Buffer, code: string, extra: Record<string, unknown> = {}): AppError {
  try {
    parse(text);
  } catch (error) {
    assert.ok(error instanceof AppError, `expected AppError, got ${String(error)}`);
    assert.equal(error.code, code);
    for (const [key, value] of Object.entries(extra)) assert.equal(error.extensions[key], value, key);
    return error;
  }
  assert.fail(`expected ${code}`);
}

test('a single JSON object is one record, stored as sent', () => {
  const parsed = parse('{"message":"hello","level":"info"}');
  assert.deepEqual(parsed.records, ['{"message":"hello","level":"info"}']);
  assert.deepEqual(parsed.metas, [null]);
});

test('NDJSON: CRLF, blank lines and a missing last newline are accepted', () => {
  const parsed = parse('{"a":1}\r\n\r\n  \n{"b":2}\n{"c":3}');
  assert.deepEqual(
    parsed.records.map((text) => JSON.parse(text) as unknown),
    [{ a: 1 }, { b: 2 }, { c: 3 }],
  );
});

test('the smallest record has any single field, and an empty object is valid JSON too', () => {
  assert.equal(parse('{"x":null}').records.length, 1);
  assert.equal(parse('{}').records.length, 1);
});

test('a pretty-printed single object spanning lines is one record', () => {
  const parsed = parse('{\n  "message": "multi",\n  "n": 1\n}\n');
  assert.deepEqual(
    parsed.records.map((text) => JSON.parse(text) as unknown),
    [{ message: 'multi', n: 1 }],
  );
});

test('numbers a double cannot hold are stored with every digit, in each body shape', () => {
  const numbers = '"big":18446744073709551615,"neg":-9007199254740993,"dec":0.1000000000000000055511151231257827';
  assert.deepEqual(parse(`{${numbers}}`).records, [`{${numbers}}`], 'one line');
  const pretty = `{\n  ${numbers.replaceAll(',', ',\n  ').replaceAll(':', ': ')}\n}\n`;
  assert.deepEqual(parse(pretty).records, [`{${numbers}}`], 'pretty-printed: only the whitespace between tokens goes');
  const wrapped = JSON.stringify({ log: `{${numbers}}\n`, stream: 'stdout', time: '2026-11-22T09:00:00.5Z' });
  assert.deepEqual(parse(wrapped).records, [`{${numbers}}`], "a container wrapper: the application's own line");
});

test('invalid JSON names the line; nothing is returned', () => {
  const error = rejects('{"a":1}\n{"b":2}\n{"c":\n', 'invalid_json', { line: 3 });
  assert.match(error.detail, /^line 3: /);
});

test('a line that is valid JSON but not an object is rejected with its line', () => {
  rejects('{"a":1}\n"just a string"\n', 'not_an_object', { line: 2 });
  rejects('42', 'not_an_object', { line: 1 });
  rejects('{"a":1}\nnull', 'not_an_object', { line: 2 });
});

test('an array on a later line of an NDJSON body is a bad line (400), not the forwarder array format', () => {
  const error = rejects('{"a":1}\n[1]', 'not_an_object', { line: 2 });
  assert.equal(error.status, 400);
  assert.match(error.detail, /got an array/);
});

test("a forwarder's array format (Fluent Bit Format json) is a 500: time could not be added", () => {
  const error = rejects(
    '[{"date":1700000000.123,"log":"x"},{"date":1700000001.0,"log":"y"}]',
    'forwarder_array_format',
  );
  assert.equal(error.status, 500);
  assert.match(error.detail, /Could not add time to JSON/);
  assert.match(error.detail, /Format json_lines/);
  assert.match(error.detail, /json_date_key false/);
  rejects('[\n  {"date": 1.5, "a": 1}\n]\n', 'forwarder_array_format');
});

test('empty and blank bodies hold no record', () => {
  rejects('', 'empty_body');
  rejects('\n\r\n  \n', 'empty_body');
});

test('a UTF-8 byte order mark is skipped; invalid UTF-8 is rejected', () => {
  assert.equal(parse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"é"}')])).records.length, 1);
  rejects(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), 'invalid_utf8');
});

test('a record over the record limit is rejected with its line and the limit', () => {
  const big = JSON.stringify({ message: 'x'.repeat(2000) });
  rejects(`{"a":1}\n${big}\n`, 'record_too_large', { line: 2, limit_bytes: 1024 });
});

test('Docker json-file wrapper: the application JSON inside `log` is the record; stream and time are metadata', () => {
  const wrapper = {
    log: '{"level":"error","message":"boom","timestamp":"2026-11-22T08:00:00Z"}\n',
    stream: 'stderr',
    time: '2026-11-22T09:00:00.5Z',
  };
  const parsed = parse(JSON.stringify(wrapper));
  assert.deepEqual(JSON.parse(parsed.records[0]!), {
    level: 'error',
    message: 'boom',
    timestamp: '2026-11-22T08:00:00Z',
  });
  assert.deepEqual(JSON.parse(parsed.metas[0]!), { stream: 'stderr', time: '2026-11-22T09:00:00.5Z' });
  assert.equal(
    parsed.eventTimes[0],
    Date.parse('2026-11-22T08:00:00Z'),
    "the record's own time wins over the runtime's",
  );
});

test('CRI wrapper with logtag and message; plain text is kept as `message`, runtime time as event time', () => {
  const wrapper = { time: '2026-11-22T09:00:00.123456789Z', stream: 'stdout', logtag: 'F', message: 'plain text line' };
  const parsed = parse(JSON.stringify(wrapper));
  assert.deepEqual(JSON.parse(parsed.records[0]!), { message: 'plain text line' });
  assert.deepEqual(JSON.parse(parsed.metas[0]!), {
    stream: 'stdout',
    time: '2026-11-22T09:00:00.123456789Z',
    logtag: 'F',
  });
  assert.equal(parsed.eventTimes[0], Date.parse('2026-11-22T09:00:00.123Z'));
});

test('an application record with time and message but no stream is not a wrapper', () => {
  const record = { time: '2026-11-22T09:00:00Z', message: '{"looks":"like json"}' };
  const parsed = parse(JSON.stringify(record));
  assert.deepEqual(JSON.parse(parsed.records[0]!), record);
  assert.equal(parsed.metas[0], null);
});

test('a wrapper with extra fields is stored as sent (not guessed at)', () => {
  const record = { log: '{"a":1}', stream: 'stdout', kubernetes_pod_name: 'api-1' };
  assert.deepEqual(JSON.parse(parse(JSON.stringify(record)).records[0]!), record);
});

test('nesting deeper than 128 levels is refused with its line; brackets inside strings do not count', () => {
  const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  assert.equal(parse(`{"a":${deep(127)}}`).records.length, 1, '128 levels are accepted');
  rejects(`{"ok":1}\n{"a":${deep(128)}}\n`, 'nesting_too_deep', { line: 2 });
  rejects(`{\n "a": ${deep(200)}\n}`, 'nesting_too_deep', { line: 1 });
  assert.equal(parse(JSON.stringify({ text: '['.repeat(500) + '{'.repeat(500) })).records.length, 1);
});

test('records without a parseable time get NaN (the receive time is used)', () => {
  const parsed = parse('{"timestamp":"yesterday"}\n{"timestamp":"2026-11-22T10:00:00Z"}');
  assert.ok(Number.isNaN(parsed.eventTimes[0]));
  assert.equal(parsed.eventTimes[1], Date.parse('2026-11-22T10:00:00Z'));
});
