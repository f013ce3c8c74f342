// A Windows event's data (EventData, or UserData's one element) copied to top-level fields under
// their Windows names, from every JSON rendering of the event XML. Values without a name
// (`<Data>x</Data>`: classic event sources such as MSSQL, ESENT, MsiInstaller, Windows PowerShell)
// become one multi-valued `Data` field, a list of strings, as SigmaHQ's rules read it
// (`Data|contains: xp_cmdshell` matches when any value does). docs/telemetry-mapping.md shows the shapes.
import { isObject, setIfPresent, type Fields } from './fields.js';
import { FLATTEN_LIMITS } from './flatten.js';

/** Unnamed values gathered so far; null until the first (most events have none). */
type Unnamed = string[] | null;

/**
 * EventData or UserData as JSON renders it:
 *   - xmltodict (python-evtx): `{Data: [{"@Name": n, "#text": v} | "v" | null, …]}`, one item
 *     without the list, `{"@Name": n}` for an empty element;
 *   - evtx_dump (the Rust evtx crate): named values as a map `{n: v, …, Binary}`, unnamed ones as
 *     `{Data: {"#text": [v, …]}}` (or one `"#text": v`);
 *   - a bare list of `{"@Name"|"Name": n, "#text"|"Value": v}` items; a map of names under `Data`;
 *   - UserData: `{Element: {n: v, …}}` with the element's `@`/`#attributes` markup.
 * An empty named element is the empty string, as Windows shows it; empty unnamed values are dropped.
 */
export function copyEventData(section: unknown, fields: Fields): void {
  setUnnamed(fields, readSection(section, fields, null));
}

/** Sets `Data` to the unnamed values (a field the record already has is left alone). */
export function setUnnamed(fields: Fields, unnamed: Unnamed): void {
  if (unnamed !== null && fields.Data === undefined) fields.Data = unnamed;
}

/** The values of a list from `from` on, as unnamed values (Fluent Bit's inserts past a template). */
export function unnamedValues(values: readonly unknown[], from: number): Unnamed {
  let unnamed: Unnamed = null;
  for (let index = from; index < values.length; index++) unnamed = addValue(unnamed, values[index]);
  return unnamed;
}

/**
 * A flat record's own `Data` (NXLog, converters) as the same list of strings: one string becomes
 * a one-item list, numbers become their text, and empty values are dropped.
 */
export function normaliseDataField(fields: Fields): void {
  const data = fields.Data;
  if (data === undefined || data === null) return;
  const unnamed = addValue(null, data);
  if (unnamed === null) delete fields.Data;
  else fields.Data = unnamed;
}

/**
 * Winlogbeat names unnamed values `param1`…`paramN` by position (a missing number is an empty
 * value it dropped; its renderer for events without a template counts from `param0`). When every
 * value of `event_data` is so named, they also form `Data`, in order; an event that names its
 * own values `paramN` (Service Control Manager 7036) cannot be told apart and gets `Data` too.
 */
export function winlogbeatParams(eventData: Record<string, unknown>): Unnamed {
  let lowest = Infinity;
  let highest = -1;
  for (const name in eventData) {
    if (name === 'Binary') continue;
    const position = paramPosition(name);
    if (position < 0) return null;
    if (position < lowest) lowest = position;
    if (position > highest) highest = position;
  }
  let unnamed: Unnamed = null;
  for (let position = lowest; position <= highest; position++)
    unnamed = addValue(unnamed, eventData[`param${position}`]);
  return unnamed;
}

/** N of `paramN` (N from 0 to 999), else -1. */
function paramPosition(name: string): number {
  if (name.length < 6 || name.length > 8 || !name.startsWith('param')) return -1;
  let position = 0;
  for (let i = 5; i < name.length; i++) {
    const digit = name.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    position = position * 10 + digit;
  }
  return position;
}

/** A map of named values (EventData, UserData or one of its elements); `Data` holds Data elements. */
function readSection(section: unknown, fields: Fields, unnamed: Unnamed): Unnamed {
  if (Array.isArray(section)) {
    for (const item of section) unnamed = readItem(item, fields, unnamed);
    return unnamed;
  }
  if (!isObject(section)) return addValue(unnamed, section);
  for (const name in section) {
    // `@…` and `#attributes` are XML markup (namespaces, the template's Name), not event data.
    const first = name.charCodeAt(0);
    if (first === 64 /* @ */ || first === 35 /* # */) continue;
    const value = section[name];
    if (name === 'Data') unnamed = readData(value, fields, unnamed);
    else if (isObject(value) && value['#text'] === undefined) unnamed = readSection(value, fields, unnamed);
    else setIfPresent(fields, name, isObject(value) ? value['#text'] : value);
  }
  return unnamed;
}

/** The value of a `Data` key: a list of items, one item, `{"#text": [...]}`, or a map of names. */
function readData(data: unknown, fields: Fields, unnamed: Unnamed): Unnamed {
  if (isObject(data) && !isDataItem(data)) return readSection(data, fields, unnamed);
  if (Array.isArray(data)) {
    for (const item of data) unnamed = readItem(item, fields, unnamed);
    return unnamed;
  }
  return readItem(data, fields, unnamed);
}

const ITEM_KEYS = new Set(['Name', 'Value', '#value', '#text', '@Name']);

/**
 * One Data element rather than a map of names: it has the element's markup (`@Name`, `#text`,
 * `#attributes`), or only item keys beside a `Name`. An event whose own data has a field called
 * `Name` (Sysmon 19, 20: the WMI filter or consumer name) is a map, read field by field.
 */
function isDataItem(data: Record<string, unknown>): boolean {
  if (data['@Name'] !== undefined || data['#text'] !== undefined || data['#attributes'] !== undefined) return true;
  if (typeof data.Name !== 'string') return false;
  for (const key in data) if (!ITEM_KEYS.has(key)) return false;
  return true;
}

function readItem(item: unknown, fields: Fields, unnamed: Unnamed): Unnamed {
  if (!isObject(item)) return addValue(unnamed, item);
  const attributes = item['#attributes'];
  const name = item['@Name'] ?? item.Name ?? (isObject(attributes) ? attributes.Name : undefined);
  const value = item['#text'] ?? item.Value ?? item['#value'];
  if (typeof name !== 'string') return addValue(unnamed, value);
  fields[name] =
    value === undefined || value === null
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : (value as string | number | boolean);
  return unnamed;
}

/**
 * Adds a value (or each of a list's) as text; null and empty values are skipped. Kept to the
 * flattening cap on a list's values: the record's own copy of a longer list is cut there too,
 * and the event marked truncated.
 */
function addValue(unnamed: Unnamed, value: unknown): Unnamed {
  if (Array.isArray(value)) {
    for (const item of value) unnamed = addValue(unnamed, item);
    return unnamed;
  }
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number' || typeof value === 'boolean') text = String(value);
  else return unnamed;
  if (text === '') return unnamed;
  if (unnamed === null) return [text];
  if (unnamed.length < FLATTEN_LIMITS.maxArrayValues) unnamed.push(text);
  return unnamed;
}
