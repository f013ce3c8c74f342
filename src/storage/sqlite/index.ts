// The SQLite backend: every storage port the features ask for, answered on the embedded file.
// app/storage-ports.ts picks this folder or postgres/ once, from the configuration.
import type { SqliteDatabase } from '../database.js';
import { sqliteRowLocks } from './row-locks.js';
import { sqliteCaseSearch } from './case-search.js';
import { sqliteRecordDialect } from './telemetry-dialect.js';
import { sqliteHistogram } from './telemetry-histogram.js';
import { sqliteTailLog } from './tail-log.js';

export function sqlitePorts(_database: SqliteDatabase) {
  return {
    locks: sqliteRowLocks,
    caseSearch: sqliteCaseSearch,
    telemetry: { records: sqliteRecordDialect, histogram: sqliteHistogram, tail: sqliteTailLog },
  };
}
