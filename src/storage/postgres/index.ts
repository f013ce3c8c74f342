// The PostgreSQL backend: every storage port the features ask for, answered on PostgreSQL.
// app/storage-ports.ts picks this folder or sqlite/ once, from the configuration.
import type { PostgresDatabase } from '../database.js';
import { postgresRowLocks } from './row-locks.js';

export function postgresPorts(_database: PostgresDatabase) {
  return {
    locks: postgresRowLocks,
  };
}
