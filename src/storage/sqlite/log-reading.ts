// Reading the record log on SQLite: one writer assigns sequences under its write lock, so
// sequence order is commit order and a position is the last sequence read.
import type { LogReading } from '../../record-log/record-follower.js';
import { toLogged } from '../../record-log/record-follower.js';
import { logEnd } from '../../telemetry/telemetry-store.js';

export const sqliteLogReading: LogReading = {
  async readAfter(db, position, limit) {
    const rows = await db
      .selectFrom('telemetry_records')
      .select(['seq', 'tenant_id', 'received_at', 'event_time', 'record', 'meta'])
      .where('seq', '>', position.seq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    const last = rows.at(-1);
    return { records: rows.map((row) => toLogged(row, '0')), to: last ? { seq: last.seq, txId: '0' } : position };
  },
  // Sequences commit in order, so the log's end tells the lag.
  lag: async (db, position) => Math.max(0, (await logEnd(db)) - position.seq),
  lagIsCheap: true,
};
