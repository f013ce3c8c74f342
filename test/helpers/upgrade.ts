// The setup of upgrade tests: for one describe block, a fresh database of the target kind,
// migrated only up to a named migration (the state an older release left), opened before the
// block's tests and dropped after them. The test writes old rows, then migrates to the latest.
import { after, before } from 'node:test';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { migrateTo } from '../../src/storage/migrate.js';
import type { DatabaseTarget, TestDatabase } from './databases.js';

/** Registers the block's hooks; `database` is set once its before hook has run. */
export function databaseAt(target: DatabaseTarget, migration: string): { database: Database } {
  const opened: { database?: Database; testDb?: TestDatabase } = {};
  before(async () => {
    opened.testDb = await target.create();
    opened.database = await openDatabase(opened.testDb);
    await migrateTo(opened.database, migration);
  });
  after(async () => {
    await opened.database?.close();
    await opened.testDb?.cleanup();
  });
  // Read only from tests, which run after the before hook above.
  return opened as { database: Database };
}
