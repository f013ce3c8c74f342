// PostgreSQL's dialect of telemetry search: the query language's text and field tests on the
// tsvector table and jsonb, the substring prefilter, and field filters. telemetry-query-sql.ts
// walks the query; this writes its leaves.
import { sql, type RawBuilder } from 'kysely';
import type { RecordDialect } from '../../telemetry/telemetry-ports.js';
import { allClauses, MAX_CLAUSES, type Clause } from '../../telemetry/telemetry-prefilter.js';
import type { PatternPart, QueryNode } from '../../telemetry/telemetry-query.js';
import {
  compileQuery,
  literalOf,
  rangeBounds,
  usesFields,
  type QueryDialect,
  type TextScope,
} from '../../telemetry/telemetry-query-sql.js';
import type { FieldFilter, FieldValue } from '../../telemetry/telemetry-store.js';

export const postgresRecordDialect: RecordDialect = {
  prefilter: postgresPrefilter,
  query: queryCondition,
  fields: postgresFieldsMatch,
};

/**
 * strpos, all clauses, as the jsonb parse (and the guard before it) costs many scans; the
 * `plain` needles for records marked plain_text, the `any` ones for the rest.
 */
function postgresPrefilter(clauses: Clause[]): RawBuilder<boolean> | undefined {
  const kept = clauses.slice(0, MAX_CLAUSES);
  if (kept.length === 0) return undefined;
  const contains = (needle: string) => sql`strpos(r.record, ${needle}) > 0`;
  return sql<boolean>`((r.plain_text AND ${allClauses(kept, (clause) => clause.plain, contains)}) OR (r.plain_text IS NOT TRUE AND ${allClauses(kept, (clause) => clause.any, contains)}))`;
}

function queryCondition(tenantId: number, node: QueryNode, scope: TextScope): RawBuilder<boolean> {
  const condition = compileQuery(node, postgresDialect(tenantId, scope));
  if (!usesFields(node)) return condition;
  // The record is read as jsonb once per row (OFFSET 0 keeps PostgreSQL from inlining the
  // subquery, which would parse it again for every field condition).
  return sql<boolean>`EXISTS (SELECT 1 FROM (SELECT ${recordJsonb()} AS d OFFSET 0) j WHERE ${condition})`;
}

/**
 * The record `r` as jsonb, or NULL when PostgreSQL cannot read it as jsonb (no field
 * condition then holds for it). A record the writer marked surely readable (jsonb_ok) skips the
 * test of its text, which costs as much as reading it.
 */
function recordJsonb(): RawBuilder<unknown> {
  return sql`(CASE WHEN r.jsonb_ok THEN r.record::jsonb WHEN r.jsonb_ok IS NULL AND NOT ${notJsonbCastable()} THEN r.record::jsonb END)`;
}

function postgresDialect(tenantId: number, scope: TextScope): QueryDialect {
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

/**
 * One jsonb containment test for all the filters, so each record is parsed once
 * however many there are. With scalar leaves containment is exactly typed equality at each path
 * (numbers compare as numbers; a nested array does not contain a key), matching SQLite.
 */
function postgresFieldsMatch(fields: FieldFilter[]): RawBuilder<boolean> {
  const wanted = containmentDocument(fields);
  if (!wanted) return sql<boolean>`false`;
  return sql<boolean>`${recordJsonb()} @> ${JSON.stringify(wanted)}::jsonb`;
}

interface ContainmentNode {
  [key: string]: ContainmentNode | FieldValue;
}

/** The filters as one nested object; undefined when two contradict ("a" = 1 and "a.b" = 2). */
function containmentDocument(fields: FieldFilter[]): ContainmentNode | undefined {
  // Null-prototype objects, so that a key such as "__proto__" is just a key.
  const root: ContainmentNode = Object.create(null) as ContainmentNode;
  for (const { path, value } of fields) {
    let node = root;
    for (const [i, segment] of path.entries()) {
      const existing = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (i === path.length - 1) {
        if (existing !== undefined) return undefined;
        node[segment] = value;
      } else if (existing === undefined) {
        const child = Object.create(null) as ContainmentNode;
        node[segment] = child;
        node = child;
      } else if (typeof existing === 'object' && existing !== null) {
        node = existing;
      } else {
        return undefined;
      }
    }
  }
  return root;
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
