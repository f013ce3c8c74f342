// The event time of a record: its own `timestamp`, `time` or `@timestamp` when that parses,
// otherwise the caller falls back to the receive time. Accepted forms are documented in the
// README: ISO 8601 (a zone-less time is UTC), the web-server `time_local` form, and epoch
// numbers in seconds, milliseconds, microseconds or nanoseconds.

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
  return undefined;
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

/**
 * Whether the text is in the form `Date.prototype.toISOString` writes (`2026-11-22T10:00:00.000Z`,
 * or without the fraction): most senders write exactly that, and `Date.parse` reads it as the
 * general path below would, without the regular expressions and the rebuilt string.
 */
function isCanonicalIso(value: string): boolean {
  const length = value.length;
  if (length !== 24 && length !== 20) return false;
  if (value.charCodeAt(length - 1) !== 0x5a /* Z */) return false;
  for (let i = 0; i < length - 1; i++) {
    const code = value.charCodeAt(i);
    const expected = CANONICAL_SEPARATORS[i];
    if (expected === undefined) {
      if (code < 0x30 || code > 0x39) return false;
    } else if (code !== expected) return false;
  }
  return true;
}
/** Separator character codes by position in `YYYY-MM-DDTHH:MM:SS.sssZ`; digits elsewhere. */
const CANONICAL_SEPARATORS: Record<number, number> = { 4: 0x2d, 7: 0x2d, 10: 0x54, 13: 0x3a, 16: 0x3a, 19: 0x2e };

function fromString(value: string): number | undefined {
  if (isCanonicalIso(value)) return Date.parse(value);
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
