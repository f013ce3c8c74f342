// One detection item — `Field|mod|mod: value(s)` — compiled to a test over an EventView, with
// what the pre-filter may require of the event. Modifiers are applied as the spec orders them:
// value transformations (expand, windash, utf16*, wide, base64, base64offset; transforms.ts) left to right,
// then one match type (contains/startswith/endswith, re, cidr, lt…gte, neq, exists, fieldref,
// the time parts), with `all` and `cased` as flags. Anything else rejects the rule.
import type { FieldValue } from '../../telemetry/normalise/event.js';
import { fieldKey, KEYWORDS, scalars, type EventView, type FieldKey } from './event-view.js';
import { fold } from './fold.js';
import { compileAnyPattern, SigmaString, type TextTest } from './pattern.js';
import {
  ModifierError,
  type CompiledItem,
  type ItemContext,
  type Matcher,
  type Needed,
  type Requirement,
  bestRequirement,
  distinct,
} from './item.js';
import { applyTransforms, TRANSFORMS } from './transforms.js';
import { cidrItem } from './cidr.js';
import { regexLiterals } from './regex-literal.js';
import { regexMinLength } from './regex-length.js';
import { timeComponent } from './time-parts.js';

const WRAPS = new Set(['contains', 'startswith', 'endswith']);
const COMPARE = new Set(['lt', 'lte', 'gt', 'gte']);
const TIME_PARTS = new Set(['minute', 'hour', 'day', 'week', 'month', 'year']);
const RE_FLAGS = new Set(['i', 'm', 's']);
const KNOWN = new Set([
  ...TRANSFORMS,
  ...WRAPS,
  ...COMPARE,
  ...TIME_PARTS,
  ...RE_FLAGS,
  're',
  'cidr',
  'neq',
  'exists',
  'fieldref',
  'all',
  'cased',
]);

/** Compiles `key: value` of a detection map; `key` '' (or starting with `|`) is a keyword search. */
export function compileItem(key: string, value: unknown, context: ItemContext): CompiledItem {
  const [rawField = '', ...modifiers] = key.split('|');
  const keyword = rawField === '';
  const field = keyword ? KEYWORDS.name : rawField;
  for (const modifier of modifiers) {
    if (!KNOWN.has(modifier))
      throw new ModifierError(`modifier '${modifier}'`, `unknown value modifier '${modifier}' on '${key}'`);
  }
  const has = (name: string) => modifiers.includes(name);
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0) throw new ModifierError(`value of '${key}'`, `'${key}' has an empty list of values`);
  const fields = keyword ? [] : [field];
  const all = has('all');

  const kinds = modifiers.filter(
    (modifier) =>
      WRAPS.has(modifier) || COMPARE.has(modifier) || ['re', 'cidr', 'neq', 'exists', 'fieldref'].includes(modifier),
  );
  const wraps = kinds.filter((kind) => WRAPS.has(kind));
  // fieldref|neq (spec v2.1): the two fields differ; neq is then a flag of fieldref.
  const fieldrefNeq = kinds.includes('fieldref') && kinds.includes('neq');
  const special = kinds.filter((kind) => !WRAPS.has(kind) && !(fieldrefNeq && kind === 'neq'));
  if (
    special.length > 1 ||
    (special.length === 1 && wraps.length > 0 && !['fieldref', 'neq'].includes(special[0] ?? ''))
  ) {
    throw new ModifierError(
      `modifier '${kinds.join('|')}'`,
      `'${key}' combines match types that exclude each other (${kinds.join(', ')})`,
    );
  }
  if (wraps.length > 1)
    throw new ModifierError(`modifier '${wraps.join('|')}'`, `'${key}' combines ${wraps.join(' and ')}`);
  if (modifiers.some((modifier) => RE_FLAGS.has(modifier)) && special[0] !== 're') {
    throw new ModifierError(
      `modifier '${modifiers.find((modifier) => RE_FLAGS.has(modifier))}'`,
      `'${key}': i, m and s are flags of the re modifier`,
    );
  }
  const timePart = modifiers.find((modifier) => TIME_PARTS.has(modifier));
  const kind = special[0];

  let item: CompiledItem;
  if (kind === 'exists') item = existsItem(field, values, key);
  else if (kind === 'cidr') item = cidrItem(field, values, key, all);
  else if (kind === 're') item = regexItem(field, values, key, modifiers, all);
  else if (kind === 'fieldref') item = fieldrefItem(field, values, key, wraps[0], has('cased'), all, fieldrefNeq);
  else if (timePart !== undefined || (kind !== undefined && COMPARE.has(kind)))
    item = numericItem(field, values, key, kind, timePart, all);
  else
    item = stringItem(
      field,
      values,
      key,
      modifiers,
      wraps[0] ?? (keyword ? 'contains' : undefined),
      kind === 'neq',
      all,
      context,
    );
  return { ...item, fields: fields.concat(item.fields) };
}

function existsItem(field: string, values: unknown[], key: string): CompiledItem {
  if (values.length !== 1 || typeof values[0] !== 'boolean')
    throw new ModifierError("modifier 'exists'", `'${key}' takes true or false`);
  const wanted = values[0];
  const ref = fieldKey(field);
  return { match: (view) => view.has(ref) === wanted, requirement: null, fields: [] };
}

function regexItem(field: string, values: unknown[], key: string, modifiers: string[], all: boolean): CompiledItem {
  const compiled = values.map((value) => {
    if (typeof value !== 'string')
      throw new ModifierError("modifier 're'", `'${key}': a regular expression must be a string`);
    let source = value;
    let flags = modifiers.filter((modifier) => RE_FLAGS.has(modifier)).join('');
    // PCRE's leading inline flags, which SigmaHQ rules use and JavaScript lacks.
    const inline = /^\(\?([imsx]+)\)/.exec(source);
    if (inline?.[1]) {
      if (inline[1].includes('x'))
        throw new ModifierError("modifier 're'", `'${key}': the x (extended) regex flag is not supported`);
      source = source.slice(inline[0].length);
      const stated = flags;
      for (const flag of inline[1]) if (!stated.includes(flag)) flags += flag;
    }
    try {
      return { regex: new RegExp(source, flags), literals: regexLiterals(source), shortest: regexMinLength(source) };
    } catch (error) {
      throw new ModifierError("modifier 're'", `'${key}': ${(error as Error).message}`);
    }
  });
  const regexes = compiled.map(({ regex, shortest }) => ({ regex, shortest }));
  // A text shorter than any match is not run through the regex.
  const anyText = ({ regex, shortest }: { regex: RegExp; shortest: number }, texts: readonly string[]) => {
    for (const text of texts) if (text.length >= shortest && regex.test(text)) return true;
    return false;
  };
  const requirements = compiled.map(
    ({ literals }): Requirement => literals?.map((literal) => ({ field, literal, at: 'anywhere' as const })) ?? null,
  );
  const ref = fieldKey(field);
  return {
    match: (view) => {
      const texts = view.texts(ref);
      if (texts === null) return false;
      if (all) {
        for (const regex of regexes) if (!anyText(regex, texts)) return false;
        return true;
      }
      for (const regex of regexes) if (anyText(regex, texts)) return true;
      return false;
    },
    // Any regex may match: each must name its literals; all must: the best one's will do.
    requirement: all
      ? bestRequirement(requirements)
      : requirements.some((entry) => entry === null)
        ? null
        : requirements.flatMap((entry) => entry ?? []),
    fields: [],
  };
}

function fieldrefItem(
  field: string,
  values: unknown[],
  key: string,
  wrap: string | undefined,
  cased: boolean,
  all: boolean,
  negate: boolean,
): CompiledItem {
  const others = values.map((value) => {
    if (typeof value !== 'string' || value === '')
      throw new ModifierError("modifier 'fieldref'", `'${key}': fieldref takes field names`);
    return value;
  });
  const compare = (text: string, other: string) =>
    wrap === 'contains'
      ? text.includes(other)
      : wrap === 'startswith'
        ? text.startsWith(other)
        : wrap === 'endswith'
          ? text.endsWith(other)
          : text === other;
  const ref = fieldKey(field);
  const otherKeys = others.map(fieldKey);
  const test = (view: EventView, other: FieldKey) => {
    const mine = cased ? view.texts(ref) : view.folded(ref);
    const theirs = cased ? view.texts(other) : view.folded(other);
    if (mine === null || theirs === null) return false;
    const same = mine.some((text) => theirs.some((value) => compare(text, value)));
    return negate ? !same : same;
  };
  return {
    match: (view) =>
      all ? otherKeys.every((other) => test(view, other)) : otherKeys.some((other) => test(view, other)),
    requirement: null,
    fields: others,
  };
}

function numericItem(
  field: string,
  values: unknown[],
  key: string,
  kind: string | undefined,
  timePart: string | undefined,
  all: boolean,
): CompiledItem {
  const limits = values.map((value) => {
    const number =
      typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
    if (!Number.isFinite(number))
      throw new ModifierError(`modifier '${kind ?? timePart}'`, `'${key}': ${JSON.stringify(value)} is not a number`);
    return number;
  });
  const compare = (actual: number, limit: number) => {
    switch (kind) {
      case 'lt':
        return actual < limit;
      case 'lte':
        return actual <= limit;
      case 'gt':
        return actual > limit;
      case 'gte':
        return actual >= limit;
      case 'neq':
        return actual !== limit;
      default:
        return actual === limit;
    }
  };
  const read = (value: string | number | boolean | null): number | null => {
    if (timePart !== undefined) return timeComponent(value, timePart);
    if (typeof value === 'number') return value;
    if (typeof value === 'string' && value.trim() !== '') {
      const number = Number(value);
      return Number.isFinite(number) ? number : null;
    }
    return null;
  };
  const anyOf = (numbers: readonly number[]) => {
    for (const limit of limits) for (const number of numbers) if (compare(number, limit)) return true;
    return false;
  };
  const test = (value: FieldValue | undefined): boolean => {
    // The common case, one number or one numeric string: no list built.
    if (value === undefined || value === null) return false;
    if (!Array.isArray(value)) {
      const number = read(value);
      if (number === null) return false;
      if (all) {
        for (const limit of limits) if (!compare(number, limit)) return false;
        return true;
      }
      for (const limit of limits) if (compare(number, limit)) return true;
      return false;
    }
    const numbers: number[] = [];
    for (const scalar of scalars(value)) {
      const number = read(scalar);
      if (number !== null) numbers.push(number);
    }
    if (numbers.length === 0) return false;
    return all ? limits.every((limit) => numbers.some((number) => compare(number, limit))) : anyOf(numbers);
  };
  const ref = fieldKey(field);
  return {
    match: (view) => test(view.raw(ref)),
    requirement: null,
    fields: [],
  };
}

function stringItem(
  field: string,
  values: unknown[],
  key: string,
  modifiers: string[],
  wrap: string | undefined,
  negate: boolean,
  all: boolean,
  context: ItemContext,
): CompiledItem {
  const transforms = modifiers.filter((modifier) => TRANSFORMS.has(modifier));
  // Encoded values are exact bytes: base64 text is compared as written.
  const cased = modifiers.includes('cased') || transforms.some((name) => name === 'base64' || name === 'base64offset');
  const hasNull = values.some((value) => value === null);
  const strings = values
    .filter((value) => value !== null)
    .map((value) => {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
      throw new ModifierError(
        `value of '${key}'`,
        `'${key}' has a value that is neither text, number, boolean nor null: ${JSON.stringify(value)}`,
      );
    });
  // Each original value becomes one or more patterns (windash, expand, base64offset variants).
  const groups = strings.map((value) => applyTransforms(value, transforms, key, context));
  // Encoded values are exact bytes rendered as text: their wildcards are not wildcards.
  const encoded = transforms.some((name) => name === 'base64' || name === 'base64offset');
  const toPattern = (text: string) => {
    const pattern = encoded ? SigmaString.literal(text) : SigmaString.parse(text);
    return wrap === 'contains'
      ? pattern.wrap(true, true)
      : wrap === 'startswith'
        ? pattern.wrap(false, true)
        : wrap === 'endswith'
          ? pattern.wrap(true, false)
          : pattern;
  };
  const patterns = groups.map((group) => group.map(toPattern));
  // Without `all`, any value's variant will do: one test over all of them. With `all`, one per value.
  const anyValue = compileAnyPattern(patterns.flat(), cased);
  const perValue = all ? patterns.map((group) => compileAnyPattern(group, cased)) : [];
  const empty = patterns.every((group) => group.length === 0);
  const anyText = (texts: readonly string[], test: TextTest) => {
    for (const text of texts) if (test(text)) return true;
    return false;
  };
  const ref = fieldKey(field);
  const read = (view: EventView) => (cased ? view.texts(ref) : view.folded(ref));

  let match: Matcher;
  if (negate) {
    // neq: present, and no value equal to any of the given ones.
    match = (view) => {
      const texts = read(view);
      return texts !== null && !anyText(texts, anyValue);
    };
  } else {
    match = (view) => {
      if (hasNull && isNull(view, ref)) return true;
      if (empty) return false;
      const texts = read(view);
      if (texts === null) return false;
      if (!all) return anyText(texts, anyValue);
      for (const test of perValue) if (!anyText(texts, test)) return false;
      return true;
    };
  }
  return { match, requirement: negate || hasNull ? null : stringRequirement(field, patterns, all), fields: [] };
}

function isNull(view: EventView, ref: FieldKey): boolean {
  const value = view.raw(ref);
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0);
}

/** OR over values: each needs its longest literal; `all`: the one value with the best literal. */
function stringRequirement(field: string, patterns: SigmaString[][], all: boolean): Requirement {
  const literalsOf = (group: SigmaString[]): Needed[] =>
    group.map((pattern) => {
      const { literal, at } = pattern.longestLiteralAt();
      return { field, literal: fold(literal), at };
    });
  if (all) {
    const usable = patterns.map(literalsOf).filter((needed) => needed.every((entry) => entry.literal !== ''));
    return bestRequirement(usable.map(distinct));
  }
  const needed = patterns.flatMap(literalsOf);
  if (needed.length === 0 || needed.some((entry) => entry.literal === '')) return null;
  return distinct(needed);
}
