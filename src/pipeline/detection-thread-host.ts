// Main-thread side of the detection thread: starts the thread, wakes it after each commit to
// the record log (it also polls, for records other processes write), reports its progress to
// metrics and the log, and stops it after the collector has drained.
import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from '../core/worker-thread.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../observability/metrics.js';
import type { DetectionThreadData, FromDetectionThread, ToDetectionThread } from './detection-thread.js';
import type { StorageFault } from '../storage/storage-errors.js';
import { deliveriesQueued } from '../webhooks/outbox-wake.js';
import { reportDetection } from './detection-report.js';

function startThread(data: DetectionThreadData): Worker {
  return startWorkerThread(import.meta.url, 'detection-thread', data);
}

/** A chunk still running this long after stop is cut off (it has not committed: nothing is lost). */
const STOP_GRACE_MS = 3_000;

export class DetectionThreadHost {
  private readonly worker: Worker;
  private alive = true;
  private lastError: string | null = null;
  private lastFault: StorageFault | undefined;
  private readonly started: Promise<void>;
  private stopped: Promise<void> | undefined;

  constructor(
    data: DetectionThreadData,
    private readonly metrics: Metrics,
    private readonly log: () => FastifyBaseLogger | undefined,
    /** Told when the thread has ended, however: what it held of the database is let go. */
    ended: (threadId: number) => void = () => undefined,
  ) {
    this.worker = startThread(data);
    const threadId = this.worker.threadId;
    this.worker.once('exit', () => ended(threadId));
    this.started = new Promise((resolve, reject) => {
      this.worker.on('message', (message: FromDetectionThread) => {
        if (message.type === 'ready') resolve();
        this.onMessage(message);
      });
      this.worker.once('error', (error) => {
        this.alive = false;
        reject(error);
        this.log()?.error({ err: error }, 'detection thread failed');
      });
      this.worker.once('exit', (code) => {
        this.alive = false;
        reject(new Error(`detection thread exited (code ${code}) before it was ready`));
      });
    });
  }

  /** Resolves once the rules are loaded; rejects when the thread cannot start. */
  ready(): Promise<void> {
    return this.started;
  }

  get healthy(): boolean {
    return this.alive && this.lastError === null;
  }

  /** The last failure of the loop, until a chunk succeeds again. */
  /** The storage fault behind the last failure, if it was one. */
  get fault(): StorageFault | undefined {
    return this.lastError === null ? undefined : this.lastFault;
  }

  get error(): string | null {
    return this.alive ? this.lastError : 'the detection thread has stopped';
  }

  poke(): void {
    if (this.alive) this.worker.postMessage({ type: 'poke' } satisfies ToDetectionThread);
  }

  /**
   * Asks the loop to finish its chunk and close its database, then ends the thread. A chunk
   * still running after STOP_GRACE_MS is cut off: it had not committed, so nothing is lost —
   * the next start redoes it.
   */
  async stop(): Promise<void> {
    if (!this.alive) return;
    this.stopped ??= new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.worker.terminate().then(
          () => resolve(),
          () => resolve(),
        );
      };
      const timer = setTimeout(finish, STOP_GRACE_MS);
      this.worker.on('message', (message: FromDetectionThread) => {
        if (message.type === 'stopped') finish();
      });
      this.worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      this.worker.postMessage({ type: 'stop' } satisfies ToDetectionThread);
    });
    await this.stopped;
  }

  private onMessage(message: FromDetectionThread): void {
    const log = this.log();
    switch (message.type) {
      case 'ready':
        log?.info(
          { rules: message.rules, correlations: message.correlations, rejected: message.rejected },
          'detection started',
        );
        break;
      case 'progress':
        this.lastError = null;
        if (message.webhooks) deliveriesQueued();
        reportDetection(this.metrics, log, message);
        break;
      case 'error':
        this.lastError = message.message;
        this.lastFault = message.fault;
        // The thread backs off exponentially, so this is at most one line per back-off.
        log?.error(
          { error: message.message, fault: message.fault, retry_in_ms: message.retryInMs },
          'detection failed; retrying',
        );
        break;
      case 'recovered':
        this.lastError = null;
        this.lastFault = undefined;
        log?.info('detection recovered');
        break;
      case 'stopped':
        break;
    }
  }
}
