// PostgreSQL record-log writer: each group is one INSERT … SELECT FROM unnest(…) statement, so
// one round trip and one commit (durable under the server's synchronous_commit) per group.
import type pg from 'pg';
import { createPool } from '../storage/database.js';
import { storageUnavailable } from './storage-errors.js';
import type { RecordBatch, RecordLogWriter } from '../pipeline/record-log.js';

const INSERT = `INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta)
  SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[])`;

export class PostgresRecordWriter implements RecordLogWriter {
  private readonly pool: pg.Pool;

  constructor(config: pg.PoolConfig) {
    // A 201 promises durability, so commits wait for the WAL flush whatever the server default.
    const options = [config.options, '-c synchronous_commit=on'].filter(Boolean).join(' ');
    this.pool = createPool({ ...config, max: 2, options });
  }

  readonly healthy = true;

  async ready(): Promise<void> {
    await this.pool.query('SELECT 1 FROM telemetry_records LIMIT 0');
  }

  async write(batches: RecordBatch[]): Promise<void> {
    const tenantIds: number[] = [];
    const receivedAts: number[] = [];
    const eventTimes: number[] = [];
    const records: string[] = [];
    const metas: (string | null)[] = [];
    for (const batch of batches) {
      for (let i = 0; i < batch.records.length; i++) {
        const eventTime = batch.eventTimes[i]!;
        tenantIds.push(batch.tenantId);
        receivedAts.push(batch.receivedAt);
        eventTimes.push(Number.isNaN(eventTime) ? batch.receivedAt : eventTime);
        records.push(batch.records[i]!);
        metas.push(batch.metas[i] ?? null);
      }
    }
    try {
      await this.pool.query(INSERT, [tenantIds, receivedAts, eventTimes, records, metas]);
    } catch (error) {
      throw storageUnavailable(error);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
