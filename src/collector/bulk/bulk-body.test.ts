import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../core/errors.js';
import { MAX_NESTING_DEPTH } from '../intake/parse.js';
import { MAX_ID_BYTES, parseBulkBody } from './bulk-body.js';

const limits = { maxRecordBytes: 300 };
const parse = (lines: string[], index?: string) => parseBulkBody(Buffer.from(lines.join('\n') + '\n'), limits, index);
const refused = (lines: string[], code: string, reason: RegExp) =>
  assert.throws(
    () => parse(lines),
    (error) => error instanceof AppError && error.code === code && reason.test(error.detail),
  );

test('each index or create document is stored as its exact text, with _index and _id as metadata', () => {
  const document = '{"@timestamp":"2026-11-20T08:00:00Z", "big":18446744073709551615,"ratio":1.50}';
  const { stored, items } = parse(
    ['{"index":{"_index":"logs","_id":"a1"}}', document, '{"create":{}}', '{"n":2}'],
    'dflt',
  );
  assert.deepEqual(stored.records, [document, '{"n":2}']);
  assert.equal(stored.eventTimes[0], Date.parse('2026-11-20T08:00:00Z'));
  assert.ok(Number.isNaN(stored.eventTimes[1]), 'no own time: the receive time is used');
  assert.deepEqual(JSON.parse(stored.metas[0]!), { _index: 'logs', _id: 'a1' });
  const generated = JSON.parse(stored.metas[1]!) as { _index: string; _id: string };
  assert.equal(generated._index, 'dflt', "the path's index when the action names none");
  assert.match(generated._id, /^[A-Za-z0-9_-]{20}$/);
  assert.deepEqual(
    items.map((item) => [item.action, item.id, item.record, item.error]),
    [
      ['index', 'a1', 0, undefined],
      ['create', generated._id, 1, undefined],
    ],
  );
});

test('a bad document is its own item error; the others are stored', () => {
  const deep = '{"a":' + '['.repeat(MAX_NESTING_DEPTH + 1) + ']'.repeat(MAX_NESTING_DEPTH + 1) + '}';
  const { stored, items } = parse([
    '{"index":{"_index":"i"}}',
    '"just text"',
    '{"index":{"_index":"i"}}',
    '{"ok":1}',
    '{"index":{"_index":"i"}}',
    '{"broken":',
    '{"index":{"_index":"i"}}',
    `{"long":"${'x'.repeat(400)}"}`,
    '{"index":{"_index":"i"}}',
    deep,
    '{"index":{}}',
    '{"no":"index"}',
    `{"index":{"_index":"i","_id":"${'x'.repeat(MAX_ID_BYTES + 1)}"}}`,
    '{"too":"long an id"}',
  ]);
  assert.deepEqual(stored.records, ['{"ok":1}']);
  const errors = items.map((item) => item.error?.type);
  assert.deepEqual(errors, [
    'document_parsing_exception',
    undefined,
    'document_parsing_exception',
    'document_parsing_exception',
    'document_parsing_exception',
    'action_request_validation_exception',
    'illegal_argument_exception',
  ]);
  assert.match(items[0]!.error!.reason, /must be a JSON object, got string/);
  assert.match(items[3]!.error!.reason, /largest accepted document is 300 bytes/);
  assert.match(items[4]!.error!.reason, /nest deeper than 128/);
  assert.equal(items[0]!.id, null, 'a refused document is given no id');
});

test('update and delete are refused per item: records cannot change; delete has no document line', () => {
  const { stored, items } = parse([
    '{"delete":{"_index":"i","_id":"1"}}',
    '{"update":{"_index":"i","_id":"1"}}',
    '{"doc":{"a":1}}',
    '{"create":{"_index":"i"}}',
    '{"a":2}',
  ]);
  assert.deepEqual(stored.records, ['{"a":2}']);
  assert.deepEqual(
    items.map((item) => [item.action, item.error?.type]),
    [
      ['delete', 'action_request_validation_exception'],
      ['update', 'action_request_validation_exception'],
      ['create', undefined],
    ],
  );
  assert.match(items[0]!.error!.reason, /cannot be changed or removed/);
});

test('blank lines and CRLF are read past; the last newline is optional', () => {
  const body = Buffer.from('\r\n{"index":{"_index":"i"}}\r\n\r\n{"a":1}\r\n   \n{"index":{"_index":"i"}}\n{"b":2}');
  assert.deepEqual(parseBulkBody(body, limits).stored.records, ['{"a":1}', '{"b":2}']);
});

test('a body whose structure cannot be followed is refused whole', () => {
  refused(['{"index":{"_index":"i"}}'], 'invalid_json', /index action on line \[1\] has no document line/);
  refused(['not json', '{}'], 'invalid_json', /Malformed action\/metadata line \[1\]/);
  refused(['["index"]', '{}'], 'invalid_json', /expected START_OBJECT but found an array/);
  refused(
    ['{"upsert":{}}', '{}'],
    'invalid_json',
    /expected one of index, create, update, delete but found \[upsert\]/,
  );
  refused(['{"index":{},"create":{}}', '{}'], 'invalid_json', /found \[index, create\]/);
  refused(['{"index":"logs"}', '{}'], 'invalid_json', /expected START_OBJECT after \[index\]/);
  refused(['{"index":{"_idx":"a"}}', '{}'], 'invalid_json', /unknown parameter \[_idx\]/);
  refused(['{"index":{"_index":7}}', '{}'], 'invalid_json', /\[_index\] must be a non-empty string/);
  refused([''], 'empty_body', /no requests added/);
  assert.throws(() => parseBulkBody(Buffer.from([0xff, 0x0a]), limits), /not valid UTF-8/);
});

test('metadata Elasticsearch takes is accepted, and a numeric id is kept as text', () => {
  const { items } = parse(['{"index":{"_index":"i","_id":42,"_type":"_doc","pipeline":"p","routing":"r"}}', '{}']);
  assert.equal(items[0]!.id, '42');
  assert.equal(items[0]!.error, undefined);
});
