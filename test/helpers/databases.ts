// The databases every storage and collector suite runs against: a fresh SQLite file always, and
// PostgreSQL (a fresh schema) when SIGHTLINE_TEST_DATABASE_URL is set. Without it the
// PostgreSQL suites are skipped loudly; under CI they fail instead, because CI provides it.
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

const pgBase = process.env.SIGHTLINE_TEST_DATABASE_URL;

if (!pgBase) {
  const message =
    'SIGHTLINE_TEST_DATABASE_URL is not set: the PostgreSQL suites are NOT running (set it to postgres://…; .ci/run does)';
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
    async create() {
      const dataDir = tempDir();
      return {
        kind: 'sqlite',
        dataDir,
        databaseUrl: '',
        cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    kind: 'postgres',
    skip: pgBase ? false : 'SIGHTLINE_TEST_DATABASE_URL not set — PostgreSQL suite NOT run',
    async create() {
      const { schema, url, baseUrl } = freshSchema(pgBase!, 't');
      const dataDir = tempDir();
      return {
        kind: 'postgres',
        dataDir,
        databaseUrl: url,
        cleanup: async () => {
          fs.rmSync(dataDir, { recursive: true, force: true });
          await dropSchema(baseUrl, schema);
        },
      };
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
    return async () => {
      connection.exec('ROLLBACK');
      connection.close();
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
