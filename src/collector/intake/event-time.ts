// The event time of a record: its own `timestamp`, `time` or `@timestamp` when that parses, else
// a Windows event's `Event.System.TimeCreated` SystemTime (evtx rendered as JSON), otherwise the
// caller falls back to the receive time. Accepted forms are documented in docs/collector.md, Event
// time: ISO 8601 (a zone-less time is UTC), the web-server `time_local` form, and epoch numbers in
// seconds, milliseconds, microseconds or nanoseconds.
import { isPlainObject } from './unwrap.js';

const TIME_FIELDS = ['timestamp', 'time', '@timestamp'] as const;
const MAX_TIME = 253402300799999; // 9999-12-31T23:59:59.999Z

const ISO_8601 = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const TIME_LOCAL = /^(\d{2})\/([A-Za-z]{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/;
const MONTHS: Record<string, string> = {
  jan: '01',
  feb: '02',
  mar: '03',
  apr: '04',
  may: '05',
  jun: '06',
  jul: '07',
  aug: '08',
  sep: '09',
  oct: '10',
  nov: '11',
  dec: '12',
};

/** Epoch milliseconds of the record's own time, or undefined when it has none that parses. */
export function eventTimeOf(record: Record<string, unknown>): number | undefined {
  for (const field of TIME_FIELDS) {
    const value = record[field];
    if (value === undefined) continue;
    const parsed = parseTime(value);
    if (parsed !== undefined) return parsed;
  }
  const event = record.Event;
  return isPlainObject(event) ? parseTime(windowsSystemTime(event)) : undefined;
}

/**
 * TimeCreated's SystemTime attribute (UTC) as evtx converters write it: `@SystemTime` (xmltodict
 * over python-evtx's XML), `#attributes.SystemTime` (evtx_dump), or a sibling
 * `TimeCreated_attributes` (evtx_dump --separate-json-attributes).
 */
function windowsSystemTime(event: Record<string, unknown>): unknown {
  const system = event.System;
  if (!isPlainObject(system)) return undefined;
  const created = system.TimeCreated;
  if (isPlainObject(created)) {
    const attributes = created['#attributes'];
    return (
      created['@SystemTime'] ?? created.SystemTime ?? (isPlainObject(attributes) ? attributes.SystemTime : undefined)
    );
  }
  const separate = system.TimeCreated_attributes;
  return isPlainObject(separate) ? separate.SystemTime : undefined;
}

export function parseTime(value: unknown): number | undefined {
  let ms: number | undefined;
  if (typeof value === 'number') ms = fromEpochNumber(value);
  else if (typeof value === 'string') ms = fromString(value.trim());
  if (ms === undefined || !Number.isFinite(ms) || ms < 0 || ms > MAX_TIME) return undefined;
  return Math.floor(ms);
}

function fromEpochNumber(value: number): number {
  const magnitude = Math.abs(value);
  if (magnitude < 1e11) return value * 1000; // seconds (until the year 5138)
  if (magnitude < 1e14) return value; // milliseconds
  if (magnitude < 1e17) return value / 1000; // microseconds
  return value / 1e6; // nanoseconds
}

/** The digits at [at, at + count) as a number, or -1 when any of them is not a digit. */
function digitsAt(value: string, at: number, count: number): number {
  let number = 0;
  for (let i = at; i < at + count; i++) {
    const digit = value.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}

/**
 * Epoch ms of a text in the form `Date.prototype.toISOString` writes (`2026-11-22T10:00:00.000Z`,
 * or without the fraction), by arithmetic; undefined for any other text. Most senders write
 * exactly that, and `Date.parse` cost a sixth of the collector's parsing time at line rate. Day
 * 29 and later, and out-of-range fields, go to `Date.parse`, so what it accepts and refuses
 * (30 February, hour 24) stays exactly as before.
 */
function canonicalIsoMs(value: string): number | undefined {
  const length = value.length;
  if ((length !== 24 && length !== 20) || value.charCodeAt(length - 1) !== 0x5a /* Z */) return undefined;
  // -, -, T, :, : and, with a fraction, the point.
  if (value.charCodeAt(4) !== 0x2d || value.charCodeAt(7) !== 0x2d || value.charCodeAt(10) !== 0x54) return undefined;
  if (value.charCodeAt(13) !== 0x3a || value.charCodeAt(16) !== 0x3a) return undefined;
  if (length === 24 && value.charCodeAt(19) !== 0x2e) return undefined;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  const millis = length === 24 ? digitsAt(value, 20, 3) : 0;
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || millis < 0) return undefined;
  if (month < 1 || month > 12 || day < 1 || day > 28 || hour > 23 || minute > 59 || second > 59)
    return Date.parse(value);
  return daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil), year ≥ 0. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function fromString(value: string): number | undefined {
  const canonical = canonicalIsoMs(value);
  if (canonical !== undefined) return canonical;
  const iso = ISO_8601.exec(value);
  if (iso) {
    const [, date, time, zone] = iso;
    if (time === undefined) throw new Error('ISO_8601 matched without its time group');
    const fraction = time.replace(',', '.').replace(/(\.\d{3})\d+$/, '$1');
    let offset = zone ?? 'Z';
    if (/^[+-]\d{2}$/.test(offset)) offset += ':00';
    else if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
    return Date.parse(`${date}T${fraction}${offset.toUpperCase()}`);
  }
  if (DATE_ONLY.test(value)) return Date.parse(`${value}T00:00:00Z`);
  const local = TIME_LOCAL.exec(value);
  if (local) {
    const [, day, month, year, hh, mm, ss, sign, oh, om] = local;
    if (month === undefined) throw new Error('TIME_LOCAL matched without its month group');
    const monthNumber = MONTHS[month.toLowerCase()];
    if (!monthNumber) return undefined;
    return Date.parse(`${year}-${monthNumber}-${day}T${hh}:${mm}:${ss}${sign}${oh}:${om}`);
  }
  if (/^-?\d+(\.\d+)?$/.test(value)) return fromEpochNumber(Number(value));
  return undefined;
}
