// SQLite's row locks: none beyond the write lock every write transaction takes when it begins,
// which already keeps every other writer out until it ends.
import type { RowLocks } from '../row-locks.js';

export const sqliteRowLocks: RowLocks = {
  lockKey: () => Promise.resolve(),
  forUpdate: (query) => query,
  claim: (query) => query,
};
