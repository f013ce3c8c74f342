// Group commit: while one transaction is being committed, new batches queue up; when it ends,
// everything queued goes into the next transaction. One fsync thus acknowledges many requests,
// with no added delay when the system is idle. Memory is bounded: past `maxPendingBytes` the
// queue refuses new work (the collector answers 503 with Retry-After).
import { overloaded } from '../core/errors.js';
import type { Appended, RecordBatch, RecordLogWriter } from './record-log.js';

const STORED: Appended = Object.freeze({ duplicate: false });

export interface GroupCommitOptions {
  maxPendingBytes: number;
  /** Largest number of records committed in one transaction. */
  maxGroupRecords?: number;
  /**
   * Largest number of bytes committed in one transaction (a single larger batch still goes
   * alone). A commit's time grows with its size, and every request that arrives meanwhile
   * waits for it: bounding the group bounds that wait, and so the latency of a 201.
   */
  maxGroupBytes?: number;
  onCommit?: (info: { batches: number; records: number; seconds: number }) => void;
}

interface Pending {
  batch: RecordBatch;
  bytes: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class GroupCommitQueue {
  private queue: Pending[] = [];
  private queuedBytes = 0;
  private inFlightBytes = 0;
  private flushing = false;
  private idleWaiters: (() => void)[] = [];
  private readonly maxGroupRecords: number;
  private readonly maxGroupBytes: number;
  /** Set by stopTaking: why batches are refused from then on. */
  private refusal: (() => Error) | undefined;

  constructor(
    private readonly writer: RecordLogWriter,
    private readonly options: GroupCommitOptions,
  ) {
    this.maxGroupRecords = options.maxGroupRecords ?? 50_000;
    this.maxGroupBytes = options.maxGroupBytes ?? 8 * 1024 * 1024;
  }

  /** Bytes accepted but not yet committed. */
  get pendingBytes(): number {
    return this.queuedBytes + this.inFlightBytes;
  }

  get overLimit(): boolean {
    return this.pendingBytes >= this.options.maxPendingBytes;
  }

  /**
   * Resolves when the batch is durable. Throws `overloaded` at once when the queue is full. Never
   * a duplicate: the embedded log does not read Idempotency-Key (it answers only after its commit).
   */
  append(batch: RecordBatch, bytes: number): Promise<Appended> {
    if (this.refusal) return Promise.reject(this.refusal());
    // An empty queue always takes one batch, so a body at the size limit can never be refused
    // for good; otherwise the queue's memory stays under its limit.
    if (this.pendingBytes > 0 && this.pendingBytes + bytes > this.options.maxPendingBytes) {
      return Promise.reject(overloaded('the collector is writing as fast as it can and its queue is full'));
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ batch, bytes, resolve, reject });
      this.queuedBytes += bytes;
      this.pump();
    }).then(() => STORED);
  }

  /**
   * Shutdown, once no request can be answered any more (their connections are closed): the
   * batches still waiting for a commit are refused, not written, and so is anything appended
   * later. Nobody was told they are stored, and their senders resend them. The group being
   * committed finishes; drain() then waits for that one commit only, not for a queue of up to
   * maxPendingBytes at whatever rate the database manages.
   */
  stopTaking(refusal: () => Error): void {
    this.refusal = refusal;
    const refused = this.queue.splice(0);
    this.queuedBytes = 0;
    for (const pending of refused) pending.reject(refusal());
    if (!this.flushing) this.pump();
  }

  /** Resolves once everything accepted so far is committed (or failed). */
  drain(): Promise<void> {
    if (!this.flushing && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    if (this.flushing) return;
    if (this.queue.length === 0) {
      for (const wake of this.idleWaiters.splice(0)) wake();
      return;
    }
    const group = this.takeGroup();
    this.flushing = true;
    const started = process.hrtime.bigint();
    // commit() settles every batch itself and never rejects; what follows reports and moves on.
    void this.commit(group)
      .then(() => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const records = group.reduce((sum, pending) => sum + pending.batch.records.length, 0);
        this.options.onCommit?.({ batches: group.length, records, seconds });
      })
      .finally(() => {
        this.flushing = false;
        this.pump();
      });
  }

  private takeGroup(): Pending[] {
    let records = 0;
    let bytes = 0;
    let count = 0;
    for (const pending of this.queue) {
      if (
        count > 0 &&
        (records + pending.batch.records.length > this.maxGroupRecords || bytes + pending.bytes > this.maxGroupBytes)
      )
        break;
      records += pending.batch.records.length;
      bytes += pending.bytes;
      count++;
    }
    const group = this.queue.splice(0, count);
    this.queuedBytes -= bytes;
    this.inFlightBytes = bytes;
    return group;
  }

  /**
   * Commits a group; if the group as a whole fails, each batch is retried alone so that one bad
   * batch fails only its own request, not everyone who shared its transaction.
   */
  private async commit(group: Pending[]): Promise<void> {
    try {
      await this.writer.append(group.map((pending) => pending.batch));
      for (const pending of group) this.settle(pending);
      return;
    } catch (error) {
      // A group of one has nothing to retry apart: it fails with the error.
      if (group.length === 1) {
        for (const pending of group) this.settle(pending, error);
        return;
      }
    }
    for (const pending of group) {
      try {
        await this.writer.append([pending.batch]);
        this.settle(pending);
      } catch (error) {
        this.settle(pending, error);
      }
    }
  }

  /** Releases the batch's memory before answering, so the next request sees the true load. */
  private settle(pending: Pending, error?: unknown): void {
    this.inFlightBytes -= pending.bytes;
    if (error === undefined) pending.resolve();
    else pending.reject(error);
  }
}
