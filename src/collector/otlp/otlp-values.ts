// Reading OTLP/JSON-shaped values (from a JSON request, or a decoded protobuf one) into the JSON
// text records are stored as. Written as text, not built as objects: an int64 keeps every digit
// as a JSON number, and no value is parsed and serialised twice. Malformed data throws
// `invalid_otlp` (400); a value nested too deep throws NestedTooDeep.
import { AppError } from '../../core/errors.js';
import { MAX_NESTING_DEPTH } from '../intake/parse.js';

/** A record nests deeper than MAX_NESTING_DEPTH: refused on its own, not the whole request. */
export class NestedTooDeep extends Error {
  override name = 'NestedTooDeep';
}

export type Json = Record<string, unknown>;

export function badData(detail: string): AppError {
  return new AppError('invalid_otlp', `the OTLP request is malformed: ${detail}`);
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field by its OTLP/JSON name or its protobuf name (both are accepted, as protobuf's JSON parsers do). */
export function field(object: Json, camel: string, snake: string): unknown {
  return object[camel] ?? object[snake];
}

export function objectField(object: Json, camel: string, snake: string): Json | undefined {
  const value = field(object, camel, snake);
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw badData(`${camel} must be an object`);
  return value;
}

export function listField(object: Json, camel: string, snake: string): unknown[] {
  const value = field(object, camel, snake);
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badData(`${camel} must be an array`);
  return value;
}

export function stringField(object: Json, camel: string, snake: string): string {
  const value = field(object, camel, snake);
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw badData(`${camel} must be a string`);
  return value;
}

/** An integer field (uint32, int32, enum) as a number; 64-bit ones go through integerText. */
export function numberField(object: Json, camel: string, snake: string): number {
  const value = field(object, camel, snake);
  if (value === undefined || value === null) return 0;
  const number = typeof value === 'string' && /^-?\d{1,10}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number)) throw badData(`${camel} must be an integer`);
  return number;
}

/** A 64-bit integer as its exact decimal text: OTLP/JSON sends a string (or a number, accepted). */
export function integerText(value: unknown, name: string, unsigned: boolean): string {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !(unsigned ? /^\d{1,20}$/ : /^-?\d{1,19}$/).test(text)) {
    throw badData(`${name} must be a ${unsigned ? 'non-negative ' : ''}64-bit integer as a decimal string`);
  }
  return text.replace(/^(-?)0+(?=\d)/, '$1');
}

/** A trace or span id as lowercase hex: OTLP/JSON sends hex, protobuf bytes arrive as base64. */
export function idText(value: unknown, name: string, encoding: 'hex' | 'base64'): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value !== 'string') throw badData(`${name} must be a string`);
  if (encoding === 'base64') return Buffer.from(value, 'base64').toString('hex');
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(value)) throw badData(`${name} must be hex`);
  return value.toLowerCase();
}

/** An AnyValue as JSON text; an empty AnyValue is null. */
export function anyValueText(value: unknown, depth = 0): string {
  if (depth > MAX_NESTING_DEPTH) throw new NestedTooDeep();
  if (value === undefined || value === null) return 'null';
  if (!isObject(value)) throw badData('an AnyValue must be an object');
  if (typeof value.stringValue === 'string') return JSON.stringify(value.stringValue);
  if (typeof value.string_value === 'string') return JSON.stringify(value.string_value);
  const bool = field(value, 'boolValue', 'bool_value');
  if (typeof bool === 'boolean') return String(bool);
  const int = field(value, 'intValue', 'int_value');
  if (int !== undefined) return integerText(int, 'intValue', false);
  const double = field(value, 'doubleValue', 'double_value');
  if (double !== undefined) return doubleText(double);
  const array = objectField(value, 'arrayValue', 'array_value');
  if (array)
    return `[${listField(array, 'values', 'values')
      .map((item) => anyValueText(item, depth + 1))
      .join(',')}]`;
  const kvlist = objectField(value, 'kvlistValue', 'kvlist_value');
  if (kvlist) return `{${keyValuesText(listField(kvlist, 'values', 'values'), depth + 1)}}`;
  const bytes = field(value, 'bytesValue', 'bytes_value');
  if (typeof bytes === 'string') return JSON.stringify(bytes);
  return 'null';
}

/** KeyValues as the members of a JSON object (without the braces). */
export function keyValuesText(pairs: unknown[], depth = 0): string {
  let text = '';
  for (const pair of pairs) {
    if (!isObject(pair) || typeof pair.key !== 'string') throw badData('a KeyValue must have a string key');
    text += `${text === '' ? '' : ','}${JSON.stringify(pair.key)}:${anyValueText(pair.value, depth)}`;
  }
  return text;
}

/** JSON has no NaN or infinities: OTLP/JSON writes them as these strings, and so are they stored. */
function doubleText(value: unknown): string {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || (typeof value === 'string' && !/^(-?Infinity|NaN|[-+.\deE]+)$/.test(value))) {
    throw badData('doubleValue must be a number');
  }
  return Number.isFinite(number) ? JSON.stringify(number) : JSON.stringify(String(number));
}

/** Whether a parsed JSON value nests deeper than `limit` levels (walks at most that deep). */
export function nestsDeeper(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit === 0) return true;
  for (const child of Object.values(value)) if (nestsDeeper(child, limit - 1)) return true;
  return false;
}
