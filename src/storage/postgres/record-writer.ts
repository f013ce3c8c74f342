// PostgreSQL record-log writer: each group is one COPY in one transaction (record-copy.ts), so
// one commit (durable under the server's synchronous_commit) per group.
import type pg from 'pg';
import { createPool } from '../database.js';
import { storageFault, storageUnavailable, type StorageFault } from '../storage-errors.js';
import { copyRecords } from './record-copy.js';
import type { LogPosition, RecordBatch, RecordLogWriter } from '../../record-log/record-log.js';

export class PostgresRecordWriter implements RecordLogWriter {
  private readonly pool: pg.Pool;
  /** The record log's sequence, schema-qualified: read once, on the first write. */
  private sequence: string | undefined;

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
    try {
      const position = await this.copy(batches);
      this.lastFault = undefined;
      return position;
    } catch (error) {
      this.lastFault = storageFault(error) ?? 'io_error';
      throw storageUnavailable(error);
    }
  }

  private async copy(batches: RecordBatch[]): Promise<LogPosition> {
    this.sequence ??= await this.readSequence();
    const client = await this.pool.connect();
    let failure: Error | undefined;
    try {
      return await copyRecords(client, this.sequence, batches);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      // A connection whose COPY failed part-way is not handed out again.
      client.release(failure);
    }
  }

  private async readSequence(): Promise<string> {
    const { rows } = await this.pool.query<{ name: string | null }>(
      `SELECT pg_get_serial_sequence('telemetry_records', 'seq') AS name`,
    );
    const name = rows[0]?.name;
    if (!name) throw new Error('telemetry_records.seq has no sequence');
    return name;
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
