// Part of the telemetry store: a parsed query (telemetry-query.ts) as one SQL condition on
// `r` (telemetry_records), for SQLite or PostgreSQL. Every value and every field path is a bound
// parameter; only fixed SQL text is written here. Each field condition is false, never NULL,
// when the field is missing, so NOT of it holds for records without the field.
import { sql, type RawBuilder } from 'kysely';
import type { DatabaseKind } from '../storage/database.js';
import { asNumber, type PatternPart, type QueryNode } from './telemetry-query.js';

/**
 * How a full-text term finds its records. `all`: the set of every record holding the words (one
 * index lookup; right for searches over a time range). `window` (SQLite): only the index entries
 * within a sequence range, for reads of a few new records (the tail). `each` (PostgreSQL): a
 * lookup per candidate record, for the same reason.
 */
export type TextScope = { kind: 'all' } | { kind: 'window'; afterSeq: number; upToSeq: number } | { kind: 'each' };

interface Dialect {
  text(node: Extract<QueryNode, { type: 'text' }>): RawBuilder<boolean>;
  field(node: FieldNode): RawBuilder<boolean>;
}

type FieldNode = Extract<QueryNode, { type: 'equals' | 'like' | 'range' | 'exists' }>;

export function queryCondition(
  kind: DatabaseKind,
  tenantId: number,
  node: QueryNode,
  scope: TextScope,
): RawBuilder<boolean> {
  if (kind === 'sqlite') return compile(node, sqliteDialect(scope));
  const condition = compile(node, postgresDialect(tenantId, scope));
  if (!usesFields(node)) return condition;
  // The record is read as jsonb once per row (OFFSET 0 keeps PostgreSQL from inlining the
  // subquery, which would parse it again for every field condition).
  return sql<boolean>`EXISTS (SELECT 1 FROM (SELECT ${recordJsonb()} AS d OFFSET 0) j WHERE ${condition})`;
}

/**
 * PostgreSQL: the record `r` as jsonb, or NULL when PostgreSQL cannot read it as jsonb (no field
 * condition then holds for it). A record the writer marked surely readable (jsonb_ok) skips the
 * test of its text, which costs as much as reading it.
 */
export function recordJsonb(): RawBuilder<unknown> {
  return sql`(CASE WHEN r.jsonb_ok THEN r.record::jsonb WHEN r.jsonb_ok IS NULL AND NOT ${notJsonbCastable()} THEN r.record::jsonb END)`;
}

function compile(node: QueryNode, dialect: Dialect): RawBuilder<boolean> {
  switch (node.type) {
    case 'and':
    case 'or': {
      const joiner = node.type === 'and' ? sql` AND ` : sql` OR `;
      return sql<boolean>`(${sql.join(
        node.children.map((child) => compile(child, dialect)),
        joiner,
      )})`;
    }
    case 'not':
      return sql<boolean>`(NOT ${compile(node.child, dialect)})`;
    case 'text':
      return dialect.text(node);
    default:
      return sql<boolean>`COALESCE(${dialect.field(node)}, false)`;
  }
}

function usesFields(node: QueryNode): boolean {
  if (node.type === 'and' || node.type === 'or') return node.children.some(usesFields);
  if (node.type === 'not') return usesFields(node.child);
  return node.type !== 'text';
}

/** What an unquoted value may also be besides a string: a number, true, false or null. */
function literalOf(value: string): { number?: number; json?: 'true' | 'false' | 'null' } {
  const number = asNumber(value);
  if (number !== undefined) return { number };
  if (value === 'true' || value === 'false' || value === 'null') return { json: value };
  return {};
}

function sqliteDialect(scope: TextScope): Dialect {
  return {
    text(node) {
      const phrase = `"${node.text.replaceAll('"', '""')}"${node.prefix ? ' *' : ''}`;
      // FTS5 seeks its lists by rowid, so a window costs what the window holds, not every match;
      // it only seeks with integer bounds, and better-sqlite3 binds JS numbers as reals (hence CAST).
      const window =
        scope.kind === 'window'
          ? sql` AND rowid > CAST(${scope.afterSeq} AS INTEGER) AND rowid <= CAST(${scope.upToSeq} AS INTEGER)`
          : sql``;
      return sql<boolean>`r.seq IN (SELECT rowid FROM telemetry_fts WHERE telemetry_fts MATCH ${phrase}${window})`;
    },
    field(node) {
      // Quoted labels (`$."a"."b"`) look up object keys only, as PostgreSQL's #> does with text.
      const jsonPath = `$${node.path.map((segment) => `."${segment}"`).join('')}`;
      const type = sql`json_type(r.record, ${jsonPath})`;
      const value = sql`json_extract(r.record, ${jsonPath})`;
      switch (node.type) {
        case 'exists':
          return sql<boolean>`${type} <> 'null'`;
        case 'equals': {
          const literal = node.quoted ? {} : literalOf(node.value);
          return sqliteEquals(jsonPath, { text: node.value, ...literal });
        }
        case 'like':
          return sql<boolean>`(${type} = 'text' AND ${value} GLOB ${globPattern(node.pattern)})`;
        case 'range': {
          const types = node.numeric ? sql`('integer', 'real')` : sql`('text')`;
          const bounds = rangeBounds(node, value);
          return sql<boolean>`(${type} IN ${types} AND ${sql.join(bounds, sql` AND `)})`;
        }
      }
    },
  };
}

function postgresDialect(tenantId: number, scope: TextScope): Dialect {
  return {
    text(node) {
      // Prefix words are letters and digits only (telemetry-query.ts), so `word:*` is a valid tsquery.
      const query = node.prefix
        ? sql`to_tsquery('simple'::regconfig, ${`${node.text}:*`})`
        : sql`phraseto_tsquery('simple'::regconfig, ${node.text})`;
      if (scope.kind === 'each')
        return sql<boolean>`EXISTS (SELECT 1 FROM telemetry_fts f WHERE f.seq = r.seq AND f.tsv @@ ${query})`;
      return sql<boolean>`r.seq IN (SELECT f.seq FROM telemetry_fts f WHERE f.tenant_id = ${tenantId} AND f.tsv @@ ${query})`;
    },
    field(node) {
      const path = sql`CAST(${node.path} AS text[])`;
      const at = sql`(j.d #> ${path})`;
      const type = sql`jsonb_typeof(${at})`;
      switch (node.type) {
        case 'exists':
          return sql<boolean>`${type} <> 'null'`;
        case 'equals': {
          const candidates = [JSON.stringify(node.value)];
          if (!node.quoted) {
            const literal = literalOf(node.value);
            if (literal.number !== undefined) candidates.push(JSON.stringify(literal.number));
            if (literal.json) candidates.push(literal.json);
          }
          // jsonb equality is typed and compares numbers as numbers (500 = 500.0).
          return sql<boolean>`${at} IN (${sql.join(candidates.map((candidate) => sql`CAST(${candidate} AS jsonb)`))})`;
        }
        case 'like':
          return sql<boolean>`(${type} = 'string' AND (j.d #>> ${path}) LIKE ${likePattern(node.pattern)})`;
        case 'range': {
          // The cast runs only on numbers; text compares byte-wise, as SQLite does.
          const value = node.numeric
            ? sql`(CASE WHEN ${type} = 'number' THEN CAST(j.d #>> ${path} AS numeric) END)`
            : sql`(CASE WHEN ${type} = 'string' THEN (j.d #>> ${path}) END) COLLATE "C"`;
          return sql<boolean>`(${sql.join(rangeBounds(node, value, node.numeric ? 'numeric' : 'text'), sql` AND `)})`;
        }
      }
    },
  };
}

function rangeBounds(
  node: Extract<QueryNode, { type: 'range' }>,
  value: RawBuilder<unknown>,
  cast?: 'numeric' | 'text',
): RawBuilder<boolean>[] {
  const param = (bound: number | string) => (cast ? sql`CAST(${bound} AS ${sql.raw(cast)})` : sql`${bound}`);
  const bounds: RawBuilder<boolean>[] = [];
  if (node.low)
    bounds.push(sql<boolean>`${value} ${sql.raw(node.low.inclusive ? '>=' : '>')} ${param(node.low.value)}`);
  if (node.high)
    bounds.push(sql<boolean>`${value} ${sql.raw(node.high.inclusive ? '<=' : '<')} ${param(node.high.value)}`);
  return bounds;
}

/**
 * SQLite: whether the value at `jsonPath` of `r.record` is one of `wanted`, with its JSON type.
 * One `->>` lookup answers most cases, as it keeps the type apart: a JSON string comes back as
 * text and a number as an integer or a real, and text never equals a number in SQL. Only two
 * cases need json_type as well: `->>` gives true and false as 1 and 0, and an object or array as
 * its JSON text. Field conditions read every candidate record, so this is their main cost after
 * reading the record.
 */
export function sqliteEquals(
  jsonPath: string,
  wanted: { text?: string; number?: number; json?: 'true' | 'false' | 'null' },
): RawBuilder<boolean> {
  const value = sql`(r.record ->> ${jsonPath})`;
  const type = sql`json_type(r.record, ${jsonPath})`;
  const options: RawBuilder<unknown>[] = [];
  const plain: (string | number)[] = [];
  if (wanted.text !== undefined) {
    if (/^[[{]/.test(wanted.text)) options.push(sql`(${type} = 'text' AND ${value} = ${wanted.text})`);
    else plain.push(wanted.text);
  }
  if (wanted.number !== undefined) {
    if (wanted.number === 0 || wanted.number === 1)
      options.push(sql`(${type} IN ('integer', 'real') AND ${value} = ${wanted.number})`);
    else plain.push(wanted.number);
  }
  if (plain.length > 0) options.unshift(sql`${value} IN (${sql.join(plain.map((item) => sql`${item}`))})`);
  if (wanted.json) options.push(sql`${type} = ${wanted.json}`);
  if (options.length === 0) return sql<boolean>`false`;
  return sql<boolean>`(${sql.join(options, sql` OR `)})`;
}

/** SQLite GLOB: `*` and `?` as given; literal `*`, `?` and `[` inside brackets. */
function globPattern(parts: PatternPart[]): string {
  return parts
    .map((part) =>
      typeof part === 'string' ? part.replace(/[*?[]/g, (char) => `[${char}]`) : part.any === 'many' ? '*' : '?',
    )
    .join('');
}

/** PostgreSQL LIKE (backslash escapes): `%` and `_` for the wildcards, literal ones escaped. */
function likePattern(parts: PatternPart[]): string {
  return parts
    .map((part) =>
      typeof part === 'string' ? part.replace(/[\\%_]/g, (char) => `\\${char}`) : part.any === 'many' ? '%' : '_',
    )
    .join('');
}

/**
 * Valid JSON that PostgreSQL refuses as jsonb: a `\u0000` escape, an unpaired surrogate escape,
 * a number beyond `numeric` (exponent of 5+ digits, 16k+ digits in a row; the test is coarser
 * than the limit). Casting one such record would fail the whole query, so such records never
 * match a field condition on PostgreSQL; time and text search still find them.
 */
const UNSAFE_ESCAPE = String.raw`(^|[^\\])(\\\\)*\\u(0000|[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2}\\u)[dD][c-fC-F])`;
// Only after `:`, `,` or `[`, where a number can start: hex ids are full of "e12345".
const HUGE_EXPONENT = String.raw`(:|,|\[)[[:space:]]*-?[0-9]+(\.[0-9]+)?[eE][+-]?0*[1-9][0-9]{4}`;
// Counted repetition is capped at 255 in PostgreSQL's regex engine, hence the nesting; it is
// slow, so it only runs on records long enough to hold such a number.
const LONG_DIGIT_RUN = '([0-9]{128}){128}';

function notJsonbCastable(): RawBuilder<boolean> {
  return sql<boolean>`((strpos(r.record, ${'\\u'}) > 0 AND r.record ~ ${UNSAFE_ESCAPE}) OR r.record ~ ${HUGE_EXPONENT} OR (octet_length(r.record) > 16384 AND r.record ~ ${LONG_DIGIT_RUN}))`;
}
