// The PostgreSQL backend: every storage port the features ask for, answered on PostgreSQL.
// app/storage-ports.ts picks this folder or sqlite/ once, from the configuration.
import type { PostgresDatabase } from '../database.js';
import { postgresRowLocks } from './row-locks.js';
import { postgresCaseSearch } from './case-search.js';
import { postgresRecordDialect } from './telemetry-dialect.js';
import { postgresHistogram } from './telemetry-histogram.js';
import { postgresTailLog } from './tail-log.js';

export function postgresPorts(_database: PostgresDatabase) {
  return {
    locks: postgresRowLocks,
    caseSearch: postgresCaseSearch,
    telemetry: { records: postgresRecordDialect, histogram: postgresHistogram, tail: postgresTailLog },
  };
}
