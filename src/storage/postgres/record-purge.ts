// PostgreSQL's answers to the purge port: sequences can commit out of order, so the floor
// holds for a snapshot; deletes run over the pool, and the table gives space back by itself.
import { sql } from 'kysely';
import type { RecordPurge } from '../../retention/purge-port.js';
import { currentSnapshot } from '../../telemetry/snapshot-window.js';

export const postgresRecordPurge: RecordPurge = {
  snapshot: currentSnapshot,
  async deleteIndexEntries(trx, tenantId, seqs) {
    await sql`DELETE FROM telemetry_fts WHERE tenant_id = ${tenantId} AND seq IN (${sql.join(seqs)})`.execute(trx);
  },
  reclaimPages: () => Promise.resolve(),
};
