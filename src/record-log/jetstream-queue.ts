// The collector's side of the JetStream record log. A request's records go into one message on
// their tenant's stream partition, many messages in flight at once. Each request has one message id,
// reused when the collector retries a publish whose acknowledgement it lost, so that is stored
// once. A client that sends an Idempotency-Key gets an id derived from its tenant and that key:
// its own retry of the request (the collector died after JetStream stored it) is then stored once
// within the stream's duplicate window. Identical bodies without a key are separate requests:
// repeated log lines are data, and dropping them would hide a burst. A request is answered once JetStream acknowledged its message (with three replicas:
// once a quorum stored it); when that cannot happen within the publish deadline the request
// gets 503 and Retry-After (docs/scale.md, Failure behaviour).
import { createHash, randomBytes } from 'node:crypto';
import { JetStreamApiError } from '@nats-io/jetstream';
import { AppError, overloaded } from '../core/errors.js';
import type { Appended, RecordBatch, RecordQueue, RequestIdentity } from './record-log.js';
import { encodeBatches, streamPartitionSubject, tenantStreamPartition } from './jetstream-codec.js';
import type { JetStreamLink } from './jetstream-connection.js';

/** How long one publish may be retried (same message id) before the request gets 503. */
const PUBLISH_DEADLINE_MS = 10_000;
const ATTEMPT_TIMEOUT_MS = 3_000;
/** Longer keys are refused: a key is an identifier, not a payload. */
const MAX_IDEMPOTENCY_KEY_CHARS = 200;

export interface PublishObserver {
  /** One message acknowledged: its records and how long the publish took. */
  published(records: number, seconds: number): void;
  failed(reason: string): void;
}

export class JetStreamRecordQueue implements RecordQueue {
  private inFlight = 0;
  private inFlightBytes = 0;
  private readonly idle: (() => void)[] = [];
  /** For requests without an identity: unique per process start, so ids of two collectors never collide. */
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

  async append(batch: RecordBatch, bytes: number, identity?: RequestIdentity): Promise<Appended> {
    const msgID = (identity && messageId(batch.tenantId, identity)) ?? `${this.idPrefix}.${(this.nextId += 1)}`;
    const unavailable = this.link.unavailable;
    if (unavailable) throw overloaded(`the record log is unavailable (${unavailable})`);
    if (this.inFlightBytes > 0 && this.inFlightBytes + bytes > this.maxPendingBytes)
      throw overloaded('the collector is publishing as fast as it can and its queue is full');
    const data = encodeBatches([batch]);
    const limit = this.link.maxPayload;
    if (data.byteLength > limit)
      throw new AppError(
        'body_too_large',
        `the request's records take ${data.byteLength} bytes in the record log, over the NATS servers' max_payload of ${limit} bytes; send fewer records per request`,
      );
    this.inFlight += 1;
    this.inFlightBytes += bytes;
    try {
      const partition = tenantStreamPartition(batch.tenantId, this.link.settings.partitions);
      return { duplicate: await this.publish(partition, msgID, data, batch.records.length) };
    } finally {
      this.inFlight -= 1;
      this.inFlightBytes -= bytes;
      if (this.inFlight === 0) for (const wake of this.idle.splice(0)) wake();
    }
  }

  drain(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /**
   * Publishes one request's message, retrying with the same id until the deadline; throws 503
   * when it cannot. True when JetStream had the message id already at this request's first
   * attempt: an earlier request (the client's, by Idempotency-Key) stored it. A later attempt's
   * duplicate may be this request's own earlier attempt whose acknowledgement was lost: false.
   * A duplicate counts as stored only with a stream sequence: an older clustered NATS server could
   * answer a message id it had only proposed so far as a duplicate of sequence 0 (newer ones answer
   * an error instead), and that proposal may still be lost with its leader. Such an answer is
   * retried until the message has a sequence, or the request gets 503.
   */
  private async publish(partition: number, msgID: string, data: Uint8Array, records: number): Promise<boolean> {
    const subject = streamPartitionSubject(this.link.settings.stream, partition);
    const started = performance.now();
    const deadline = Date.now() + PUBLISH_DEADLINE_MS;
    let lastError = 'not attempted';
    let attempts = 0;
    let firstWasDuplicate = false;
    while (Date.now() < deadline) {
      const js = this.link.js;
      if (!js) {
        lastError = this.link.unavailable ?? 'not connected';
        await new Promise((resolve) => setTimeout(resolve, 250));
        continue;
      }
      attempts += 1;
      try {
        const ack = await js.publish(subject, data, {
          msgID,
          timeout: ATTEMPT_TIMEOUT_MS,
          expect: { streamName: this.link.settings.stream },
        });
        if (attempts === 1) firstWasDuplicate = ack.duplicate;
        if (!confirmsStored(ack)) {
          lastError = 'an earlier attempt with this message id is not stored yet (duplicate of sequence 0)';
          await new Promise((resolve) => setTimeout(resolve, 250));
          continue;
        }
        this.observer.published(records, (performance.now() - started) / 1000);
        return firstWasDuplicate;
      } catch (error) {
        lastError = (error as Error).message;
        // The stream answered with a refusal (full, too large): retrying would not help now.
        if (error instanceof JetStreamApiError) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    this.observer.failed(lastError);
    throw overloaded(`the record log did not store the records (${lastError})`);
  }
}

/** Whether a publish acknowledgement says the message is in the stream (see publish). */
export function confirmsStored(ack: { duplicate: boolean; seq: number }): boolean {
  return !ack.duplicate || ack.seq > 0;
}

/**
 * The message id of a request that sent an Idempotency-Key: from the tenant and the key, so the
 * client's retry within the stream's duplicate window (it saw an error after JetStream had stored
 * the request) is stored once. Without a key, none: the request gets a unique id.
 */
export function messageId(tenantId: number, identity: RequestIdentity): string | undefined {
  const key = identity.idempotencyKey;
  if (key === undefined) return undefined;
  if (
    typeof key !== 'string' ||
    key.length === 0 ||
    key.length > MAX_IDEMPOTENCY_KEY_CHARS ||
    !/^[\x21-\x7e]+$/.test(key)
  )
    throw new AppError(
      'malformed_request',
      `the Idempotency-Key header must be one value of 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters`,
    );
  return `r.${createHash('sha256').update(`${tenantId}\0key\0`).update(key).digest('base64url')}`;
}
