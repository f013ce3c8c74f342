// SQLite's dialect of telemetry search: the query language's text and field tests on FTS5 and
// SQLite's JSON functions, the substring prefilter, and field filters. telemetry-query-sql.ts
// walks the query; this writes its leaves.
import { sql, type RawBuilder } from 'kysely';
import type { RecordDialect } from '../../telemetry/telemetry-ports.js';
import { allClauses, MAX_CLAUSES, type Clause } from '../../telemetry/telemetry-prefilter.js';
import type { PatternPart } from '../../telemetry/telemetry-query.js';
import {
  compileQuery,
  literalOf,
  rangeBounds,
  type QueryDialect,
  type TextScope,
} from '../../telemetry/telemetry-query-sql.js';
import { wantedOf, type FieldFilter } from '../../telemetry/telemetry-store.js';
import { searchWords, wordsQuery } from '../sqlite-phrases.js';

export const sqliteRecordDialect: RecordDialect = {
  prefilter: sqlitePrefilter,
  query: (_tenantId, node, scope) => compileQuery(node, sqliteDialect(scope)),
  fields: sqliteFieldsMatch,
};

/**
 * GLOB (a byte scan; instr compares at every character and cost more than the parse it would
 * save), and only clauses of one value (a string and the backslash), as each further scan of a
 * record costs about what SQLite's JSON lookup does; its writer marks nothing plain.
 */
function sqlitePrefilter(clauses: Clause[]): RawBuilder<boolean> | undefined {
  const kept = clauses.filter((clause) => clause.any.length <= 2).slice(0, MAX_CLAUSES);
  if (kept.length === 0) return undefined;
  return allClauses(
    kept,
    (clause) => clause.any,
    (needle) => sql`r.record GLOB ${`*${needle.replace(/[*?[]/g, (char) => `[${char}]`)}*`}`,
  );
}

function sqliteDialect(scope: TextScope): QueryDialect {
  return {
    text(node) {
      // The index knows which records hold each word, not where (sqlite-phrases.ts): it finds
      // the records holding them all, and several words are then checked for being a phrase.
      const words = searchWords(node.text);
      if (words.length === 0) return sql<boolean>`0 = 1`;
      // FTS5 seeks its lists by rowid, so a window costs what the window holds, not every match;
      // it only seeks with integer bounds, and better-sqlite3 binds JS numbers as reals (hence CAST).
      const window =
        scope.kind === 'window'
          ? sql` AND rowid > CAST(${scope.afterSeq} AS INTEGER) AND rowid <= CAST(${scope.upToSeq} AS INTEGER)`
          : sql``;
      const held = sql<boolean>`r.seq IN (SELECT rowid FROM telemetry_fts WHERE telemetry_fts MATCH ${wordsQuery(words, node.prefix)}${window})`;
      if (words.length === 1) return held;
      return sql<boolean>`(${held} AND sightline_phrase(r.record, ${JSON.stringify(words)}, ${node.prefix ? 1 : 0}) = 1)`;
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

/**
 * Typed equality (so "500" never equals 500, see sqliteEquals). Quoted path labels (`$."a"."b"`) look up object keys only, as the PostgreSQL side does.
 */
function sqliteFieldsMatch(fields: FieldFilter[]): RawBuilder<boolean> {
  const conditions = fields.map(({ path, value }) =>
    sqliteEquals(`$${path.map((segment) => `."${segment}"`).join('')}`, wantedOf(value)),
  );
  return sql<boolean>`(${sql.join(conditions, sql` AND `)})`;
}

/** SQLite GLOB: `*` and `?` as given; literal `*`, `?` and `[` inside brackets. */
function globPattern(parts: PatternPart[]): string {
  return parts
    .map((part) =>
      typeof part === 'string' ? part.replace(/[*?[]/g, (char) => `[${char}]`) : part.any === 'many' ? '*' : '?',
    )
    .join('');
}
