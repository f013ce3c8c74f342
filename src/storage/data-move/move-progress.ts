// SQL for the data move's bookkeeping in the target (`data_move_progress`, migration 0019): how
// far each table is copied, written in the same transaction as the rows it counts, so a move
// stopped at any point resumes exactly after the last batch that committed.
import { sql, type Kysely } from 'kysely';
import type { Db } from '../database.js';
import type { Tables } from '../schema.js';

export interface TableProgress {
  source: string;
  lastRowid: number;
  copied: number;
  done: boolean;
}

export async function readMoveProgress(db: Kysely<Tables>): Promise<Map<string, TableProgress>> {
  const rows = await db.selectFrom('data_move_progress').selectAll().execute();
  return new Map(
    rows.map((row) => [
      row.table_name,
      { source: row.source, lastRowid: row.last_rowid, copied: row.copied, done: row.done === 1 },
    ]),
  );
}

export async function saveMoveProgress(db: Db, table: string, progress: TableProgress): Promise<void> {
  const values = {
    source: progress.source,
    last_rowid: progress.lastRowid,
    copied: progress.copied,
    done: progress.done ? 1 : 0,
  };
  await db
    .insertInto('data_move_progress')
    .values({ table_name: table, ...values })
    .onConflict((oc) => oc.column('table_name').doUpdateSet(values))
    .execute();
}

/** Rows in a table of either database (the name comes from the move plan, never from input). */
export async function countRows(db: Kysely<unknown>, table: string): Promise<number> {
  const result = await sql<{ n: number | string }>`SELECT count(*) AS n FROM ${sql.id(table)}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}
