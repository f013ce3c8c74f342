// PostgreSQL record-log writer: each group is one INSERT … SELECT FROM unnest(…) statement, so
// one round trip and one commit (durable under the server's synchronous_commit) per group.
import type pg from 'pg';
import { createPool } from '../storage/database.js';
import { storageFault, storageUnavailable, type StorageFault } from '../storage/storage-errors.js';
import type { LogPosition, RecordBatch, RecordLogWriter } from './record-log.js';

// One statement is one transaction: its id and the largest sequence it took are the position
// of the group's last record (record-follower.ts orders by (tx_id, seq)).
const INSERT = `WITH written AS (
    INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta)
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[])
    RETURNING seq
  )
  SELECT max(seq)::text AS seq, pg_current_xact_id()::text AS tx_id FROM written`;

export class PostgresRecordWriter implements RecordLogWriter {
  private readonly pool: pg.Pool;

  constructor(config: pg.PoolConfig) {
    // A 201 promises durability, so commits wait for the WAL flush whatever the server default.
    const options = [config.options, '-c synchronous_commit=on'].filter(Boolean).join(' ');
    this.pool = createPool({ ...config, max: 2, options });
  }

  readonly healthy = true;
  /** What made the last write fail, until a write succeeds again. */
  private lastFault: StorageFault | undefined;

  get fault(): StorageFault | undefined {
    return this.lastFault;
  }

  async ready(): Promise<void> {
    await this.pool.query('SELECT 1 FROM telemetry_records LIMIT 0');
  }

  async append(batches: RecordBatch[]): Promise<LogPosition> {
    let written: pg.QueryResult<{ seq: string | null; tx_id: string }>;
    try {
      written = await insertRecords(this.pool, batches);
    } catch (error) {
      this.lastFault = storageFault(error) ?? 'io_error';
      throw storageUnavailable(error);
    }
    this.lastFault = undefined;
    const row = written.rows[0];
    return { seq: Number(row?.seq ?? 0), txId: row?.tx_id ?? '0' };
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** Inserts the batches' records in one statement (on a pool, or a client inside a transaction). */
export function insertRecords(
  target: pg.Pool | pg.PoolClient,
  batches: RecordBatch[],
): Promise<pg.QueryResult<{ seq: string | null; tx_id: string }>> {
  const tenantIds: number[] = [];
  const receivedAts: number[] = [];
  const eventTimes: number[] = [];
  const records: string[] = [];
  const metas: (string | null)[] = [];
  for (const batch of batches) {
    for (const [i, record] of batch.records.entries()) {
      // No event time of its own (NaN): the receive time stands in.
      const eventTime = batch.eventTimes[i] ?? Number.NaN;
      tenantIds.push(batch.tenantId);
      receivedAts.push(batch.receivedAt);
      eventTimes.push(Number.isNaN(eventTime) ? batch.receivedAt : eventTime);
      records.push(record);
      metas.push(batch.metas[i] ?? null);
    }
  }
  return target.query(INSERT, [tenantIds, receivedAts, eventTimes, records, metas]);
}
