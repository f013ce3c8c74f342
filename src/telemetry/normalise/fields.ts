// Small readers and writers over an event's field map, shared by every record shape. They are
// on the hot path, so none of them allocates unless it returns something new.
import type { FieldValue } from './event.js';

/** An event's field map. Built with a null prototype so `constructor` or `__proto__` are plain names. */
export type Fields = Record<string, FieldValue>;

/** One taxonomy field and the record fields that feed it, first present wins. */
export interface MappedField {
  target: string;
  sources: readonly string[];
}

/** A fixed one-source-per-target table, as the endpoint formats use (`[target, source]` pairs). */
export function fixedMappings(pairs: readonly (readonly [string, string])[]): MappedField[] {
  return pairs.map(([target, source]) => ({ target, sources: [source] }));
}

export function newFields(): Fields {
  return Object.create(null) as Fields;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first of `sources` present in `fields` (null counts as absent: nothing to map). */
export function firstPresent(fields: Fields, sources: readonly string[]): FieldValue | undefined {
  for (const source of sources) {
    const value = fields[source];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/** The first of `sources` holding a non-empty string. */
export function firstString(fields: Fields, sources: readonly string[]): string | undefined {
  for (const source of sources) {
    const value = fields[source];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * Fills each target from its sources. A target the record already has (or an earlier step set)
 * is left alone: a record that already speaks the taxonomy (IIS JSON's `cs-method`) wins.
 */
export function applyMappings(fields: Fields, mappings: readonly MappedField[]): void {
  for (const mapping of mappings) {
    if (fields[mapping.target] !== undefined) continue;
    const value = firstPresent(fields, mapping.sources);
    if (value !== undefined) fields[mapping.target] = value;
  }
}

/** Sets `name` when `value` is a usable scalar; absent fields stay absent keys. */
export function setIfPresent(fields: Fields, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') fields[name] = value;
}

/** An integer from a number or a decimal string (`"1234"`), else null. */
export function asInt(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value !== 'string' || value === '' || value.length > 15) return null;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 48 || code > 57) return null;
  }
  return Number(value);
}

/** A number for a numeric string (`"404"` → 404), anything else unchanged. */
export function numericIfPossible(value: FieldValue): FieldValue {
  if (typeof value !== 'string') return value;
  const number = asInt(value);
  return number ?? value;
}

/** Turns the named fields' numeric text into numbers (ports, status codes); other values stay. */
export function numbersWherePossible(fields: Fields, names: readonly string[]): void {
  for (const name of names) {
    const value = fields[name];
    if (typeof value === 'string') fields[name] = numericIfPossible(value);
  }
}

/** Text for the normalised rows: strings as given, numbers and booleans as their text. */
export function asText(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** The file name of a Windows or POSIX path (`C:\\x\\a.exe` → `a.exe`, `/usr/bin/curl` → `curl`). */
export function basename(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return cut === -1 ? path : path.slice(cut + 1);
}

/** Sigma writes `Initiated: 'true'` (Sysmon's text); every format's flag is given that form. */
export function flagText(value: unknown): 'true' | 'false' | undefined {
  if (value === true || value === 'true' || value === 'True') return 'true';
  if (value === false || value === 'false' || value === 'False') return 'false';
  return undefined;
}

/** Joins the non-empty parts with newlines, skipping placeholders like `-`. */
export function joinKeywords(parts: readonly (FieldValue | undefined)[]): string {
  let out = '';
  for (const part of parts) {
    if (typeof part !== 'string' || part === '' || part === '-') continue;
    out = out === '' ? part : `${out}\n${part}`;
  }
  return out;
}
