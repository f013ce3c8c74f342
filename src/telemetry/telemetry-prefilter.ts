// A cheap test on a record's stored JSON text that every record matching a field equality
// passes: the text must contain the value as written. Searching raw text for a few bytes costs a
// fraction of parsing the record (SQLite's `->>`, PostgreSQL's jsonb cast), so most records in a
// time range are turned away before they are parsed; the exact, typed test still decides for the
// few that pass. It is only ever ANDed in front of that test, so it narrows nothing by itself.
//
// What a matching record's text must contain:
// - a string: the string itself, unless the record holds a backslash (an escape such as `\u0041`
//   or `\/` writes the same string differently); strings that JSON must escape get no test;
// - a number: its significant digits, possibly with the decimal point inside them (`503` is
//   written `503`, `503.0`, `5.03e2`, `50.3e1` or `5030e-1`, all holding `503`, `5.03` or `50.3`).
//   A record number with more significant digits than a double holds (over 15) that only rounds
//   to the value is not found on SQLite; PostgreSQL compares numbers exactly and never found it;
// - true, false or null: the literal itself.
// A record the PostgreSQL writer marked plain_text (record-log/record-text-marks.ts: no `\u` or
// `\/` escape, no number with an exponent) writes a string as itself and a number in plain
// decimals (`503`, `503.0`; `5.03`), so for it one substring per value does: each further
// strpos over a record costs about a quarter of what the search spends per record in a
// one-day histogram.
import { sql, type RawBuilder } from 'kysely';
import { asNumber, type QueryNode } from './telemetry-query.js';

/**
 * Substrings of which a matching record's text holds at least one: `any` for every record,
 * `plain` for a record marked plain_text.
 */
export interface Clause {
  any: string[];
  plain: string[];
}

/** Wider clauses would cost more than parsing the record; beyond these, tests are left out. */
const MAX_NEEDLES = 8;
export const MAX_CLAUSES = 4;

/** What an equality's value may be, as sqliteEquals takes it. */
export interface Wanted {
  text?: string;
  number?: number;
  json?: 'true' | 'false' | 'null';
}

/** The clause for one equality, or undefined when no substring test is sound for it. */
export function equalityClause(wanted: Wanted): Clause | undefined {
  const needles: string[] = [];
  const plain: string[] = [];
  if (wanted.text !== undefined) {
    // An object or array compares as its JSON text, which whitespace in the record may change.
    // eslint-disable-next-line no-control-regex -- control characters are what JSON must escape
    if (wanted.text === '' || /^[[{]/.test(wanted.text) || /["\\\u0000-\u001f]/.test(wanted.text)) return undefined;
    needles.push(wanted.text, '\\');
    plain.push(wanted.text);
  }
  if (wanted.number !== undefined) {
    const digits = significantDigits(wanted.number);
    needles.push(digits);
    for (let i = 1; i < digits.length; i++) needles.push(`${digits.slice(0, i)}.${digits.slice(i)}`);
    plain.push(plainDecimal(wanted.number) ?? digits);
  }
  if (wanted.json) {
    needles.push(wanted.json);
    plain.push(wanted.json);
  }
  const unique = [...new Set(needles)];
  if (unique.length === 0 || unique.length > MAX_NEEDLES) return undefined;
  return { any: unique, plain: [...new Set(plain)] };
}

/**
 * What every plain decimal writing of the value holds: `503` (`503.0`), `5.03`, `0.0125`;
 * undefined when JavaScript writes it with an exponent (below 1e-6, from 1e21), whose plain
 * writings all hold its significant digits (`0.0000005`, `1500000000000000000000`).
 */
function plainDecimal(value: number): string | undefined {
  const text = String(Math.abs(value));
  return text.includes('e') ? undefined : text;
}

/** `503` → "503", `-0.0125` → "125", `5e-7` → "5". */
function significantDigits(value: number): string {
  const [mantissa = ''] = Math.abs(value).toExponential().split('e');
  return mantissa.replace('.', '');
}

/** Clauses all of which a record matching the query meets (none when nothing is known). */
export function queryClauses(node: QueryNode): Clause[] {
  switch (node.type) {
    case 'and':
      return node.children.flatMap(queryClauses);
    case 'or': {
      // (a1 AND a2) OR b needs (a1 OR b): one clause of each alternative, joined.
      const firsts = node.children.map((child) => queryClauses(child)[0]);
      if (firsts.some((clause) => clause === undefined)) return [];
      const join = (pick: (clause: Clause) => string[]) => [
        ...new Set(firsts.flatMap((clause) => (clause ? pick(clause) : []))),
      ];
      const any = join((clause) => clause.any);
      return any.length <= MAX_NEEDLES ? [{ any, plain: join((clause) => clause.plain) }] : [];
    }
    case 'equals': {
      const number = node.quoted ? undefined : asNumber(node.value);
      const literal = node.quoted ? undefined : node.value;
      const clause = equalityClause({
        text: node.value,
        ...(number !== undefined ? { number } : {}),
        ...(literal === 'true' || literal === 'false' || literal === 'null' ? { json: literal } : {}),
      });
      return clause ? [clause] : [];
    }
    default:
      // Negations, full text (tokenised, case-folded), patterns, ranges and existence: no test.
      return [];
  }
}

/**
 * The clauses as one SQL condition, each clause an OR of `contains` over the needles `pick`
 * chooses, the clauses ANDed; each database's dialect decides which clauses it keeps (at most
 * MAX_CLAUSES), how it tests for a substring and which needles a record needs.
 */
export function allClauses(
  kept: Clause[],
  pick: (clause: Clause) => string[],
  contains: (needle: string) => RawBuilder<unknown>,
): RawBuilder<boolean> {
  return sql<boolean>`(${sql.join(
    kept.map((clause) => sql`(${sql.join(pick(clause).map(contains), sql` OR `)})`),
    sql` AND `,
  )})`;
}
