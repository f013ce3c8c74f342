// What a data move copies, found from the two schemas rather than listed by hand, so a table a
// later migration adds is moved too: every table of the embedded database except SQLite's own,
// the migration bookkeeping, full-text indexes (the target builds its own) and the state that
// only lives while a server runs (failed-attempt counters). Tables come parents first, by their
// foreign keys, so the target's constraints hold at every step.
import { sql, type Kysely } from 'kysely';

/** Rebuilt or meaningless in the target: never copied, never counted. */
const NOT_MOVED = new Set(['auth_failures', 'account_throttle', 'data_move_progress']);

export interface MovedColumn {
  name: string;
  /** The target column's type is boolean: SQLite's 0/1 become false/true. */
  boolean: boolean;
}

export interface MovedTable {
  name: string;
  columns: MovedColumn[];
  /** Primary-key columns (empty when the table has none but SQLite's rowid). */
  key: string[];
  /** Target columns filled from a sequence, reset past the copied ids afterwards. */
  serial: string[];
}

interface SqliteColumn {
  name: string;
  pk: number;
}

/** The tables to move, parents before children; throws when the two schemas disagree. */
export async function planMove(
  source: Kysely<unknown>,
  target: Kysely<unknown>,
  targetSchema: string,
): Promise<MovedTable[]> {
  const master = await sql<{ name: string; sql: string | null }>`
    SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY rootpage`.execute(source);
  const virtual = master.rows.filter((row) => /^CREATE VIRTUAL TABLE/i.test(row.sql ?? '')).map((row) => row.name);
  const names = master.rows
    .map((row) => row.name)
    .filter(
      (name) =>
        !name.startsWith('sqlite_') &&
        !name.startsWith('kysely_') &&
        !NOT_MOVED.has(name) &&
        // A full-text table and its shadow tables (`telemetry_fts_data`, …).
        !virtual.some((table) => name === table || name.startsWith(`${table}_`)),
    );
  const targetColumns = await sql<{
    table_name: string;
    column_name: string;
    data_type: string;
    column_default: string | null;
  }>`
    SELECT table_name, column_name, data_type, column_default FROM information_schema.columns
    WHERE table_schema = ${targetSchema}`.execute(target);
  // The target's own primary keys decide what a resumed batch meets itself on: a PostgreSQL table
  // partitioned by time carries the time column in its key where SQLite's key is the id alone.
  const targetKeys = await sql<{ table_name: string; column_name: string; ordinal_position: number }>`
    SELECT kcu.table_name, kcu.column_name, kcu.ordinal_position
    FROM information_schema.table_constraints tc
    JOIN information_schema.key_column_usage kcu
      ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema AND kcu.table_name = tc.table_name
    WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = ${targetSchema}
    ORDER BY kcu.table_name, kcu.ordinal_position`.execute(target);
  const tables: MovedTable[] = [];
  const parents = new Map<string, Set<string>>();
  for (const name of names) {
    const columns = (await sql<SqliteColumn>`SELECT name, pk FROM pragma_table_info(${name})`.execute(source)).rows;
    const inTarget = targetColumns.rows.filter((column) => column.table_name === name);
    if (inTarget.length === 0) throw new Error(`the target database has no table ${name}: is it an older version?`);
    const moved = columns.map((column) => {
      const match = inTarget.find((candidate) => candidate.column_name === column.name);
      if (!match) throw new Error(`the target table ${name} has no column ${column.name}: is it an older version?`);
      return { name: column.name, boolean: match.data_type === 'boolean' };
    });
    tables.push({
      name,
      columns: moved,
      key: primaryKey(
        targetKeys.rows.filter((key) => key.table_name === name).map((key) => key.column_name),
        columns,
      ),
      serial: inTarget
        .filter((column) => column.column_default?.startsWith('nextval('))
        .map((column) => column.column_name),
    });
    const references = await sql<{ table: string }>`SELECT "table" FROM pragma_foreign_key_list(${name})`.execute(
      source,
    );
    parents.set(name, new Set(references.rows.map((row) => row.table).filter((parent) => parent !== name)));
  }
  return parentsFirst(tables, parents);
}

/** The target's primary key when it has one, else SQLite's (a table with neither has none). */
function primaryKey(target: string[], source: SqliteColumn[]): string[] {
  if (target.length > 0) return target;
  return source
    .filter((column) => column.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((column) => column.name);
}

function parentsFirst(tables: MovedTable[], parents: Map<string, Set<string>>): MovedTable[] {
  const ordered: MovedTable[] = [];
  const placed = new Set<string>();
  let remaining = tables;
  while (remaining.length > 0) {
    const ready = remaining.filter((table) =>
      [...(parents.get(table.name) ?? [])].every(
        (parent) => placed.has(parent) || !tables.some((t) => t.name === parent),
      ),
    );
    if (ready.length === 0) {
      throw new Error(`the tables ${remaining.map((table) => table.name).join(', ')} reference each other in a cycle`);
    }
    for (const table of ready) placed.add(table.name);
    ordered.push(...ready);
    remaining = remaining.filter((table) => !placed.has(table.name));
  }
  return ordered;
}
