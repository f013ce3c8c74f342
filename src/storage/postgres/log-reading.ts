// Reading the record log on PostgreSQL: sequences can commit out of order, so a position is a
// snapshot and the records read next are those of transactions it could not see
// (telemetry/snapshot-window.ts).
import type { LogReading } from '../../record-log/record-follower.js';
import { toLogged } from '../../record-log/record-follower.js';
import { readSnapshotWindow, unprocessedCount } from '../../telemetry/snapshot-window.js';

export const postgresLogReading: LogReading = {
  async readAfter(db, position, limit) {
    const read = await readSnapshotWindow(db, position, limit);
    return { records: read.rows.map((row) => toLogged(row, row.tx_id)), to: read.position };
  },
  lag: (db, position, cap) => unprocessedCount(db, position, cap),
  lagIsCheap: false,
};
