// The SQLite backend: every storage port the features ask for, answered on the embedded file.
// storage/ports/storage-ports.ts picks this folder or postgres/ once, from the configuration.
import { relaxSqliteCommits, type SqliteDatabase } from '../database.js';
import { sqliteRowLocks } from './row-locks.js';
import { sqliteCaseSearch } from './case-search.js';
import { sqliteRecordDialect } from './telemetry-dialect.js';
import { sqliteHistogram } from './telemetry-histogram.js';
import { sqliteTailLog } from './tail-log.js';
import { sqliteOutboxListener } from './outbox-listener.js';
import { memoryThrottles } from '../../identity/throttling/throttles.js';
import { sqliteSearchIndex } from './search-index.js';
import { sqliteRecordPurge } from './record-purge.js';
import { sqliteLogReading } from './log-reading.js';
import { joinWriteGate, releaseFor, writeGateFor } from '../sqlite-write-gate.js';
import type { WriterThreads } from '../writer-threads.js';

export function sqlitePorts(database: SqliteDatabase) {
  return {
    outboxListener: sqliteOutboxListener,
    throttles: memoryThrottles,
    searchIndex: sqliteSearchIndex(database),
    recordPurge: sqliteRecordPurge(database),
    logReading: sqliteLogReading,
    locks: sqliteRowLocks,
    relaxDerivedCommits: () => relaxSqliteCommits(database),
    writerThreads: {
      share: () => writeGateFor(database.sqlitePath),
      join: (shared) => shared && joinWriteGate(shared),
      ended: (shared, threadId) => shared && releaseFor(shared, threadId),
    } satisfies WriterThreads,
    caseSearch: sqliteCaseSearch,
    telemetry: { records: sqliteRecordDialect, histogram: sqliteHistogram, tail: sqliteTailLog },
  };
}
