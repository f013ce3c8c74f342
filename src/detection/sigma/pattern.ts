// Sigma string values: wildcards `*` (any run) and `?` (one character), with the spec's
// backslash escaping — `\*` and `\?` are the literal characters, `\\` is one backslash, and a
// backslash before anything else is itself. A pattern compiles to the cheapest test that
// answers it: equality, startsWith/endsWith/includes, or a RegExp.
import { fold } from './fold.js';
import type { Anchor } from './item.js';

export type Token = { literal: string } | { wildcard: '*' | '?' };

/** A Sigma string: literal runs and wildcards, in order. */
export class SigmaString {
  constructor(readonly tokens: readonly Token[]) {}

  static parse(value: string): SigmaString {
    const tokens: Token[] = [];
    let literal = '';
    for (let index = 0; index < value.length; index++) {
      const char = value.charAt(index);
      if (char === '\\') {
        const next = value[index + 1];
        if (next === '*' || next === '?' || next === '\\') {
          literal += next;
          index++;
        } else {
          literal += char;
        }
      } else if (char === '*' || char === '?') {
        if (literal !== '') tokens.push({ literal });
        literal = '';
        tokens.push({ wildcard: char });
      } else {
        literal += char;
      }
    }
    if (literal !== '') tokens.push({ literal });
    return new SigmaString(tokens);
  }

  static literal(value: string): SigmaString {
    return new SigmaString(value === '' ? [] : [{ literal: value }]);
  }

  get hasWildcards(): boolean {
    return this.tokens.some((token) => 'wildcard' in token);
  }

  /** The text with no wildcards (only meaningful when `hasWildcards` is false). */
  get plain(): string {
    return this.tokens.map((token) => ('literal' in token ? token.literal : '')).join('');
  }

  /** `*value*` (contains), `value*` (startswith), `*value` (endswith); never doubles a `*`. */
  wrap(start: boolean, end: boolean): SigmaString {
    const tokens = [...this.tokens];
    const isStar = (token: Token | undefined) => token !== undefined && 'wildcard' in token && token.wildcard === '*';
    if (start && !isStar(tokens[0])) tokens.unshift({ wildcard: '*' });
    if (end && !isStar(tokens.at(-1))) tokens.push({ wildcard: '*' });
    return new SigmaString(tokens);
  }

  /** Each literal run transformed (e.g. the windash variants), wildcards kept. */
  mapLiterals(transform: (literal: string) => string): SigmaString {
    return new SigmaString(
      this.tokens.map((token) => ('literal' in token ? { literal: transform(token.literal) } : token)),
    );
  }

  /** The longest literal run: what the pre-filter looks for. */
  longestLiteral(): string {
    return this.longestLiteralAt().literal;
  }

  /**
   * The longest literal run (the first of equal ones) and where every text matching the pattern
   * has it: the whole text when it is the only token, its start or end when it is the first or
   * last token, else anywhere.
   */
  longestLiteralAt(): { literal: string; at: Anchor } {
    let best = '';
    let position = -1;
    this.tokens.forEach((token, index) => {
      if ('literal' in token && token.literal.length > best.length) {
        best = token.literal;
        position = index;
      }
    });
    const last = this.tokens.length - 1;
    const at: Anchor =
      position === -1
        ? 'anywhere'
        : last === 0
          ? 'whole'
          : position === 0
            ? 'start'
            : position === last
              ? 'end'
              : 'anywhere';
    return { literal: best, at };
  }
}

export type TextTest = (text: string) => boolean;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Plain {
  kind: 'equals' | 'startsWith' | 'endsWith' | 'includes';
  value: string;
}

/** The pattern as one native string test when it has one literal and only `*` around it; else null. */
function plainForm(tokens: readonly Token[]): Plain | null {
  if (tokens.length === 0 || tokens.length > 3) return null;
  const literals = tokens.map((token) => ('literal' in token ? token.literal : null));
  if (tokens.some((token) => 'wildcard' in token && token.wildcard !== '*')) return null;
  const inner = literals.filter((literal): literal is string => literal !== null);
  const value = inner[0];
  if (inner.length !== 1 || value === undefined) return null;
  const starStart = literals[0] === null;
  const starEnd = literals.at(-1) === null;
  const kind = starStart && starEnd ? 'includes' : starStart ? 'endsWith' : starEnd ? 'startsWith' : 'equals';
  return { kind, value };
}

function foldTokens(pattern: SigmaString, cased: boolean): readonly Token[] {
  return cased
    ? pattern.tokens
    : pattern.tokens.map((token) => ('literal' in token ? { literal: fold(token.literal) } : token));
}

/**
 * Compiles a pattern to a test over event text. Case-insensitive patterns expect the text
 * folded (the caller folds each event value once and reuses it across rules).
 */
export function compilePattern(pattern: SigmaString, cased: boolean): TextTest {
  const tokens = foldTokens(pattern, cased);
  const plain = plainForm(tokens);
  if (plain !== null) {
    const value = plain.value;
    switch (plain.kind) {
      case 'includes':
        return (text) => text.includes(value);
      case 'endsWith':
        return (text) => text.endsWith(value);
      case 'startsWith':
        return (text) => text.startsWith(value);
      case 'equals':
        return (text) => text === value;
    }
  }
  if (tokens.length === 0) return (text) => text === '';
  if (tokens.every((token) => 'wildcard' in token && token.wildcard === '*')) return () => true;
  const source = tokens
    .map((token) => ('literal' in token ? escapeRegExp(token.literal) : token.wildcard === '*' ? '.*' : '.'))
    .join('');
  const regex = new RegExp(`^${source}$`, 'su');
  return (text) => regex.test(text);
}

/**
 * One test for "any of these patterns": the plain ones grouped by native string method (equal
 * values in a Set), so that a rule's list of sixty `|endswith` values is one tight loop rather
 * than sixty closures; the others (inner wildcards) tried one by one.
 */
export function compileAnyPattern(patterns: readonly SigmaString[], cased: boolean): TextTest {
  const equals = new Set<string>();
  const starts: string[] = [];
  const ends: string[] = [];
  const includes: string[] = [];
  const others: TextTest[] = [];
  for (const pattern of patterns) {
    const plain = plainForm(foldTokens(pattern, cased));
    if (plain === null) others.push(compilePattern(pattern, cased));
    else if (plain.kind === 'equals') equals.add(plain.value);
    else (plain.kind === 'startsWith' ? starts : plain.kind === 'endsWith' ? ends : includes).push(plain.value);
  }
  return (text) => {
    if (equals.has(text)) return true;
    for (const value of ends) if (text.endsWith(value)) return true;
    for (const value of starts) if (text.startsWith(value)) return true;
    for (const value of includes) if (text.includes(value)) return true;
    for (const test of others) if (test(text)) return true;
    return false;
  };
}
