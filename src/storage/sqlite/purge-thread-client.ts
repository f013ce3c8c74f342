// Starts the SQLite purge thread and hands it batches (see purge-thread.ts).
import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from '../../core/worker-thread.js';
import type { PurgeDone, PurgeThread } from '../../retention/purge-port.js';
import type { PurgeRequest, PurgeResponse } from './purge-thread.js';

function startThread(path: string): Worker {
  return startWorkerThread(import.meta.url, 'purge-thread', { path });
}

/** What a request did: records deleted (or 1 while some of the index is left to reclaim), lock time, contention. */
type Done = PurgeDone;

export class SqlitePurgeThread implements PurgeThread {
  private worker: Worker | undefined;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (done: Done) => void; reject: (e: Error) => void }>();

  constructor(private readonly path: string) {}

  private start(): Worker {
    const worker = startThread(this.path);
    worker.on('message', (response: PurgeResponse) => {
      const waiter = this.waiting.get(response.id);
      this.waiting.delete(response.id);
      if (this.waiting.size === 0) worker.unref();
      if (response.ok)
        waiter?.resolve({ deleted: response.deleted, heldMs: response.heldMs, contended: response.contended });
      else waiter?.reject(new Error(`SQLite purge: ${response.message}`));
    });
    const fail = (error: Error) => {
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
      this.worker = undefined;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the SQLite purge thread exited with code ${code}`)));
    worker.unref();
    return worker;
  }

  /** Deletes the tenant's records `seqs` and what derives from them; how many, and how long it held the lock. */
  delete(tenantId: number, seqs: number[]): Promise<Done> {
    return this.send({ id: ++this.next, type: 'delete', tenantId, seqs });
  }

  /** One step of reclaiming the search index's deleted entries; whether any are left to reclaim. */
  async reclaim(pages: number): Promise<{ more: boolean; heldMs: number; contended: boolean }> {
    const { deleted, heldMs, contended } = await this.send({ id: ++this.next, type: 'reclaim', pages });
    return { more: deleted > 0, heldMs, contended };
  }

  private send(request: PurgeRequest): Promise<Done> {
    const worker = (this.worker ??= this.start());
    return new Promise((resolve, reject) => {
      this.waiting.set(request.id, { resolve, reject });
      // An idle thread does not keep the process alive, one with a request to answer does (a
      // one-off `retention purge` would otherwise exit while it waits).
      worker.ref();
      worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
