// The collector's side of the JetStream record log. A request's records go into one message on
// their tenant's partition (requests arriving together for one partition share a message), the
// message carries a unique id so a publish retried after a lost acknowledgement is stored once,
// and many messages are in flight at once. A request is answered once JetStream acknowledged
// its message (with three replicas: once a quorum stored it); when that cannot happen within
// the publish deadline the request gets 503 and Retry-After, and nothing of it was stored
// unless the last ambiguous attempt landed (README: Running at scale, Failure behaviour).
import { randomBytes } from 'node:crypto';
import { JetStreamApiError } from '@nats-io/jetstream';
import { AppError, overloaded } from '../core/errors.js';
import type { RecordBatch, RecordQueue } from './record-log.js';
import { encodeBatches, partitionSubject, tenantPartition } from './jetstream-codec.js';
import type { JetStreamLink } from './jetstream-connection.js';

/** A message is sent once this many bytes of requests wait for it, else on the next turn. */
const MESSAGE_TARGET_BYTES = 256 * 1024;
/** How long one publish may be retried (same message id) before the requests get 503. */
const PUBLISH_DEADLINE_MS = 10_000;
const ATTEMPT_TIMEOUT_MS = 3_000;

interface Waiting {
  batch: RecordBatch;
  bytes: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface PublishObserver {
  /** One message acknowledged: its records and how long the publish took. */
  published(records: number, seconds: number): void;
  failed(reason: string): void;
}

export class JetStreamRecordQueue implements RecordQueue {
  private readonly open = new Map<number, { waiting: Waiting[]; bytes: number }>();
  private scheduled = false;
  private inFlight = 0;
  private inFlightBytes = 0;
  private readonly idle: (() => void)[] = [];
  /** Unique per process start, so message ids of two collectors (or two starts) never collide. */
  private readonly idPrefix = randomBytes(9).toString('base64url');
  private nextId = 0;

  constructor(
    private readonly link: JetStreamLink,
    private readonly maxPendingBytes: number,
    private readonly observer: PublishObserver,
  ) {}

  get pendingBytes(): number {
    return this.inFlightBytes;
  }

  get overLimit(): boolean {
    return this.inFlightBytes >= this.maxPendingBytes;
  }

  append(batch: RecordBatch, bytes: number): Promise<void> {
    const unavailable = this.link.unavailable;
    if (unavailable) return Promise.reject(overloaded(`the record log is unavailable (${unavailable})`));
    if (this.inFlightBytes > 0 && this.inFlightBytes + bytes > this.maxPendingBytes)
      return Promise.reject(overloaded('the collector is publishing as fast as it can and its queue is full'));
    const partition = tenantPartition(batch.tenantId, this.link.settings.partitions);
    return new Promise((resolve, reject) => {
      const group = this.open.get(partition) ?? { waiting: [], bytes: 0 };
      group.waiting.push({ batch, bytes, resolve, reject });
      group.bytes += bytes;
      this.inFlightBytes += bytes;
      this.open.set(partition, group);
      if (group.bytes >= MESSAGE_TARGET_BYTES) {
        this.open.delete(partition);
        void this.send(partition, group.waiting);
      } else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  drain(): Promise<void> {
    this.flush();
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private flush(): void {
    this.scheduled = false;
    for (const [partition, group] of this.open) void this.send(partition, group.waiting);
    this.open.clear();
  }

  /** Publishes the requests in one message (or, past the server's size limit, in several). */
  private async send(partition: number, waiting: Waiting[]): Promise<void> {
    this.inFlight += 1;
    try {
      for (const part of this.splitToFit(waiting)) await this.publishPart(partition, part);
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const wake of this.idle.splice(0)) wake();
    }
  }

  /** Groups whole requests into messages under the server's max_payload; a request never spans two. */
  private *splitToFit(waiting: Waiting[]): Generator<{ waiting: Waiting[]; data: Uint8Array }> {
    const limit = this.link.maxPayload;
    const whole = encodeBatches(waiting.map((entry) => entry.batch));
    if (whole.byteLength <= limit) {
      yield { waiting, data: whole };
      return;
    }
    for (const entry of waiting) {
      const data = encodeBatches([entry.batch]);
      if (data.byteLength > limit) {
        this.settle(
          [entry],
          new AppError(
            'body_too_large',
            `the request's records take ${data.byteLength} bytes in the record log, over the NATS servers' max_payload of ${limit} bytes; send fewer records per request`,
          ),
        );
        continue;
      }
      yield { waiting: [entry], data };
    }
  }

  private async publishPart(partition: number, part: { waiting: Waiting[]; data: Uint8Array }): Promise<void> {
    const msgID = `${this.idPrefix}.${(this.nextId += 1)}`;
    const subject = partitionSubject(this.link.settings.stream, partition);
    const started = performance.now();
    const deadline = Date.now() + PUBLISH_DEADLINE_MS;
    let lastError = 'not attempted';
    while (Date.now() < deadline) {
      const js = this.link.js;
      if (!js) {
        lastError = this.link.unavailable ?? 'not connected';
        await new Promise((resolve) => setTimeout(resolve, 250));
        continue;
      }
      try {
        await js.publish(subject, part.data, {
          msgID,
          timeout: ATTEMPT_TIMEOUT_MS,
          expect: { streamName: this.link.settings.stream },
        });
        const records = part.waiting.reduce((sum, entry) => sum + entry.batch.records.length, 0);
        this.observer.published(records, (performance.now() - started) / 1000);
        this.settle(part.waiting);
        return;
      } catch (error) {
        lastError = (error as Error).message;
        // The stream answered with a refusal (full, too large): retrying would not help now.
        if (error instanceof JetStreamApiError) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    this.observer.failed(lastError);
    this.settle(part.waiting, overloaded(`the record log did not store the records (${lastError})`));
  }

  private settle(waiting: Waiting[], error?: unknown): void {
    for (const entry of waiting) {
      this.inFlightBytes -= entry.bytes;
      if (error) entry.reject(error);
      else entry.resolve();
    }
  }
}
