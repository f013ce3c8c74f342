// The storage ports of one deployment, built once from the opened database: the only place
// that chooses a backend. Adding a database is adding a folder under storage/ and a line here.
import type { Database } from '../database.js';
import type { RowLocks } from '../row-locks.js';
import type { TelemetryStorage } from '../../telemetry/telemetry-ports.js';
import type { CaseSearchStorage } from '../../cases/case-search-sets.js';
import type { OutboxListener } from '../../webhooks/outbox-wake.js';
import type { Throttles } from '../../identity/throttling/throttles.js';
import type { SearchIndexCatchUp } from '../../telemetry/search-index.js';
import type { RecordPurge } from '../../retention/purge-port.js';
import type { LogReading } from '../../record-log/record-follower.js';
import type { WriterThreads } from '../writer-threads.js';
import { sqlitePorts } from '../sqlite/index.js';
import { postgresPorts } from '../postgres/index.js';

/** What the features are given instead of the database's name. */
export interface StoragePorts {
  locks: RowLocks;
  /**
   * Makes this connection's commits cheaper where the database allows it, for a process whose
   * every write derives from the record log and is redone from it (the detection thread).
   */
  relaxDerivedCommits(): Promise<void>;
  telemetry: TelemetryStorage;
  caseSearch: CaseSearchStorage;
  outboxListener: OutboxListener;
  throttles: Throttles;
  searchIndex: SearchIndexCatchUp;
  recordPurge: RecordPurge;
  logReading: LogReading;
  writerThreads: WriterThreads;
}

export function storagePorts(database: Database): StoragePorts {
  return database.kind === 'sqlite' ? sqlitePorts(database) : postgresPorts(database);
}
