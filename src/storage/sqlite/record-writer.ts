// Main-thread side of the SQLite record-log writer: sends groups to the writer thread and
// resolves each when the thread reports it committed; asks it, too, to catch the search index up.
import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from '../../core/worker-thread.js';
import { releaseFor, writeGateFor } from '../sqlite-write-gate.js';
import type { AppError } from '../../core/errors.js';
import { searchIndexUnavailable, storageFault, storageUnavailable, type StorageFault } from '../storage-errors.js';
import type { LogPosition, RecordBatch, RecordLogWriter } from '../../record-log/record-log.js';
import type { CatchUpRequest, IndexFailure, WriteRequest, WriteResponse } from './record-writer-thread.js';

function startThread(path: string): Worker {
  return startWorkerThread(import.meta.url, 'record-writer-thread', { path, gate: writeGateFor(path) });
}

interface Waiter {
  /** With the last record's sequence, for writes. */
  resolve: (seq: number) => void;
  reject: (error: Error) => void;
  /** The error the caller sees when the thread fails the request or dies. */
  failure: (cause: unknown) => AppError;
}

export class SqliteRecordWriter implements RecordLogWriter {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiter>();
  private nextId = 1;
  private failure: Error | undefined;
  /** What made the last write fail, until a write succeeds again. */
  private lastFault: StorageFault | undefined;
  private readonly started: Promise<void>;

  /** `onIndexError` hears of background indexing failures (retried by the thread with back-off). */
  constructor(path: string, onIndexError: (failure: IndexFailure) => void) {
    this.worker = startThread(path);
    const threadId = this.worker.threadId;
    // Dead, it holds no transaction: its turn at the write gate is given up for it.
    this.worker.once('exit', () => releaseFor(writeGateFor(path), threadId));
    this.started = new Promise((resolve, reject) => {
      this.worker.once('message', (message: unknown) =>
        message === 'ready' ? resolve() : reject(new Error(`unexpected first message ${String(message)}`)),
      );
      this.worker.once('error', reject);
      this.worker.once('exit', (code) =>
        reject(new Error(`the SQLite writer thread exited with code ${code} while starting`)),
      );
    });
    this.worker.on('message', (response: WriteResponse | IndexFailure | 'ready') => {
      if (response === 'ready') return;
      if ('indexError' in response) {
        onIndexError(response);
        return;
      }
      const waiter = this.waiting.get(response.id);
      if (!waiter) return;
      this.waiting.delete(response.id);
      if (response.ok) {
        if (response.seq !== undefined) this.lastFault = undefined;
        waiter.resolve(response.seq ?? 0);
        return;
      }
      // The SQLite code stays on the error, so the fault is told by code (storage-errors.ts).
      const cause = Object.assign(new Error(`SQLite writer: ${response.code ?? 'error'}: ${response.message}`), {
        code: response.code,
      });
      waiter.reject(waiter.failure(cause));
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`the SQLite writer thread exited with code ${code}`));
    });
  }

  /** Resolves once the thread has opened the database; rejects if it could not. */
  ready(): Promise<void> {
    return this.started;
  }

  get healthy(): boolean {
    return this.failure === undefined;
  }

  get fault(): StorageFault | undefined {
    return this.lastFault;
  }

  async append(batches: RecordBatch[]): Promise<LogPosition> {
    // One writer: sequences commit in order, so the last one is the position (no transaction id).
    const seq = await this.send(
      (id) => ({ id, batches }) satisfies WriteRequest,
      (cause) => {
        this.lastFault = storageFault(cause) ?? 'io_error';
        return storageUnavailable(cause);
      },
    );
    return { seq, txId: '0' };
  }

  /** Resolves once the thread has indexed the whole log as it stood when the request arrived. */
  async catchUpSearchIndex(): Promise<void> {
    await this.send((id) => ({ id, catchUp: true }) satisfies CatchUpRequest, searchIndexUnavailable);
  }

  async close(): Promise<void> {
    if (this.failure) {
      await this.worker.terminate();
      return;
    }
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('close');
    await exited;
    this.failure = new Error('the record writer is closed');
  }

  private send(message: (id: number) => WriteRequest | CatchUpRequest, failure: Waiter['failure']): Promise<number> {
    if (this.failure) return Promise.reject(failure(this.failure));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, failure });
      this.worker.postMessage(message(id));
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(waiter.failure(this.failure));
    this.waiting.clear();
  }
}
