// The storage ports of one deployment, built once from the opened database: the only place
// that chooses a backend. Adding a database is adding a folder under storage/ and a line here.
import type { Database } from '../storage/database.js';
import type { RowLocks } from '../storage/row-locks.js';
import type { TelemetryStorage } from '../telemetry/telemetry-ports.js';
import type { CaseSearchStorage } from '../cases/case-search-sets.js';
import { sqlitePorts } from '../storage/sqlite/index.js';
import { postgresPorts } from '../storage/postgres/index.js';

/** What the features are given instead of the database's name. */
export interface StoragePorts {
  locks: RowLocks;
  telemetry: TelemetryStorage;
  caseSearch: CaseSearchStorage;
}

export function storagePorts(database: Database): StoragePorts {
  return database.kind === 'sqlite' ? sqlitePorts(database) : postgresPorts(database);
}
