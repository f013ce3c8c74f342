import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../core/errors.js';
import type { ParsedBody } from '../intake/parse.js';
import { addEnvelope, addRawLine, emptyParsedBody, type HecDefaults } from './hec-event.js';
import { splitObjects } from './hec-stream.js';

/** The body as the event endpoint stores it. */
function events(body: string, defaults: HecDefaults = {}): ParsedBody {
  const parsed = emptyParsedBody();
  splitObjects(body, { maxRecordBytes: 4096 }).forEach((envelope, number) => {
    addEnvelope(parsed, envelope, number, defaults);
  });
  return parsed;
}

function refusal(body: string, code: string, eventNumber: number): void {
  assert.throws(
    () => events(body),
    (error: unknown) =>
      error instanceof AppError && error.code === code && error.extensions.event_number === eventNumber,
  );
}

test('an event object is the record as sent, with the metadata under hec', () => {
  const parsed = events(
    '{"time":1790000000.5,"host":"web-07","source":"app","sourcetype":"_json","index":"prod",' +
      '"fields":{"team":"payments","big":18446744073709551615},"event":{"EventID":1, "n":18446744073709551615}}',
  );
  assert.deepEqual(parsed.records, [
    '{"EventID":1,"n":18446744073709551615,"hec":{"host":"web-07","source":"app","sourcetype":"_json",' +
      '"index":"prod","fields":{"team":"payments","big":18446744073709551615},"time":1790000000.5}}',
  ]);
  assert.deepEqual(parsed.eventTimes, [1_790_000_000_500]);
  assert.deepEqual(parsed.metas, [null]);
});

test('without metadata the record is exactly the event; its own time is used when HEC gives none', () => {
  const parsed = events('{"event":{"timestamp":"2026-11-22T10:00:00Z","a":1}}{"event":{"a":2}}');
  assert.deepEqual(parsed.records, ['{"timestamp":"2026-11-22T10:00:00Z","a":1}', '{"a":2}']);
  assert.equal(parsed.eventTimes[0], Date.parse('2026-11-22T10:00:00Z'));
  assert.ok(Number.isNaN(parsed.eventTimes[1]));
});

test('text events: JSON object text becomes the object, other text the message', () => {
  const parsed = events(
    '{"event":"{\\"a\\":1}"}{"event":"plain words"}{"event":42}{"event":[1,2]}{"event":"{not json"}',
    { sourcetype: 'st' },
  );
  assert.deepEqual(parsed.records, [
    '{"a":1,"hec":{"sourcetype":"st"}}',
    '{"message":"plain words","hec":{"sourcetype":"st"}}',
    '{"message":42,"hec":{"sourcetype":"st"}}',
    '{"message":[1,2],"hec":{"sourcetype":"st"}}',
    '{"message":"{not json","hec":{"sourcetype":"st"}}',
  ]);
});

test("an event's own hec member is kept; the metadata goes beside the record then", () => {
  const parsed = events('{"host":"h","event":{"hec":"mine"}}');
  assert.deepEqual(parsed.records, ['{"hec":"mine"}']);
  assert.deepEqual(parsed.metas, ['{"hec":{"host":"h"}}']);
});

test("an envelope's metadata wins over the query's defaults", () => {
  const parsed = events('{"event":{"a":1},"host":"own"}', { host: 'default', index: 'main', time: '1790000000' });
  assert.deepEqual(parsed.records, ['{"a":1,"hec":{"host":"own","index":"main"}}']);
  assert.deepEqual(parsed.eventTimes, [1_790_000_000_000]);
});

test('missing, blank and malformed events are refused with their number', () => {
  refusal('{"event":1}{"host":"h"}', 'hec_event_missing', 1);
  refusal('{"event":null}', 'hec_event_missing', 0);
  refusal('{"event":1}{"event":1}{"event":"  "}', 'hec_event_blank', 2);
  refusal('{"event":{}}', 'hec_event_blank', 0);
  refusal('{"event":1,"time":"yesterday"}', 'hec_invalid_event', 0);
  refusal('{"event":1,"host":7}', 'hec_invalid_event', 0);
  refusal('{"event":1,"fields":["a"]}', 'hec_invalid_event', 0);
});

test('raw lines take the metadata of the request', () => {
  const parsed = emptyParsedBody();
  addRawLine(parsed, 'sshd[1]: Failed password', { host: 'web-07', time: '1790000000' });
  addRawLine(parsed, '{"a":1}', {});
  assert.deepEqual(parsed.records, ['{"message":"sshd[1]: Failed password","hec":{"host":"web-07"}}', '{"a":1}']);
  assert.deepEqual(parsed.eventTimes.slice(0, 1), [1_790_000_000_000]);
});
