// The telemetry query language: the peggy grammar beside this file, compiled once when this
// module loads, and the checks the grammar cannot express (limits, field paths, where wildcards
// may stand). The result is a small tree the store turns into parameterised SQL
// (telemetry-query-sql.ts). A query that cannot be read is an `invalid_query` error saying at
// which character and what was expected there.
import fs from 'node:fs';
import peggy from 'peggy';
import { AppError } from '../core/errors.js';
import { hasControlCharacter } from '../core/control-characters.js';

export const MAX_QUERY_LENGTH = 1024;
/** Parentheses and NOT nested deeper than this are refused. */
export const MAX_QUERY_DEPTH = 12;
/** Terms (words, phrases, field conditions) in one query. */
export const MAX_QUERY_TERMS = 32;
export const MAX_FIELD_PATH_LENGTH = 256;

/** A piece of a wildcard pattern: literal text, `*` (any run of characters) or `?` (one character). */
export type PatternPart = string | { any: 'many' | 'one' };

/** A range bound: numbers compare as numbers, anything else as text. */
export interface Bound {
  value: number | string;
  inclusive: boolean;
}

export type QueryNode =
  | { type: 'and' | 'or'; children: QueryNode[] }
  | { type: 'not'; child: QueryNode }
  /** Full text: the words (a phrase: in this order); `prefix`: the one word is a prefix. */
  | { type: 'text'; text: string; phrase: boolean; prefix: boolean }
  /** The field equals the value: a quoted value only as a string; an unquoted one also as a number or literal. */
  | { type: 'equals'; path: string[]; value: string; quoted: boolean }
  | { type: 'like'; path: string[]; pattern: PatternPart[] }
  | { type: 'range'; path: string[]; numeric: boolean; low?: Bound; high?: Bound }
  | { type: 'exists'; path: string[] };

// The tree the grammar returns, before the checks here.
interface RawValue {
  text: string;
  quoted: boolean;
}
type RawNode =
  | { type: 'and' | 'or'; children: RawNode[]; at: number }
  | { type: 'not' | 'group'; child: RawNode; at: number }
  | { type: 'text'; value: string; phrase: boolean; at: number }
  | { type: 'exists'; field: string; at: number }
  | { type: 'match'; field: string; value: string; quoted: boolean; at: number }
  | { type: 'compare'; field: string; op: '>' | '>=' | '<' | '<='; bound: RawValue; at: number }
  | {
      type: 'range';
      field: string;
      low: RawValue | null;
      high: RawValue | null;
      lowInclusive: boolean;
      highInclusive: boolean;
      at: number;
    };

const grammar = fs.readFileSync(new URL('./telemetry-query.peggy', import.meta.url), 'utf8');
const parser = peggy.generate(grammar);

/** The query's tree, or undefined for an empty query (everything matches). */
export function parseTelemetryQuery(query: string): QueryNode | undefined {
  if (query.length > MAX_QUERY_LENGTH)
    throw queryError(`is longer than ${MAX_QUERY_LENGTH} characters`, MAX_QUERY_LENGTH);
  let raw: RawNode | null;
  try {
    raw = parser.parse(query) as RawNode | null;
  } catch (error) {
    if (!(error instanceof parser.SyntaxError)) throw error;
    const expected = describeExpected(error.expected);
    const found = error.found === null ? 'the end of the query' : JSON.stringify(error.found);
    throw queryError(`expected ${expected.join(', ')}; found ${found}`, error.location.start.offset, {
      expected,
    });
  }
  if (raw === null) return undefined;
  const count = { terms: 0 };
  return check(raw, 0, count);
}

function describeExpected(expected: peggy.parser.Expectation[] | null): string[] {
  const names = new Set<string>();
  for (const item of expected ?? []) {
    if (item.type === 'literal') names.add(JSON.stringify(item.text));
    else if (item.type === 'other') names.add(item.description);
    else if (item.type === 'end') names.add('the end of the query');
    else names.add('a character');
  }
  // Whitespace is possible almost everywhere; naming it helps nobody, except after an operator.
  if (names.size > 1) names.delete('whitespace');
  if (names.has('a closing quote')) return ['a closing quote'];
  if (names.has('whitespace')) return ['a term after the operator (a word, a "phrase", field:value or "(")'];
  return names.size > 0 ? [...names].sort() : ['something else'];
}

/** An `invalid_query` error at a character of the query (0-based `position`, 1-based `column`). */
export function queryError(problem: string, position: number, extra: Record<string, unknown> = {}): AppError {
  return new AppError('invalid_query', `query: at position ${position} (column ${position + 1}): ${problem}`, {
    extensions: { field: 'query', position, column: position + 1, ...extra },
  });
}

function check(node: RawNode, depth: number, count: { terms: number }): QueryNode {
  if (depth > MAX_QUERY_DEPTH) throw queryError(`nests deeper than ${MAX_QUERY_DEPTH} levels`, node.at);
  switch (node.type) {
    case 'and':
    case 'or':
      return { type: node.type, children: node.children.map((child) => check(child, depth + 1, count)) };
    case 'not':
      return { type: 'not', child: check(node.child, depth + 1, count) };
    case 'group':
      return check(node.child, depth + 1, count);
    default:
      break;
  }
  if (++count.terms > MAX_QUERY_TERMS) throw queryError(`has more than ${MAX_QUERY_TERMS} terms`, node.at);
  switch (node.type) {
    case 'text':
      return textTerm(node.phrase ? unescape(node.value) : node.value, node.phrase, node.at);
    case 'exists':
      return { type: 'exists', path: fieldPath(node.field, node.at) };
    case 'match': {
      const path = fieldPath(node.field, node.at);
      const parts = node.quoted ? [unescape(node.value)] : pattern(node.value);
      const literal = parts.filter(isLiteral);
      if (literal.length !== parts.length) return { type: 'like', path, pattern: parts };
      return { type: 'equals', path, value: literal.join(''), quoted: node.quoted };
    }
    case 'compare': {
      const bound = { raw: node.bound, inclusive: node.op.endsWith('=') };
      const [low, high] = node.op.startsWith('>') ? [bound, undefined] : [undefined, bound];
      return rangeTerm(fieldPath(node.field, node.at), low, high, node.at);
    }
    case 'range': {
      const low = node.low ? { raw: node.low, inclusive: node.lowInclusive } : undefined;
      const high = node.high ? { raw: node.high, inclusive: node.highInclusive } : undefined;
      return rangeTerm(fieldPath(node.field, node.at), low, high, node.at);
    }
  }
}

function rangeTerm(
  path: string[],
  low: { raw: RawValue; inclusive: boolean } | undefined,
  high: { raw: RawValue; inclusive: boolean } | undefined,
  at: number,
): QueryNode {
  const given = [low, high].filter((bound) => bound !== undefined);
  const texts = given.map((bound) => unescape(bound.raw.text));
  const numeric = given.every((bound, i) => !bound.raw.quoted && asNumber(texts[i] ?? '') !== undefined);
  if (given.length === 0) throw queryError('a range needs at least one bound (not [* TO *]); use _exists_:field', at);
  const toBound = (bound: { raw: RawValue; inclusive: boolean }): Bound => {
    const text = unescape(bound.raw.text);
    return { value: numeric ? (asNumber(text) ?? 0) : text, inclusive: bound.inclusive };
  };
  return {
    type: 'range',
    path,
    numeric,
    ...(low ? { low: toBound(low) } : {}),
    ...(high ? { high: toBound(high) } : {}),
  };
}

/** A finite number written as JSON would write it (`500`, `-1.5`, `2e3`), else undefined. */
export function asNumber(text: string): number | undefined {
  if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * Free text: a word or a phrase the full-text index must hold. A word may end in `*` (a prefix of
 * letters and digits); a wildcard anywhere else cannot be looked up in a word index.
 */
function textTerm(value: string, phrase: boolean, at: number): QueryNode {
  if (phrase) {
    if (!/[\p{L}\p{N}]/u.test(value)) throw queryError('the phrase holds no letters or digits to search for', at);
    return { type: 'text', text: value, phrase: true, prefix: false };
  }
  const parts = pattern(value);
  const last = parts.at(-1);
  const prefix = typeof last === 'object' && last.any === 'many';
  const body = prefix ? parts.slice(0, -1) : parts;
  const literal = body.filter(isLiteral);
  if (literal.length !== body.length)
    throw queryError(
      'in free text a wildcard may only end a word (auth*); to match a field with wildcards write field:pattern',
      at,
    );
  const text = literal.join('');
  if (prefix && !/^[\p{L}\p{N}_]+$/u.test(text))
    throw queryError('a prefix search (word*) takes letters and digits before the *', at);
  if (!/[\p{L}\p{N}]/u.test(text))
    throw queryError(`${JSON.stringify(text)} holds no letters or digits to search for`, at);
  return { type: 'text', text, phrase: false, prefix };
}

function isLiteral(part: PatternPart): part is string {
  return typeof part === 'string';
}

/** Splits unquoted text on its unescaped wildcards; `\x` is always the character x. */
function pattern(text: string): PatternPart[] {
  const parts: PatternPart[] = [];
  let literal = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    if (char === '\\') {
      literal += text[i + 1] ?? '';
      i++;
    } else if (char === '*' || char === '?') {
      if (literal) parts.push(literal);
      literal = '';
      parts.push({ any: char === '*' ? 'many' : 'one' });
    } else literal += char;
  }
  if (literal || parts.length === 0) parts.push(literal);
  return parts;
}

function unescape(text: string): string {
  return text.replace(/\\(.)/gsu, '$1');
}

/** Object keys joined by dots; the grammar allows letters, digits and `_ @ $ -` in a key. */
function fieldPath(field: string, at: number): string[] {
  if (field.length > MAX_FIELD_PATH_LENGTH)
    throw queryError(`the field name is longer than ${MAX_FIELD_PATH_LENGTH} characters`, at);
  if (hasControlCharacter(field) || field.includes('"') || field.includes('\\'))
    throw queryError('a field name cannot hold a double quote, a backslash or a control character', at);
  return field.split('.');
}

/** Whether the tree holds a full-text term anywhere (the search index must then be caught up). */
export function usesFullText(node: QueryNode | undefined): boolean {
  if (!node) return false;
  if (node.type === 'text') return true;
  if (node.type === 'and' || node.type === 'or') return node.children.some(usesFullText);
  if (node.type === 'not') return usesFullText(node.child);
  return false;
}

/**
 * A query for records whose text holds `text` as a phrase: quoted, with `"` and `\` escaped and
 * control characters as spaces (they separate words anyway). Text too long for one query is cut
 * after its last whole word that fits, which finds the same records and perhaps a few more.
 * Undefined when the text holds no letter or digit to search for.
 */
export function phraseQuery(text: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are what is replaced
  const words = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  let query = '"';
  let wordEnd = 0;
  for (const char of words) {
    const piece = char === '"' || char === '\\' ? `\\${char}` : char;
    if (query.length + piece.length + 1 > MAX_QUERY_LENGTH) {
      if (/[\p{L}\p{N}]/u.test(char)) query = query.slice(0, wordEnd);
      break;
    }
    if (!/[\p{L}\p{N}]/u.test(char)) wordEnd = query.length;
    query += piece;
  }
  if (!/[\p{L}\p{N}]/u.test(query)) return undefined;
  return `${query}"`;
}
