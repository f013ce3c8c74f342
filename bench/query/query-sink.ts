// Bulk loading for bench:query: rows straight into the database, many to a transaction, on a
// connection of its own (SQLite: no fsync per commit; PostgreSQL: a table's rows as JSON, a few
// thousand to a statement), so 100k cases load in seconds rather than through the services.
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Database } from '../../src/storage/database.js';

/** Rows written in batches, each one transaction; within a batch, tables in the order they first appear (parents first). */
export interface RowSink {
  insert(table: string, row: Record<string, unknown>): void;
  /** Runs `fill`, which inserts synchronously, and commits what it inserted. */
  batch(fill: () => void): Promise<void>;
  /** ANALYZE if asked; leaves the database as a server expects to find it. */
  finish(analyze: boolean): Promise<void>;
}

export function openSink(database: Database): RowSink {
  return database.kind === 'sqlite' ? sqliteSink(database.sqlitePath) : postgresSink(database.pgConfig);
}

function sqliteSink(file: string): RowSink {
  const connection = new SQLite(file);
  // Our own connection, for the load only: no fsync per commit; foreign keys checked as the app does.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = OFF');
  connection.pragma('busy_timeout = 10000');
  connection.pragma('foreign_keys = ON');
  const statements = new Map<string, SQLite.Statement>();
  return {
    insert(table, row) {
      const columns = Object.keys(row);
      const key = `${table}(${columns.join()})`;
      let statement = statements.get(key);
      if (!statement) {
        statement = connection.prepare(
          `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
        );
        statements.set(key, statement);
      }
      statement.run(row);
    },
    // better-sqlite3 is synchronous: these are done when they return.
    batch(fill) {
      connection.transaction(fill)();
      return Promise.resolve();
    },
    finish(analyze) {
      if (analyze) connection.exec('ANALYZE');
      // Fold the load's WAL into the database file, as the server's own checkpoints would have.
      connection.pragma('wal_checkpoint(TRUNCATE)');
      connection.close();
      return Promise.resolve();
    },
  };
}

/** PostgreSQL: each table's rows of a batch go in as JSON, a few thousand to a statement. */
function postgresSink(config: pg.PoolConfig): RowSink {
  const client = new pg.Client(config);
  let connected = false;
  const pending = new Map<string, { columns: string; rows: Record<string, unknown>[] }>();
  return {
    insert(table, row) {
      let entry = pending.get(table);
      if (!entry) pending.set(table, (entry = { columns: Object.keys(row).join(', '), rows: [] }));
      entry.rows.push(row);
    },
    async batch(fill) {
      fill();
      if (!connected) {
        await client.connect();
        connected = true;
      }
      await client.query('BEGIN');
      try {
        for (const [table, { columns, rows }] of pending) {
          for (let i = 0; i < rows.length; i += 2_000) {
            await client.query(
              `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM json_populate_recordset(NULL::${table}, $1)`,
              [JSON.stringify(rows.slice(i, i + 2_000))],
            );
          }
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        pending.clear();
      }
    },
    async finish(analyze) {
      // VACUUM as well: autovacuum would soon, and until then no index-only scan skips the table.
      if (analyze && connected) await client.query('VACUUM (ANALYZE)');
      if (connected) await client.end();
    },
  };
}
