// Moves an embedded (SQLite) deployment into PostgreSQL: every table, parents first, in batches
// read by SQLite rowid and written with the batch's progress in one target transaction, so a
// move stopped anywhere resumes where it stopped (docs/scale.md, Moving from the embedded database).
// Ids are copied as they are, and each id sequence is then set past them. The followers of the
// record log get their PostgreSQL positions; the full-text index is rebuilt by the server.
// Only table names and counts are printed, never row content.
import { createHash } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { AppError } from '../../core/errors.js';
import type { PostgresDatabase, SqliteDatabase } from '../database.js';
import { planMove, type MovedTable } from './move-plan.js';
import { countRows, readMoveProgress, saveMoveProgress, type TableProgress } from './move-progress.js';

/** PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMETERS = 60_000;
const REPORT_EVERY_MS = 1_000;
/** The record-log followers' positions: translated, not copied (see moveCursors). */
const CURSORS = 'log_cursors';
const SEARCH_INDEX_CURSOR = 'search_index';

export interface MoveOptions {
  /** Rows per batch (one target transaction). */
  batchRows: number;
  /** A line of progress for people: table names and counts only. */
  report: (line: string) => void;
}

export interface MovedCount {
  table: string;
  source: number;
  target: number;
}

export async function moveData(
  source: SqliteDatabase,
  target: PostgresDatabase,
  options: MoveOptions,
): Promise<MovedCount[]> {
  const from = source.db as unknown as Kysely<unknown>;
  const to = target.db as unknown as Kysely<unknown>;
  const plan = await planMove(from, to, target.pgSchema);
  const fingerprint = await sourceFingerprint(from);
  const progress = await readMoveProgress(target.db);
  await refuseOtherDeployment(to, fingerprint, progress);
  options.report(
    progress.size > 0
      ? `resuming the move into ${target.location}: ${plan.length} tables`
      : `moving ${source.location} into ${target.location}: ${plan.length} tables`,
  );
  for (const table of plan) {
    if (table.name === CURSORS) continue;
    await copyTable(source, target, table, progress.get(table.name) ?? fresh(fingerprint), options);
  }
  // Once: a server started on the target since then has moved them on.
  const cursors = plan.find((table) => table.name === CURSORS);
  if (cursors && !progress.get(CURSORS)?.done) await moveCursors(from, target, cursors, fingerprint);
  for (const table of plan) await resetSequences(to, table);
  return verify(from, to, plan, options.report);
}

const fresh = (source: string): TableProgress => ({ source, lastRowid: 0, copied: 0, done: false });

async function copyTable(
  source: SqliteDatabase,
  target: PostgresDatabase,
  table: MovedTable,
  start: TableProgress,
  options: MoveOptions,
): Promise<void> {
  const from = source.db as unknown as Kysely<unknown>;
  if (start.done) {
    options.report(`${table.name}: already moved (${start.copied} rows)`);
    return;
  }
  const total = await countRows(from, table.name);
  const batch = Math.max(1, Math.min(options.batchRows, Math.floor(MAX_PARAMETERS / table.columns.length)));
  const columns = sql.join(table.columns.map((column) => sql.id(column.name)));
  let state = start;
  // A table that takes more than one batch says so after its first one, then once a second.
  let reported = Number.NEGATIVE_INFINITY;
  for (;;) {
    const rows = (
      await sql<Record<string, unknown>>`SELECT rowid AS move_rowid, ${columns} FROM ${sql.id(table.name)}
        WHERE rowid > ${state.lastRowid} ORDER BY rowid LIMIT ${batch}`.execute(from)
    ).rows;
    const last = rows.at(-1);
    if (!last) break;
    const next: TableProgress = {
      ...state,
      lastRowid: Number(last.move_rowid),
      copied: state.copied + rows.length,
    };
    await target.db.transaction().execute(async (trx) => {
      await insertBatch(trx as unknown as Kysely<unknown>, table, rows);
      await saveMoveProgress(trx, table.name, next);
    });
    state = next;
    if (state.copied < total && Date.now() - reported >= REPORT_EVERY_MS) {
      reported = Date.now();
      options.report(`${table.name}: ${state.copied} of ${total} rows`);
    }
  }
  await saveMoveProgress(target.db, table.name, { ...state, done: true });
  options.report(`${table.name}: ${state.copied} rows moved`);
}

function insertBatch(trx: Kysely<unknown>, table: MovedTable, rows: Record<string, unknown>[]): Promise<unknown> {
  const values = rows.map(
    (row) =>
      sql`(${sql.join(
        table.columns.map((column) => {
          const value = row[column.name];
          return column.boolean && typeof value === 'number' ? value !== 0 : value;
        }),
      )})`,
  );
  const names = sql.join(table.columns.map((column) => sql.id(column.name)));
  return sql`INSERT INTO ${sql.id(table.name)} (${names}) VALUES ${sql.join(values)} ${onConflict(table)}`.execute(trx);
}

/**
 * A row already in the target takes the source's values: the target's migrations may have
 * seeded it. A table without a primary key cannot meet itself: its batches commit once.
 */
function onConflict(table: MovedTable): RawBuilder<unknown> {
  const others = table.columns.filter((column) => !table.key.includes(column.name));
  if (table.key.length === 0 || others.length === 0) return sql`ON CONFLICT DO NOTHING`;
  const keys = sql.join(table.key.map((name) => sql.id(name)));
  const sets = sql.join(others.map((column) => sql`${sql.id(column.name)} = EXCLUDED.${sql.id(column.name)}`));
  return sql`ON CONFLICT (${keys}) DO UPDATE SET ${sets}`;
}

/**
 * The followers' positions. SQLite's is the last sequence processed; PostgreSQL's is (transaction
 * id, sequence), and the moved records carry the ids of the move's own transactions, in order:
 * the record at that sequence gives the transaction id. The full-text index starts over, since
 * the target's is built from nothing.
 */
async function moveCursors(
  from: Kysely<unknown>,
  target: PostgresDatabase,
  table: MovedTable,
  fingerprint: string,
): Promise<void> {
  const rows = (await sql<{ name: string; seq: number }>`SELECT name, seq FROM ${sql.id(CURSORS)}`.execute(from)).rows;
  const to = target.db as unknown as Kysely<unknown>;
  await target.db.transaction().execute(async (trx) => {
    for (const row of rows) {
      const position =
        row.name === SEARCH_INDEX_CURSOR ? { seq: 0, txId: null } : { seq: row.seq, txId: await txIdAt(to, row.seq) };
      // No snapshots: (transaction id, sequence) alone reads as "every transaction below it".
      await sql`INSERT INTO ${sql.id(CURSORS)} (name, seq, tx_id) VALUES (${row.name}, ${position.seq}, ${position.txId})
        ON CONFLICT (name) DO UPDATE SET seq = EXCLUDED.seq, tx_id = EXCLUDED.tx_id, seen = NULL, up_to = NULL`.execute(
        trx,
      );
    }
    await saveMoveProgress(trx, table.name, { source: fingerprint, lastRowid: 0, copied: rows.length, done: true });
  });
}

async function txIdAt(to: Kysely<unknown>, seq: number): Promise<string> {
  if (seq === 0) return '0';
  const result = await sql<{ tx_id: string }>`SELECT tx_id::text AS tx_id FROM telemetry_records
    WHERE seq <= ${seq} ORDER BY seq DESC LIMIT 1`.execute(to);
  return result.rows[0]?.tx_id ?? '0';
}

/** Ids were copied as they are: each sequence continues past the largest. */
async function resetSequences(to: Kysely<unknown>, table: MovedTable): Promise<void> {
  for (const column of table.serial) {
    const ref = sql.id(column);
    await sql`SELECT setval(pg_get_serial_sequence(${table.name}, ${column}),
      COALESCE((SELECT max(${ref}) FROM ${sql.id(table.name)}), 1),
      (SELECT max(${ref}) FROM ${sql.id(table.name)}) IS NOT NULL)`.execute(to);
  }
}

async function verify(
  from: Kysely<unknown>,
  to: Kysely<unknown>,
  plan: MovedTable[],
  report: (line: string) => void,
): Promise<MovedCount[]> {
  const counts: MovedCount[] = [];
  for (const table of plan) {
    counts.push({
      table: table.name,
      source: await countRows(from, table.name),
      target: await countRows(to, table.name),
    });
  }
  const differing = counts.filter((count) => count.source !== count.target);
  if (differing.length > 0) {
    throw new AppError(
      'move_verification_failed',
      `row counts differ after the move: ${differing.map((c) => `${c.table} ${c.source} in the source, ${c.target} in the target`).join('; ')}. ` +
        'Was a server writing to either database during the move, or has one run on the target since? ' +
        'A move interrupted by a writer continues where it stopped when run again with the writer stopped',
    );
  }
  report(`verified: ${plan.length} tables, ${counts.reduce((sum, count) => sum + count.source, 0)} rows, counts equal`);
  return counts;
}

/** Names the source deployment by its first tenant, so a resumed move is known to be the same one. */
async function sourceFingerprint(from: Kysely<unknown>): Promise<string> {
  const first = (
    await sql<{ id: number; code_name: string; created_at: number }>`SELECT id, code_name, created_at FROM tenants
      ORDER BY id LIMIT 1`.execute(from)
  ).rows[0];
  const identity = first ? `${first.id}\u0000${first.code_name}\u0000${first.created_at}` : 'no tenants';
  return createHash('sha256').update(identity).digest('hex');
}

/**
 * The target must be empty or hold this very move, half done: rows of another deployment would
 * mix with the moved ones (and clash on their ids).
 */
async function refuseOtherDeployment(
  to: Kysely<unknown>,
  fingerprint: string,
  progress: Map<string, TableProgress>,
): Promise<void> {
  const marks = [...progress.values()];
  if (marks.length > 0) {
    if (marks.every((mark) => mark.source === fingerprint)) return;
    throw new AppError(
      'move_target_not_empty',
      'the target holds a move from another embedded database; move into an empty PostgreSQL database or schema (?schema=NAME)',
    );
  }
  for (const table of ['tenants', 'users', 'telemetry_records']) {
    if ((await countRows(to, table)) > 0) {
      throw new AppError(
        'move_target_not_empty',
        `the target already holds data (its ${table} table has rows): a server ran on it, or another deployment lives there. ` +
          'Move into an empty PostgreSQL database or schema (?schema=NAME)',
      );
    }
  }
}
