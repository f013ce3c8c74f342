// Turns a decoded collector body into records to store. The body is one JSON object, or JSON
// objects one per line (NDJSON: blank lines ignored, CRLF accepted, last newline optional).
// A request is all or nothing: any bad line rejects the whole body, naming the line.
import { isUtf8 } from 'node:buffer';
import { AppError } from '../../core/errors.js';
import { eventTimeOf, parseTime } from './event-time.js';
import { isPlainObject, unwrapContainerRecord } from './unwrap.js';
import { compactJson } from '../../core/exact-json.js';

export interface ParsedBody {
  /** JSON text of each record, as it will be stored. */
  records: string[];
  /** The record's own time (epoch ms), or NaN when it has none: the receive time is used then. */
  eventTimes: number[];
  /** Transport metadata per record (JSON text), or null. */
  metas: (string | null)[];
  /** Total bytes of the stored record texts (UTF-16 length, a close stand-in for queue accounting). */
  bytes: number;
}

export interface ParseLimits {
  maxRecordBytes: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
/** Deeper records are refused: reading them back would overflow the stack of every consumer. */
export const MAX_NESTING_DEPTH = 128;

export function parseBody(body: Buffer, limits: ParseLimits): ParsedBody {
  if (!isUtf8(body)) throw new AppError('invalid_utf8', 'the body is not valid UTF-8; JSON must be sent as UTF-8');
  let start = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  const parsed: ParsedBody = { records: [], eventTimes: [], metas: [], bytes: 0 };

  let lineNumber = 0;
  while (start < body.length) {
    lineNumber++;
    let end = body.indexOf(NEWLINE, start);
    const next = end === -1 ? body.length : end + 1;
    if (end === -1) end = body.length;
    if (end > start && body[end - 1] === CARRIAGE_RETURN) end--;
    if (!isBlank(body, start, end)) {
      if (end - start > limits.maxRecordBytes) throw recordTooLarge(lineNumber, end - start, limits);
      if (nestedTooDeep(body.subarray(start, end))) throw nestingTooDeep(lineNumber);
      const text = body.toString('utf8', start, end);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        // A pretty-printed single object spans lines: its first line alone is not JSON.
        if (parsed.records.length === 0) {
          const whole = parseWholeBody(body, limits);
          if (whole) return whole;
        }
        throw invalidJson(lineNumber, error);
      }
      addRecord(parsed, value, text, lineNumber);
    }
    start = next;
  }
  if (parsed.records.length === 0) {
    throw new AppError('empty_body', 'the body holds no record: send one JSON object, or JSON objects one per line');
  }
  return parsed;
}

function addRecord(parsed: ParsedBody, value: unknown, text: string, lineNumber: number): void {
  if (!isPlainObject(value)) {
    // A body that opens with an array is a forwarder's array format; an array after object
    // lines is one bad line of an NDJSON body, and the sender's data, not its format, is wrong.
    if (Array.isArray(value) && parsed.records.length === 0) throw forwarderArrayFormat(lineNumber);
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    throw new AppError(
      'not_an_object',
      `line ${lineNumber}: expected a JSON object, got ${got}; each record must be one JSON object`,
      { extensions: { line: lineNumber } },
    );
  }
  const unwrapped = unwrapContainerRecord(value);
  if (unwrapped) {
    const recordText = unwrapped.text;
    parsed.records.push(recordText);
    parsed.eventTimes.push(eventTimeOf(unwrapped.record) ?? parseTime(unwrapped.meta.time) ?? Number.NaN);
    const metaText = JSON.stringify(unwrapped.meta);
    parsed.metas.push(metaText);
    parsed.bytes += recordText.length + metaText.length;
    return;
  }
  parsed.records.push(text);
  parsed.eventTimes.push(eventTimeOf(value) ?? Number.NaN);
  parsed.metas.push(null);
  parsed.bytes += text.length;
}

function parseWholeBody(body: Buffer, limits: ParseLimits): ParsedBody | undefined {
  if (nestedTooDeep(body)) throw nestingTooDeep(1);
  const whole = body.toString('utf8').replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(whole);
  } catch {
    // Not a multi-line document either; the caller reports the first line's error.
    return undefined;
  }
  if (Array.isArray(value)) throw forwarderArrayFormat(1);
  if (!isPlainObject(value)) return undefined;
  // Kept as it was written, numbers and all; only the whitespace between tokens goes.
  const text = compactJson(whole);
  if (Buffer.byteLength(text) > limits.maxRecordBytes) throw recordTooLarge(1, Buffer.byteLength(text), limits);
  const parsed: ParsedBody = { records: [], eventTimes: [], metas: [], bytes: 0 };
  addRecord(parsed, value, text, 1);
  return parsed;
}

/**
 * Whether brackets nest deeper than MAX_NESTING_DEPTH outside strings. Nesting can be no
 * deeper than the number of opening brackets, so the exact scan runs only for the rare line
 * with more than that many; counting uses native byte search.
 */
export function nestedTooDeep(line: Buffer): boolean {
  let opens = 0;
  for (const bracket of [0x7b, 0x5b]) {
    for (let i = line.indexOf(bracket); i !== -1 && opens <= MAX_NESTING_DEPTH; i = line.indexOf(bracket, i + 1))
      opens++;
  }
  if (opens <= MAX_NESTING_DEPTH) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const byte = line[i];
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > MAX_NESTING_DEPTH) return true;
    } else if (byte === 0x7d || byte === 0x5d) depth--;
  }
  return false;
}

function nestingTooDeep(lineNumber: number): AppError {
  return new AppError(
    'nesting_too_deep',
    `line ${lineNumber}: objects and arrays nest deeper than ${MAX_NESTING_DEPTH} levels`,
    {
      extensions: { line: lineNumber, limit_depth: MAX_NESTING_DEPTH },
    },
  );
}

function isBlank(body: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = body[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== CARRIAGE_RETURN) return false;
  }
  return true;
}

function invalidJson(lineNumber: number, error: unknown): AppError {
  const reason = error instanceof SyntaxError ? error.message : String(error);
  return new AppError('invalid_json', `line ${lineNumber}: ${reason}`, { extensions: { line: lineNumber } });
}

function recordTooLarge(lineNumber: number, size: number, limits: ParseLimits): AppError {
  return new AppError(
    'record_too_large',
    `line ${lineNumber}: the record is ${size} bytes; the largest accepted record is ${limits.maxRecordBytes} bytes`,
    { extensions: { line: lineNumber, limit_bytes: limits.maxRecordBytes } },
  );
}

/** The documented error (docs/collector.md, Errors) for a forwarder's `Format json` (array of date-keyed records). */
function forwarderArrayFormat(lineNumber: number): AppError {
  return new AppError(
    'forwarder_array_format',
    'Could not add time to JSON for the forwarder: the body is a JSON array (a forwarder array format such as ' +
      "Fluent Bit's `Format json`, records wrapped with a date key), but the collector adds timestamps server-side and " +
      'accepts one JSON object or JSON objects one per line. Set `Format json_lines` and `json_date_key false` in the ' +
      'forwarder output, then restart the forwarder. Nothing of this request was stored.',
    { extensions: { line: lineNumber } },
  );
}
