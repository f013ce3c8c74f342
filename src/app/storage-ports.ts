// The storage ports of one deployment, built once from the opened database: the only place
// that chooses a backend. Adding a database is adding a folder under storage/ and a line here.
import type { Database } from '../storage/database.js';
import type { RowLocks } from '../storage/row-locks.js';
import type { OutboxListener } from '../webhooks/outbox-wake.js';
import type { Throttles } from '../identity/throttles.js';
import type { SearchIndexCatchUp } from '../telemetry/search-index.js';
import type { RecordPurge } from '../retention/purge-port.js';
import type { LogReading } from '../record-log/record-follower.js';
import { sqlitePorts } from '../storage/sqlite/index.js';
import { postgresPorts } from '../storage/postgres/index.js';

/** What the features are given instead of the database's name. */
export interface StoragePorts {
  locks: RowLocks;
  outboxListener: OutboxListener;
  throttles: Throttles;
  searchIndex: SearchIndexCatchUp;
  recordPurge: RecordPurge;
  logReading: LogReading;
}

export function storagePorts(database: Database): StoragePorts {
  return database.kind === 'sqlite' ? sqlitePorts(database) : postgresPorts(database);
}
