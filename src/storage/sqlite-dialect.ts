// Kysely's SQLite dialect with two differences. A transaction takes the write lock at BEGIN
// (BEGIN IMMEDIATE) unless it is declared `read only`. And a transaction that SQLite has already
// rolled back itself (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM and others end the transaction) is
// not rolled back a second time: Kysely's explicit ROLLBACK would then fail with "no transaction
// is active" and that error would replace the real one, so a full disk would never be reported.
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type SqliteDialectConfig,
  type TransactionSettings,
} from 'kysely';

class RollbackOnceDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly connection: SQLite.Database,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.inner.acquireConnection();
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
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // inTransaction is SQLite's own answer (sqlite3_get_autocommit), not a guess.
    if (!this.connection.inTransaction) return;
    await this.inner.rollbackTransaction(connection);
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
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new RollbackOnceDriver(super.createDriver(), this.connection);
  }
}
