// Many-row INSERTs without building a query per batch. Kysely turns every value of a
// `.values([...])` into nodes, freezes them and compiles them again for each call: for the
// endpoint rows detection writes (hundreds of rows of a dozen columns per chunk) that cost more
// than SQLite's own work, inside the transaction ingest waits on. So the statement for a given
// number of rows is built by Kysely once, with placeholders in the dialect's own syntax, and
// reused with new parameters.
import type { CompiledQuery, Kysely, Transaction } from 'kysely';
import type { Tables } from './schema.js';

type Db = Kysely<Tables> | Transaction<Tables>;

/**
 * A statement shape, made once (module level: compiled statements are cached per shape object):
 * `build(db, rows)` writes the INSERT for `rows` rows of placeholder values, each row an object
 * of `columns` in that order; the values are bound per call in the same order.
 */
export interface BulkInsert {
  readonly columns: readonly string[];
  build(db: Db, placeholders: Record<string, null>[]): { compile(): CompiledQuery };
}

/**
 * Compiled statements by shape, then by dialect (its adapter's class: the placeholders differ)
 * and row count; a handful of shapes, each a few row counts.
 */
const compiled = new WeakMap<object, Map<string, CompiledQuery>>();

function statementFor(db: Db, shape: BulkInsert, count: number): CompiledQuery {
  let byCount = compiled.get(shape);
  if (!byCount) compiled.set(shape, (byCount = new Map<string, CompiledQuery>()));
  const key = `${db.getExecutor().adapter.constructor.name}:${count}`;
  let statement = byCount.get(key);
  if (!statement) {
    const row = Object.fromEntries(shape.columns.map((column) => [column, null]));
    statement = shape
      .build(
        db,
        Array.from({ length: count }, () => row),
      )
      .compile();
    // Every placeholder must be a value of ours: a literal compiled into the text would be reused.
    if (statement.parameters.length !== count * shape.columns.length)
      throw new Error(
        `bulk insert: expected ${count * shape.columns.length} parameters, got ${statement.parameters.length}`,
      );
    byCount.set(key, statement);
  }
  return statement;
}

/**
 * Runs the shape's INSERT for `rows` (each the values of `shape.columns`, in order),
 * `perStatement` rows at a time; returns what RETURNING gave.
 */
export async function bulkInsert<Out = unknown>(
  db: Db,
  shape: BulkInsert,
  rows: readonly (readonly unknown[])[],
  perStatement: number,
): Promise<Out[]> {
  const out: Out[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    const slice = rows.slice(i, i + perStatement);
    const statement = statementFor(db, shape, slice.length);
    const parameters = slice.flat();
    const result = await db.executeQuery<Out>({ ...statement, parameters });
    out.push(...result.rows);
  }
  return out;
}
