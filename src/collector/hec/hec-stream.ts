// Reads the body HEC senders write to /services/collector/event: JSON objects one after another,
// with or without whitespace between them (splunk-logging joins them with nothing at all). Each
// object is cut out by scanning brackets outside strings, then parsed; the member texts of an
// object can be taken as written, so numbers in an event keep every digit (docs/collector.md).
import { AppError } from '../../core/errors.js';
import { MAX_NESTING_DEPTH } from '../intake/parse.js';

export interface StreamLimits {
  maxRecordBytes: number;
}

/** One object of the stream: its text as sent and its parsed value. */
export interface StreamObject {
  text: string;
  value: Record<string, unknown>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** HEC's whitespace between objects: JSON's four (space, tab, LF, CR). */
function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** The objects of a concatenated-JSON text, in order; throws naming the first bad one (0-based). */
export function splitObjects(text: string, limits: StreamLimits): StreamObject[] {
  const objects: StreamObject[] = [];
  let at = skipWhitespace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  while (at < text.length) {
    const number = objects.length;
    if (text.charCodeAt(at) !== OPEN_BRACE) throw invalidEvent(number, 'expected a JSON object, starting with "{"');
    const end = objectEnd(text, at, number);
    const objectText = text.slice(at, end);
    const bytes = Buffer.byteLength(objectText);
    if (bytes > limits.maxRecordBytes) {
      throw new AppError(
        'record_too_large',
        `event ${number}: ${bytes} bytes; the largest accepted event is ${limits.maxRecordBytes} bytes`,
        { extensions: { event_number: number, limit_bytes: limits.maxRecordBytes } },
      );
    }
    objects.push({ text: objectText, value: parseObject(objectText, number) });
    at = skipWhitespace(text, end);
  }
  return objects;
}

function skipWhitespace(text: string, from: number): number {
  let at = from;
  while (at < text.length && isWhitespace(text.charCodeAt(at))) at++;
  return at;
}

/** The index just past the string whose opening quote is at `at`, or -1 when it never closes. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === QUOTE) return i + 1;
  }
  return -1;
}

/** The index just past the object or array opening at `at`; throws when it is cut short or too deep. */
function objectEnd(text: string, at: number, number: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) break;
      i = end - 1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > MAX_NESTING_DEPTH) {
        throw new AppError('nesting_too_deep', `event ${number}: nests deeper than ${MAX_NESTING_DEPTH} levels`, {
          extensions: { event_number: number, limit_depth: MAX_NESTING_DEPTH },
        });
      }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      if (--depth === 0) return i + 1;
    }
  }
  throw invalidEvent(number, 'the JSON object ends before it is closed');
}

function parseObject(text: string, number: number): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw invalidEvent(number, error instanceof Error ? error.message : String(error));
  }
}

/** HEC's "Invalid data format" for the event at `number` (0-based, as HEC counts). */
export function invalidEvent(number: number, reason: string): AppError {
  return new AppError('hec_invalid_event', `event ${number}: ${reason}`, { extensions: { event_number: number } });
}

/**
 * The top-level members of a valid JSON object text, each value as its text (the last of a
 * repeated name, as JSON.parse keeps it). Only called on text JSON.parse has accepted.
 */
export function memberTexts(objectText: string): Map<string, string> {
  const members = new Map<string, string>();
  let at = skipWhitespace(objectText, 1);
  while (at < objectText.length && objectText.charCodeAt(at) === QUOTE) {
    const keyEnd = stringEnd(objectText, at);
    const key = JSON.parse(objectText.slice(at, keyEnd)) as string;
    // Past the colon and the whitespace around it.
    const valueStart = skipWhitespace(objectText, skipWhitespace(objectText, keyEnd) + 1);
    const valueEnd = valueEndAt(objectText, valueStart);
    members.set(key, objectText.slice(valueStart, valueEnd));
    // Past the comma, or onto the closing brace (which ends the loop).
    at = skipWhitespace(objectText, valueEnd);
    if (objectText.charCodeAt(at) === 0x2c) at = skipWhitespace(objectText, at + 1);
  }
  return members;
}

function valueEndAt(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code === QUOTE) return stringEnd(text, at);
  if (code === OPEN_BRACE || code === OPEN_BRACKET) return objectEnd(text, at, 0);
  let end = at;
  // A number, true, false or null: up to the next delimiter.
  while (end < text.length) {
    const next = text.charCodeAt(end);
    if (next === 0x2c || next === CLOSE_BRACE || next === CLOSE_BRACKET || isWhitespace(next)) break;
    end++;
  }
  return end;
}
