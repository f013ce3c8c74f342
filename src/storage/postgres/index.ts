// The PostgreSQL backend: every storage port the features ask for, answered on PostgreSQL.
// storage/ports/storage-ports.ts picks this folder or sqlite/ once, from the configuration.
import type { PostgresDatabase } from '../database.js';
import { postgresRowLocks } from './row-locks.js';
import { postgresCaseSearch } from './case-search.js';
import { postgresRecordDialect } from './telemetry-dialect.js';
import { postgresHistogram } from './telemetry-histogram.js';
import { postgresTailLog } from './tail-log.js';
import { postgresOutboxListener } from './outbox-listener.js';
import { postgresThrottles } from './throttles.js';
import { postgresSearchIndex } from './search-index.js';
import { postgresRecordPurge } from './record-purge.js';
import { postgresLogReading } from './log-reading.js';
import { noWriterThreads } from '../writer-threads.js';

export function postgresPorts(database: PostgresDatabase) {
  return {
    outboxListener: postgresOutboxListener(database),
    throttles: postgresThrottles(database),
    searchIndex: postgresSearchIndex(database),
    recordPurge: postgresRecordPurge,
    logReading: postgresLogReading,
    locks: postgresRowLocks,
    // Every commit is durable on PostgreSQL: relaxing it is the operator's setting, not ours.
    relaxDerivedCommits: () => Promise.resolve(),
    writerThreads: noWriterThreads,
    caseSearch: postgresCaseSearch,
    telemetry: { records: postgresRecordDialect, histogram: postgresHistogram, tail: postgresTailLog },
  };
}
