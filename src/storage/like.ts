// LIKE conditions on text a caller typed (a case's free text, a device's name, a user picker's
// prefix): `%`, `_` and `\` in it match themselves, and the ESCAPE clause is spelled out, as
// SQLite has no default escape character (PostgreSQL's is the backslash): both databases then
// read the pattern alike. Case folding is left to the caller: it knows what the column holds.
import { sql, type RawBuilder, type SqlBool } from 'kysely';

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A column name (`c.search_text`) or an expression (`lower(name)`). */
type Operand = string | RawBuilder<unknown>;

function like(operand: Operand, pattern: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${typeof operand === 'string' ? sql.ref(operand) : operand} LIKE ${pattern} ESCAPE '\\'`;
}

/** `operand LIKE '%text%'`: the value holds `text`. */
export function likeContains(operand: Operand, text: string): RawBuilder<SqlBool> {
  return like(operand, `%${escapeLike(text)}%`);
}

/** `operand LIKE 'text%'`: the value starts with `text`. */
export function likeStartsWith(operand: Operand, text: string): RawBuilder<SqlBool> {
  return like(operand, `${escapeLike(text)}%`);
}
