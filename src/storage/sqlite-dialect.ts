// Kysely's SQLite dialect with two differences. A transaction takes the write lock at BEGIN
// (BEGIN IMMEDIATE) unless it is declared `read only`, and waits for it without holding up the
// event loop (below). And a transaction that SQLite has already
// rolled back itself (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM and others end the transaction) is
// not rolled back a second time: Kysely's explicit ROLLBACK would then fail with "no transaction
// is active" and that error would replace the real one, so a full disk would never be reported.
import type SQLite from 'better-sqlite3';
import {
  SqliteDialect,
  type CompiledQuery,
  type QueryResult,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type SqliteDialectConfig,
  type TransactionSettings,
} from 'kysely';
import { joinedWriteGate } from './sqlite-write-gate.js';

/** Longest pause between two tries for the write lock (ms). */
const MAX_LOCK_POLL_MS = 8;

/**
 * BEGIN IMMEDIATE, waiting for the write lock between tries on a timer instead of in SQLite's
 * busy handler, which sleeps the calling thread: on the event loop that froze every request for
 * as long as the record writer held the lock, and under a burst of ingest it holds it most of
 * the time (a commit, then a chunk of indexing). The collector diagnostics' flush every 5 s waits
 * for it during a burst: in SQLite's handler the event loop would stand still that long, and the
 * requests in flight meanwhile would be the slowest 201s of the burst. Gives up with SQLITE_BUSY after `waitMs`,
 * as busy_timeout would; the connection keeps its busy_timeout for every other statement.
 */
export async function beginImmediate(connection: SQLite.Database, waitMs: number): Promise<void> {
  // A writing thread of this process passes its gate first (sqlite-write-gate.ts); it waits there
  // rather than in SQLite's busy handler, and gives the gate back when the transaction ends.
  const gate = joinedWriteGate();
  if (gate) {
    gate.enter(waitMs);
    try {
      connection.exec('BEGIN IMMEDIATE');
    } catch (error) {
      gate.leave();
      throw error;
    }
    return;
  }
  const deadline = Date.now() + waitMs;
  const busyTimeout = connection.pragma('busy_timeout', { simple: true }) as number;
  for (let pause = 1; ; pause = Math.min(pause * 2, MAX_LOCK_POLL_MS)) {
    connection.pragma('busy_timeout = 0');
    try {
      connection.exec('BEGIN IMMEDIATE');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
    } finally {
      connection.pragma(`busy_timeout = ${busyTimeout}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** SQLite's own answer (sqlite3_get_autocommit), read afresh each time. */
function inTransaction(connection: SQLite.Database): boolean {
  return connection.inTransaction;
}

/** Statements that write: outside a transaction each runs in one of its own (LockWaitingConnection). */
const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/**
 * The connection Kysely's queries run on. A write outside a transaction would wait for the lock
 * in SQLite's busy handler, sleeping the event loop: it runs in a transaction of its own instead,
 * begun by beginImmediate. Everything else runs as it is.
 */
class LockWaitingConnection implements DatabaseConnection {
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly connection: SQLite.Database,
    private readonly lockWaitMs: number,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (inTransaction(this.connection) || !WRITES.has(query.query.kind)) return this.inner.executeQuery<R>(query);
    await beginImmediate(this.connection, this.lockWaitMs);
    try {
      const result = await this.inner.executeQuery<R>(query);
      this.connection.exec('COMMIT');
      return result;
    } catch (error) {
      // SQLite ends a transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR, …).
      if (inTransaction(this.connection)) this.connection.exec('ROLLBACK');
      throw error;
    } finally {
      joinedWriteGate()?.leave();
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class RollbackOnceDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly connection: SQLite.Database,
    private readonly lockWaitMs: number,
  ) {}

  private wrapped: { inner: DatabaseConnection; outer: LockWaitingConnection } | undefined;

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.inner.acquireConnection();
    // The SQLite driver has one connection: wrap it once.
    if (this.wrapped?.inner !== inner)
      this.wrapped = { inner, outer: new LockWaitingConnection(inner, this.connection, this.lockWaitMs) };
    return this.wrapped.outer;
  }

  /**
   * Every transaction not declared `read only` takes the write lock at BEGIN (BEGIN IMMEDIATE),
   * waiting for it up to busy_timeout. Begun deferred, a transaction that reads before it writes
   * fails at its first write with SQLITE_BUSY, at once and without waiting, whenever another
   * connection (the record writer, the detection thread) committed since its first read: under
   * ingest, often.
   */
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.accessMode === 'read only') return this.inner.beginTransaction(connection, settings);
    await beginImmediate(this.connection, this.lockWaitMs);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.commitTransaction(connection);
    } finally {
      // A failed COMMIT is rolled back next, and the transaction is over either way.
      if (!this.connection.inTransaction) joinedWriteGate()?.leave();
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      // inTransaction is SQLite's own answer (sqlite3_get_autocommit), not a guess.
      if (this.connection.inTransaction) await this.inner.rollbackTransaction(connection);
    } finally {
      joinedWriteGate()?.leave();
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.inner.savepoint) throw new Error('the SQLite driver has no savepoints');
    await this.inner.savepoint(connection, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.inner.rollbackToSavepoint) throw new Error('the SQLite driver has no savepoints');
    if (!this.connection.inTransaction) return;
    await this.inner.rollbackToSavepoint(connection, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.inner.releaseSavepoint) throw new Error('the SQLite driver has no savepoints');
    await this.inner.releaseSavepoint(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

export class RollbackOnceSqliteDialect extends SqliteDialect {
  constructor(
    config: SqliteDialectConfig,
    private readonly connection: SQLite.Database,
    /** How long a write transaction waits for the write lock (busy_timeout's role). */
    private readonly lockWaitMs: number,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new RollbackOnceDriver(super.createDriver(), this.connection, this.lockWaitMs);
  }
}
