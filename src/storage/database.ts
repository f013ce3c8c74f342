// Opens the database named by the configuration: the embedded SQLite file (default) or
// PostgreSQL. Both sit behind one Kysely instance; code that must differ by dialect asks
// `database.kind` and keeps that difference in one place.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, sql, type Transaction } from 'kysely';
import { RollbackOnceSqliteDialect } from './sqlite-dialect.js';
import { registerPhraseFunction } from './sqlite-phrases.js';
import type { Tables } from './schema.js';
import { ConfigError } from '../config/config.js';
import { SchemaScopedPostgresDialect } from './postgres-introspector.js';
import { withStatementCache } from './statement-cache.js';

/** The database or a transaction on it: what store functions take, so callers can compose them. */
export type Db = Kysely<Tables> | Transaction<Tables>;

interface OpenDatabase {
  db: Kysely<Tables>;
  /** Where the data lives, safe to print (no password). */
  location: string;
  close(): Promise<void>;
}

/** The embedded database. */
export interface SqliteDatabase extends OpenDatabase {
  kind: 'sqlite';
  /** The database file, for writers that open their own connection. */
  sqlitePath: string;
}

export interface PostgresDatabase extends OpenDatabase {
  kind: 'postgres';
  /** Connection settings, for writers that open their own pool. */
  pgConfig: pg.PoolConfig;
  /** The schema holding Sightline's tables (`?schema=`, else `public`). */
  pgSchema: string;
}

/** Either dialect; `kind` tells which, and with it which connection details exist. */
export type Database = SqliteDatabase | PostgresDatabase;

export type DatabaseKind = Database['kind'];

export interface DatabaseSettings {
  databaseUrl: string;
  dataDir: string;
}

/** How long a SQLite connection of ours waits for another's write lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 10_000;

/** Pragmas every SQLite connection of ours uses: WAL, and fsync on every commit (FULL). */
export function configureSqliteConnection(connection: SQLite.Database): void {
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = FULL');
  connection.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  connection.pragma('foreign_keys = ON');
}

/**
 * SQLite: this connection's commits are not flushed to disk on their own (synchronous=NORMAL),
 * for writers whose every write derives from the record log and is redone from it. In WAL mode
 * each commit stays atomic and in order; the next commit of a connection at FULL (the record
 * writer's, or a checkpoint) flushes the log file with everything before it. What a power cut
 * or OS crash can take is the last such commits, never a part of one; a process crash takes
 * nothing.
 */
export async function relaxSqliteCommits(database: SqliteDatabase): Promise<void> {
  await sql`PRAGMA synchronous = NORMAL`.execute(database.db);
}

/**
 * Opens (and, for SQLite, by default creates) the database. `existing: true` refuses a SQLite
 * file that is not there: a command that only reads or changes what a deployment holds must not
 * leave an empty database behind in a directory nobody meant (`./data` when --data was forgotten).
 */
export async function openDatabase(
  settings: DatabaseSettings,
  options: { existing?: boolean } = {},
): Promise<Database> {
  const url = settings.databaseUrl.trim();
  const sqliteFile =
    url === ''
      ? path.join(settings.dataDir, 'sightline.db')
      : /^(sqlite|file):/i.test(url)
        ? path.resolve(url.replace(/^(sqlite|file):(\/\/)?/i, ''))
        : undefined;
  if (sqliteFile !== undefined) {
    if (options.existing && !fs.existsSync(sqliteFile)) {
      throw new ConfigError(
        `no Sightline database at ${sqliteFile}: give the --data (or --database) that the server runs with ` +
          `(the environment variables SIGHTLINE_DATA and SIGHTLINE_DATABASE_URL work too)`,
      );
    }
    return openSqlite(sqliteFile);
  }
  if (/^postgres(ql)?:\/\//i.test(url)) return openPostgres(url);
  throw new ConfigError(
    'invalid configuration: --database (SIGHTLINE_DATABASE_URL) must start with postgres://, postgresql:// or sqlite: ' +
      `(got ${JSON.stringify(redactUrl(url))})`,
  );
}

function openSqlite(file: string): SqliteDatabase {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const isNew = !fs.existsSync(file);
  const connection = new SQLite(file);
  // Only a database without tables can take this: retention then frees deleted pages in steps.
  if (isNew) connection.pragma('auto_vacuum = INCREMENTAL');
  configureSqliteConnection(connection);
  registerPhraseFunction(connection);
  const db = new Kysely<Tables>({
    dialect: new RollbackOnceSqliteDialect({ database: withStatementCache(connection) }, connection, BUSY_TIMEOUT_MS),
  });
  return {
    kind: 'sqlite',
    db,
    location: file,
    sqlitePath: file,
    close: () => db.destroy(),
  };
}

/**
 * int8 (bigint) columns hold epoch milliseconds and sequences, all below 2^53, and count(*) is
 * int8 too: all are parsed to numbers. numeric (sum() of int8, for one) stays a string.
 */
const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: (oid, format) => {
    if (oid === pg.types.builtins.INT8 && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format) as unknown;
  },
};

async function openPostgres(url: string): Promise<PostgresDatabase> {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError(
      'invalid configuration: --database (SIGHTLINE_DATABASE_URL) ?schema= must be a lowercase SQL identifier',
    );
  }
  const pgConfig: pg.PoolConfig = {
    connectionString: parsed.toString(),
    types: pgTypes,
    max: 10,
    // Names our sessions in pg_stat_activity (per schema when several installs share a database).
    application_name: schema ? `sightline:${schema}` : 'sightline',
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  };
  if (schema) {
    const client = new pg.Client({ connectionString: parsed.toString() });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await client.end();
    }
  }
  const pool = createPool(pgConfig);
  const db = new Kysely<Tables>({ dialect: new SchemaScopedPostgresDialect({ pool }, schema ?? 'public') });
  await sql`SELECT 1`.execute(db);
  return {
    kind: 'postgres',
    db,
    location: redactUrl(url),
    pgConfig,
    pgSchema: schema ?? 'public',
    close: () => db.destroy(),
  };
}

/**
 * A pool that survives its connections being dropped (server restart, failover, idle timeout,
 * an operator's pg_terminate_backend), idle or lent out: pg emits 'error' for those, which
 * would otherwise crash the process. The broken client is discarded by pg; the next query
 * opens a new one.
 */
export function createPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  const lost = (error: Error & { code?: string }) =>
    process.emitWarning(
      `PostgreSQL connection lost (${error.code ?? 'error'}); it will be reopened`,
      'SightlineDatabaseWarning',
    );
  // An idle client's error comes here too (its own listener below has said so already).
  pool.on('error', () => undefined);
  // A client checked out between two queries (a transaction doing work in between) has no
  // pool listener: without one of its own, its dropped connection would be an uncaught error.
  // Its next query fails instead, and the pool discards it when it is released.
  pool.on('connect', (client) => {
    client.on('error', lost);
  });
  return pool;
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL at all: there is nothing structured to redact, and it may hold a secret.
    return '<unparseable URL>';
  }
}
