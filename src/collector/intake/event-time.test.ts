import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventTimeOf, parseTime } from './event-time.js';

const utc = (iso: string) => Date.parse(iso);

test('ISO 8601 with Z, numeric offsets in every spelling, and fractions', () => {
  assert.equal(parseTime('2026-11-22T10:00:00Z'), utc('2026-11-22T10:00:00Z'));
  assert.equal(parseTime('2026-11-22T10:00:00.123456Z'), utc('2026-11-22T10:00:00.123Z'));
  assert.equal(parseTime('2026-11-22T11:00:00+01:00'), utc('2026-11-22T10:00:00Z'));
  assert.equal(parseTime('2026-11-22T11:00:00+0100'), utc('2026-11-22T10:00:00Z'));
  assert.equal(parseTime('2026-11-22T11:00:00+01'), utc('2026-11-22T10:00:00Z'));
  assert.equal(parseTime('2026-11-22 10:00:00,250Z'), utc('2026-11-22T10:00:00.250Z'));
});

test('a time without a zone is read as UTC, whatever the server time zone', () => {
  assert.equal(parseTime('2026-11-22T10:00:00'), utc('2026-11-22T10:00:00Z'));
  assert.equal(parseTime('2026-11-22'), utc('2026-11-22T00:00:00Z'));
});

test("the web server's time_local form", () => {
  assert.equal(parseTime('22/Nov/2026:11:00:00 +0100'), utc('2026-11-22T10:00:00Z'));
});

test('epoch numbers in seconds, milliseconds, microseconds and nanoseconds', () => {
  const ms = utc('2026-11-22T10:00:00.500Z');
  assert.equal(parseTime(ms / 1000), ms);
  assert.equal(parseTime(ms), ms);
  assert.equal(parseTime(ms * 1000), ms);
  assert.equal(parseTime(ms * 1e6), ms);
  assert.equal(parseTime(String(ms / 1000)), ms);
});

test('unparseable or out-of-range times are not event times', () => {
  for (const value of ['yesterday', 'Nov 22 10:00:00', '', '2026-13-45T99:00:00Z', -5, true, null, { t: 1 }]) {
    assert.equal(parseTime(value), undefined, JSON.stringify(value));
  }
});

test('fields are looked up in order: timestamp, time, @timestamp; a bad one falls through', () => {
  assert.equal(eventTimeOf({ time: '2026-11-22T10:00:00Z', timestamp: 'bad' }), utc('2026-11-22T10:00:00Z'));
  assert.equal(eventTimeOf({ '@timestamp': '2026-11-22T10:00:00Z' }), utc('2026-11-22T10:00:00Z'));
  assert.equal(eventTimeOf({ message: 'no time' }), undefined);
});

test('the toISOString form, with and without the fraction, reads as it always did', () => {
  for (const value of ['2026-11-22T10:00:00.123Z', '2026-11-22T10:00:00Z', '1970-01-01T00:00:00.000Z']) {
    assert.equal(parseTime(value), utc(value), value);
  }
  assert.equal(parseTime(' 2026-11-22T10:00:00.123Z '), utc('2026-11-22T10:00:00.123Z'));
  for (const value of ['2026-13-45T99:00:00.000Z', '2026-11-22T25:00:00Z', '+02026-11-22T10:00:00Z']) {
    assert.equal(parseTime(value), undefined, value);
  }
});

test('the toISOString form reads as Date.parse reads it, on every day of three years and random instants to 9999', () => {
  const expected = (value: string) => {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? undefined : parsed;
  };
  const instants: number[] = [];
  // Every day of 1999–2001 (a common year, a leap century year, a common year).
  for (let day = 0; day < 1_096; day++) instants.push(Date.UTC(1999, 0, 1 + day, 23, 59, 59, 999));
  for (let i = 0; i < 20_000; i++) instants.push(Math.floor(Math.random() * 253_402_300_800_000));
  for (const ms of instants) {
    const iso = new Date(ms).toISOString();
    assert.equal(parseTime(iso), ms, iso);
    const whole = `${iso.slice(0, 19)}Z`;
    assert.equal(parseTime(whole), expected(whole), whole);
  }
  const edges = [
    ['2024-02-29T12:00:00.000Z', '2023-02-29T12:00:00Z', '2100-02-29T00:00:00Z', '2400-02-29T00:00:00Z'],
    ['2100-03-01T00:00:00Z', '2026-04-31T00:00:00Z', '2026-11-22T24:00:00Z', '2026-00-10T00:00:00Z'],
    ['2026-11-00T00:00:00Z', '2026-11-22T10:60:00Z', '2026-11-22T10:00:60Z', '9999-12-31T23:59:59.999Z'],
  ].flat();
  for (const value of edges) assert.equal(parseTime(value), expected(value), value);
});

test('a Windows event rendered as JSON: TimeCreated SystemTime in each converter spelling, after the usual fields', () => {
  const system = (timeCreated: unknown) => ({ Event: { System: { EventID: 1102, TimeCreated: timeCreated } } });
  // evtx_dump: `#attributes`, nanosecond fractions.
  assert.equal(
    eventTimeOf(system({ '#attributes': { SystemTime: '2021-11-19T16:52:33.833733500Z' } })),
    utc('2021-11-19T16:52:33.833Z'),
  );
  // xmltodict over python-evtx's XML: `@SystemTime`, written with isoformat(' ') in UTC.
  assert.equal(eventTimeOf(system({ '@SystemTime': '2026-11-22 10:16:30.123456' })), utc('2026-11-22T10:16:30.123Z'));
  // evtx_dump --separate-json-attributes: a sibling TimeCreated_attributes.
  assert.equal(
    eventTimeOf({ Event: { System: { TimeCreated_attributes: { SystemTime: '2010-11-10T18:18:51Z' } } } }),
    utc('2010-11-10T18:18:51Z'),
  );
  const both = { '@timestamp': '2026-11-22T10:20:00Z', ...system({ '@SystemTime': '2026-11-22T10:16:30Z' }) };
  assert.equal(eventTimeOf(both), utc('2026-11-22T10:20:00Z'), "a forwarder's own time field comes first");
  assert.equal(eventTimeOf(system({ '@SystemTime': 'not a time' })), undefined);
  assert.equal(eventTimeOf({ Event: { System: 'text' } }), undefined);
  assert.equal(eventTimeOf({ Event: [] }), undefined);
});
