// Reading fields out of raw records: dotted paths into nested objects (as the API's filters
// name them), a flat list of every field for the detail view, and the text a cell shows.
import { isExactNumber, stringifyJson } from '../../lib/exact-json';

/** The value at a dotted path of object keys, or undefined when any step is missing. */
export function valueAt(record: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(record, path)) return record[path];
  let node: unknown = record;
  for (const segment of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, segment))
      return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

export interface FlatField {
  path: string;
  value: unknown;
  /** A filter can name it: object keys only, none holding a dot, quote, backslash or control character. */
  filterable: boolean;
}

const UNNAMEABLE = /[."\\]/;

/** A control character (U+0000–U+001F, U+007F), which a field path may not hold either. */
const isControl = (char: string) => char < ' ' || char === '\u007f';

function nameableKey(key: string): boolean {
  return key !== '' && !UNNAMEABLE.test(key) && !Array.from(key).some(isControl);
}

/** Every leaf of a record (arrays stay whole), in document order, at most `max`. */
export function flatten(record: Record<string, unknown>, max = 500): FlatField[] {
  const fields: FlatField[] = [];
  const walk = (node: Record<string, unknown>, prefix: string, nameable: boolean) => {
    for (const [key, value] of Object.entries(node)) {
      if (fields.length >= max) return;
      const path = prefix ? `${prefix}.${key}` : key;
      const ok = nameable && nameableKey(key);
      if (
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        !isExactNumber(value) &&
        Object.keys(value).length > 0
      )
        walk(value as Record<string, unknown>, path, ok);
      else
        fields.push({
          path,
          value,
          filterable: ok && (value === null || ['string', 'number', 'boolean'].includes(typeof value)),
        });
    }
  };
  walk(record, '', true);
  return fields;
}

const MESSAGE_FIELDS = ['message', 'msg', 'log', 'MESSAGE', 'short_message', 'event.original'];

/** The value a column shows: alternatives split by `|`, `message` trying the usual names. */
export function columnValue(record: Record<string, unknown>, column: string): unknown {
  const candidates = column === 'message' ? MESSAGE_FIELDS : column.split('|');
  for (const candidate of candidates) {
    const value = valueAt(record, candidate);
    if (value !== undefined) return value;
  }
  return undefined;
}

export function columnLabel(column: string): string {
  return column.split('|').join(' / ');
}

/** One line of text for a cell. */
export function cellText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return stringifyJson(value);
}

/** Field paths seen in the records, the most common first: suggestions for columns and filters. */
export function commonFields(records: { record: Record<string, unknown> }[], limit = 40): string[] {
  const counts = new Map<string, number>();
  for (const { record } of records.slice(0, 200)) {
    for (const field of flatten(record, 100)) counts.set(field.path, (counts.get(field.path) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([path]) => path);
}
