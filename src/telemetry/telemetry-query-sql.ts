// Part of the telemetry store: a parsed query (telemetry-query.ts) as one SQL condition on
// `r` (telemetry_records). The walk of the query is written once here; each database's dialect
// (storage/sqlite/telemetry-dialect.ts, storage/postgres/telemetry-dialect.ts) writes the text
// and field tests. Every value and every field path is a bound parameter; only fixed SQL text is
// written. Each field condition is false, never NULL, when the field is missing, so NOT of it
// holds for records without the field.
import { sql, type RawBuilder } from 'kysely';
import { asNumber, type QueryNode } from './telemetry-query.js';

/**
 * How a full-text term finds its records. `all`: the set of every record holding the words (one
 * index lookup; right for searches over a time range). `window` (SQLite): only the index entries
 * within a sequence range, for reads of a few new records (the tail). `each` (PostgreSQL): a
 * lookup per candidate record, for the same reason.
 */
export type TextScope = { kind: 'all' } | { kind: 'window'; afterSeq: number; upToSeq: number } | { kind: 'each' };

/** How one database writes the leaves of a query. */
export interface QueryDialect {
  text(node: Extract<QueryNode, { type: 'text' }>): RawBuilder<boolean>;
  field(node: FieldNode): RawBuilder<boolean>;
}

export type FieldNode = Extract<QueryNode, { type: 'equals' | 'like' | 'range' | 'exists' }>;

/** The query as one condition, its leaves written by `dialect`. */
export function compileQuery(node: QueryNode, dialect: QueryDialect): RawBuilder<boolean> {
  switch (node.type) {
    case 'and':
    case 'or': {
      const joiner = node.type === 'and' ? sql` AND ` : sql` OR `;
      return sql<boolean>`(${sql.join(
        node.children.map((child) => compileQuery(child, dialect)),
        joiner,
      )})`;
    }
    case 'not':
      return sql<boolean>`(NOT ${compileQuery(node.child, dialect)})`;
    case 'text':
      return dialect.text(node);
    default:
      return sql<boolean>`COALESCE(${dialect.field(node)}, false)`;
  }
}

/** Whether the query tests any field (rather than only full text). */
export function usesFields(node: QueryNode): boolean {
  if (node.type === 'and' || node.type === 'or') return node.children.some(usesFields);
  if (node.type === 'not') return usesFields(node.child);
  return node.type !== 'text';
}

/** What an unquoted value may also be besides a string: a number, true, false or null. */
export function literalOf(value: string): { number?: number; json?: 'true' | 'false' | 'null' } {
  const number = asNumber(value);
  if (number !== undefined) return { number };
  if (value === 'true' || value === 'false' || value === 'null') return { json: value };
  return {};
}

/** A range's bounds on `value`; `cast` types the bound parameters where the dialect needs it. */
export function rangeBounds(
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
