// The databases every storage and collector suite runs against: a fresh SQLite file always, and
// PostgreSQL (a fresh schema) when SIGHTLINE_TEST_DATABASE_URL names a server. scripts/run-tests.mjs
// settles that once for all test files: the variable as given, else a local server it found
// (postgres://postgres@127.0.0.1:5432, database sightline_test), else none, and then it says why
// in SIGHTLINE_TEST_POSTGRES_ABSENT. Without one the PostgreSQL suites are skipped loudly; under
// CI they fail instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropSchema, freshSchema, schemaClient } from './postgres.js';

export interface TestDatabase {
  kind: 'sqlite' | 'postgres';
  /** Data directory (always a fresh temp dir; holds the SQLite file). */
  dataDir: string;
  /** `--database` value: empty for the embedded SQLite default. */
  databaseUrl: string;
  cleanup(): Promise<void>;
}

export interface DatabaseTarget {
  kind: 'sqlite' | 'postgres';
  /** Why this target cannot run here, if it cannot. */
  skip: string | false;
  create(): Promise<TestDatabase>;
}

const pgBase = process.env.SIGHTLINE_TEST_DATABASE_URL ?? '';

if (!pgBase) {
  const why =
    process.env.SIGHTLINE_TEST_POSTGRES_ABSENT ??
    'SIGHTLINE_TEST_DATABASE_URL is not set, and this run did not look for a local server: node scripts/run-tests.mjs does';
  const message = `no PostgreSQL (${why}): the PostgreSQL suites are NOT running`;
  if (process.env.CI) throw new Error(`${message}. CI must provide PostgreSQL.`);
  console.warn(`\n*** WARNING: ${message} ***\n`);
}

export function tempDir(prefix = 'sightline-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export const databaseTargets: DatabaseTarget[] = [
  {
    kind: 'sqlite',
    skip: false,
    create() {
      const dataDir = tempDir();
      return Promise.resolve({
        kind: 'sqlite',
        dataDir,
        databaseUrl: '',
        cleanup: () => {
          fs.rmSync(dataDir, { recursive: true, force: true });
          return Promise.resolve();
        },
      });
    },
  },
  {
    kind: 'postgres',
    skip: pgBase ? false : 'no PostgreSQL server — PostgreSQL suite NOT run',
    create() {
      const { schema, url, baseUrl } = freshSchema(pgBase, 't');
      const dataDir = tempDir();
      return Promise.resolve({
        kind: 'postgres',
        dataDir,
        databaseUrl: url,
        cleanup: async () => {
          fs.rmSync(dataDir, { recursive: true, force: true });
          await dropSchema(baseUrl, schema);
        },
      });
    },
  },
];

/**
 * Takes the record table's write lock from another connection, as a long-running writer would,
 * so that the server's commits stall. Returns the function that releases it.
 */
export async function holdRecordLogLock(database: TestDatabase): Promise<() => Promise<void>> {
  if (database.kind === 'sqlite') {
    const { default: SQLite } = await import('better-sqlite3');
    const connection = new SQLite(path.join(database.dataDir, 'sightline.db'));
    connection.exec('BEGIN IMMEDIATE');
    return () => {
      connection.exec('ROLLBACK');
      connection.close();
      return Promise.resolve();
    };
  }
  const client = await schemaClient(database.databaseUrl);
  await client.query('BEGIN');
  await client.query('LOCK TABLE telemetry_records IN EXCLUSIVE MODE');
  return async () => {
    await client.query('ROLLBACK');
    await client.end();
  };
}
