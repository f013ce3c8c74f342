// Main-thread side of the SQLite record-log writer: sends groups to the writer thread and
// resolves each when the thread reports it committed.
import { Worker } from 'node:worker_threads';
import type { AppError } from '../errors.js';
import { storageUnavailable } from './storage-errors.js';
import type { RecordBatch, RecordLogWriter } from '../pipeline/record-log.js';
import type { WriteRequest, WriteResponse } from './sqlite-writer-thread.js';

/** The thread's module: `.ts` when running from source (tests, benchmarks), `.js` when built. */
function threadUrl(): URL {
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`./sqlite-writer-thread.${extension}`, import.meta.url);
}

export class SqliteRecordWriter implements RecordLogWriter {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private failure: Error | undefined;

  constructor(path: string) {
    this.worker = new Worker(threadUrl(), { workerData: { path } });
    this.worker.on('message', (response: WriteResponse) => {
      const waiter = this.waiting.get(response.id);
      if (!waiter) return;
      this.waiting.delete(response.id);
      if (response.ok) waiter.resolve();
      else waiter.reject(storageUnavailable(new Error(`SQLite writer: ${response.code ?? 'error'}: ${response.message}`)));
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`the SQLite writer thread exited with code ${code}`));
    });
  }

  get healthy(): boolean {
    return this.failure === undefined;
  }

  write(batches: RecordBatch[]): Promise<void> {
    if (this.failure) return Promise.reject(this.unavailable());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, batches } satisfies WriteRequest);
    });
  }

  async close(): Promise<void> {
    if (this.failure) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('close');
    await exited;
    this.failure = new Error('the record writer is closed');
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(this.unavailable());
    this.waiting.clear();
  }

  private unavailable(): AppError {
    return storageUnavailable(this.failure);
  }
}
