// The SQLite record-log writer, on its own thread: it owns one connection (WAL,
// synchronous=FULL), commits each group of batches in one transaction, and indexes the records
// for full-text search in that same transaction. The main thread parses while this one waits
// on fsync, and a long commit never blocks the event loop.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { configureSqliteConnection } from '../storage/database.js';
import type { RecordBatch } from '../pipeline/record-log.js';

export interface WriteRequest {
  id: number;
  batches: RecordBatch[];
}

export type WriteResponse = { id: number; ok: true } | { id: number; ok: false; message: string; code?: string };

const port = parentPort;
if (!port) throw new Error('sqlite-writer-thread must run as a worker thread');

const connection = new SQLite((workerData as { path: string }).path);
configureSqliteConnection(connection);

const insertRecord = connection.prepare(
  'INSERT INTO telemetry_records (tenant_id, received_at, event_time, record, meta) VALUES (?, ?, ?, ?, ?)',
);
const indexRecord = connection.prepare('INSERT INTO telemetry_fts (rowid, record) VALUES (?, ?)');

const writeAll = connection.transaction((batches: RecordBatch[]) => {
  for (const batch of batches) {
    const { tenantId, receivedAt, records, eventTimes, metas } = batch;
    for (let i = 0; i < records.length; i++) {
      const eventTime = eventTimes[i]!;
      const record = records[i]!;
      const { lastInsertRowid } = insertRecord.run(tenantId, receivedAt, Number.isNaN(eventTime) ? receivedAt : eventTime, record, metas[i] ?? null);
      indexRecord.run(lastInsertRowid, record);
    }
  }
});

// `transaction()` uses a deferred BEGIN; take the write lock up front so a busy database waits
// in busy_timeout instead of failing half-way.
const writeImmediate = (batches: RecordBatch[]) => writeAll.immediate(batches);

port.postMessage('ready');

port.on('message', (request: WriteRequest | 'close') => {
  if (request === 'close') {
    connection.close();
    port.close();
    return;
  }
  let response: WriteResponse;
  try {
    writeImmediate(request.batches);
    response = { id: request.id, ok: true };
  } catch (error) {
    const err = error as Error & { code?: string };
    response = { id: request.id, ok: false, message: err.message, ...(err.code ? { code: err.code } : {}) };
  }
  port.postMessage(response);
});
