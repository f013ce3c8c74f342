// PostgreSQL record-log writer: each group is one INSERT statement (postgres-insert.ts), so one
// round trip and one commit (durable under the server's synchronous_commit) per group.
import type pg from 'pg';
import { createPool } from '../storage/database.js';
import { storageFault, storageUnavailable, type StorageFault } from '../storage/storage-errors.js';
import { insertRecords, type InsertedPosition } from './postgres-insert.js';
import type { LogPosition, RecordBatch, RecordLogWriter } from './record-log.js';

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
    let written: InsertedPosition;
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
