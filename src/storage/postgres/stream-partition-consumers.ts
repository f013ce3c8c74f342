// The worker side of the JetStream record log (`--role worker`): the consumers of the stream
// partitions this node owns. Workers share the stream partitions: each holds a fair share
// (stream partitions ÷ live workers, rounded up), a stream partition's lease being a PostgreSQL
// session advisory lock, so a worker that dies (its connection closes) frees its stream
// partitions at once and the others take them on their next round. A worker that falls silent
// without dying (paused, hung) loses its leases as well once it has sent PostgreSQL nothing for
// the lease time: the server ends its lease session, and an apply transaction it left open, so
// its stream partitions move on without it. The owner of a stream
// partition consumes it in order through a durable consumer and applies each batch in one
// transaction with the stream partition's applied sequence, then acknowledges it. Redeliveries at
// or below that sequence are skipped, and the transaction checks the lease epoch, so a former
// owner can never write after a new one took over: at-least-once delivery, exactly-once effect.
// Skipping is only sound when nothing is applied out of order, so a delivery that never arrived
// (a gap in the consumer's delivery sequence) restarts the consumer before anything after it is
// applied.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError, type JsMsg } from '@nats-io/jetstream';
import type { Kysely } from 'kysely';
import { createPool } from '../database.js';
import type { Tables } from '../schema.js';
import { streamPartitionSubject } from '../../record-log/jetstream-codec.js';
import { applyMessages, targetScope } from './stream-partition-apply.js';
import { consumersInOrder, type RecordConsumer } from '../../record-log/record-consumer.js';
import { backoffMs, type JetStreamLink, type QueueLog } from '../../record-log/jetstream-connection.js';
import * as store from './stream-partition-store.js';
import type { ScaleMetrics } from '../../record-log/scale-metrics.js';

/** A worker not seen for this long (or for its lease, when shorter) no longer counts when the others compute their share. */
const ALIVE_MS = 8_000;
/** --queue-lease's default: how long a silent worker keeps its stream partitions. */
export const DEFAULT_LEASE_MS = 60_000;
const ROUND_MS = 1_000;
/**
 * Messages per fetch: a message is one request (up to max_payload), so this bounds one apply
 * transaction and the detection it runs. (Fetching by max_bytes instead ends the fetch with a
 * "message size exceeds maxbytes" error whenever the next message does not fit.)
 */
const FETCH_MESSAGES = 16;
const FETCH_EXPIRES_MS = 1_000;

interface Owned {
  epoch: number;
  stopping: boolean;
  /** Set by release(), which then cleans up itself; otherwise the stream partition ended on its own. */
  releasing: boolean;
  done: Promise<void>;
}

export interface StreamPartitionConsumerOptions {
  link: JetStreamLink;
  pgConfig: pg.PoolConfig;
  pgSchema: string;
  /** Where batches are applied (the node's database). */
  db: Kysely<Tables>;
  /** The record log's consumers, applied in order inside each batch's transaction (the search index, detection). */
  consumers: readonly RecordConsumer[];
  log: QueueLog;
  metrics: ScaleMetrics;
  /** How long this worker may send PostgreSQL nothing before its leases lapse (--queue-lease). */
  leaseMs?: number;
  /** Told when this worker gains or loses the maintenance lease (one worker moves the search index cursor). */
  onMaintenanceLease(held: boolean): void;
}

export class StreamPartitionConsumers {
  readonly id = `w-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly pool: pg.Pool;
  private leaseClient: pg.Client | undefined;
  /** Keeps the lease session talking while this worker runs: silent for the lease time, it ends. */
  private leaseKeepalive: NodeJS.Timeout | undefined;
  private readonly leaseMs: number;
  private readonly owned = new Map<number, Owned>();
  private maintenanceHeld = false;
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;
  private failures = 0;
  private warnedNoExpiry = false;
  /** Why this worker cannot do its work now, for /readyz; undefined when it can. */
  problem: string | undefined = 'starting';
  private readonly lockClass: number;
  private readonly consumer: RecordConsumer;

  constructor(private readonly options: StreamPartitionConsumerOptions) {
    this.consumer = consumersInOrder(options.consumers);
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    // Heartbeats and claims only: batches are applied over the node's database pool.
    this.pool = createPool({ ...options.pgConfig, max: 2, keepAlive: true });
    this.lockClass = store.lockClass(options.link.settings.stream, options.pgSchema);
  }

  get stream(): string {
    return this.options.link.settings.stream;
  }

  private get partitionCount(): number {
    return this.options.link.settings.partitions;
  }

  /** The stream partitions this worker owns now. */
  get partitions(): number[] {
    return [...this.owned.keys()].sort((a, b) => a - b);
  }

  start(): void {
    const next = () => {
      if (this.stopped) return;
      this.round = this.runRound().finally(() => {
        if (!this.stopped) this.timer = setTimeout(next, ROUND_MS);
      });
    };
    next();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
    await Promise.all(this.partitions.map((partition) => this.release(partition)));
    await store.leaveWorkers(this.pool, this.stream, this.id).catch(() => undefined);
    this.setMaintenance(false);
    clearInterval(this.leaseKeepalive);
    await this.leaseClient?.end().catch(() => undefined);
    await this.pool.end();
  }

  /** Per owned stream partition, messages not yet applied (pending plus delivered unacknowledged). */
  async lag(): Promise<Map<number, number>> {
    const lags = new Map<number, number>();
    const jsm = this.options.link.jsm;
    if (!jsm) return lags;
    for (const partition of this.partitions) {
      try {
        const info = await jsm.consumers.info(this.stream, consumerName(this.stream, partition));
        lags.set(partition, info.num_pending + info.num_ack_pending);
      } catch (error) {
        this.options.log.warn(
          `consumer state of stream partition ${partition} unavailable: ${(error as Error).message}`,
        );
      }
    }
    return lags;
  }

  /** One round: heartbeat, keep the maintenance lease, and move towards this worker's fair share. */
  private async runRound(): Promise<void> {
    try {
      const client = await this.leases();
      const aliveMs = Math.min(ALIVE_MS, this.leaseMs);
      const live = await store.heartbeat(this.pool, this.stream, this.id, Date.now(), aliveMs);
      if (!this.maintenanceHeld && (await store.tryLock(client, this.lockClass, store.MAINTENANCE_LOCK)))
        this.setMaintenance(true);
      const unavailable = this.options.link.unavailable;
      if (unavailable) {
        this.problem = unavailable;
        return;
      }
      const count = this.partitionCount;
      const share = Math.ceil(count / live);
      // Released together: each waits for its consumer's fetch in flight to end.
      await Promise.all(this.partitions.slice(share).map((partition) => this.release(partition)));
      // Each worker starts looking at its own offset, so joiners do not all try the same locks.
      const offset = parseInt(this.id.slice(-4), 16) % count;
      for (let i = 0; i < count && this.owned.size < share; i += 1) {
        const partition = (offset + i) % count;
        if (this.owned.has(partition)) continue;
        if (await store.tryLock(client, this.lockClass, partition)) this.acquire(partition);
      }
      this.options.metrics.streamPartitionsOwned.set(this.owned.size);
      this.problem = undefined;
      this.failures = 0;
    } catch (error) {
      this.problem = `PostgreSQL: ${(error as Error).message}`;
      if (this.failures === 0 || this.failures % 10 === 0)
        this.options.log.warn(`worker round failed (retrying with backoff): ${(error as Error).message}`);
      this.failures += 1;
      await sleep(backoffMs(this.failures));
    }
  }

  /** The connection holding the leases; when it breaks every lease is gone, so every stream partition stops. */
  private async leases(): Promise<pg.Client> {
    if (this.leaseClient) return this.leaseClient;
    const client = new pg.Client({ ...this.options.pgConfig, keepAlive: true });
    client.on('error', (error) => {
      if (this.leaseClient !== client) return;
      this.leaseClient = undefined;
      clearInterval(this.leaseKeepalive);
      this.options.log.warn(
        `lease connection lost (${error.message}): stopping every stream partition until it is back`,
      );
      this.setMaintenance(false);
      for (const partition of this.partitions) void this.release(partition, false);
    });
    await client.connect();
    try {
      if (!(await store.expireWhenSilent(client, this.leaseMs)) && !this.warnedNoExpiry) {
        this.warnedNoExpiry = true;
        this.options.log.warn(
          'PostgreSQL before 14 has no idle_session_timeout: a paused or hung worker keeps its stream partitions until its connection closes',
        );
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.leaseClient = client;
    clearInterval(this.leaseKeepalive);
    this.leaseKeepalive = setInterval(
      () => void client.query('SELECT 1').catch(() => undefined),
      Math.max(250, this.leaseMs / 4),
    ).unref();
    return client;
  }

  private setMaintenance(held: boolean): void {
    if (held === this.maintenanceHeld) return;
    this.maintenanceHeld = held;
    this.options.onMaintenanceLease(held);
  }

  private acquire(partition: number): void {
    const owned: Owned = { epoch: 0, stopping: false, releasing: false, done: Promise.resolve() };
    this.owned.set(partition, owned);
    owned.done = this.consume(partition, owned)
      .catch((error: unknown) => {
        this.options.log.error(`stream partition ${partition} stopped: ${(error as Error).message}`);
      })
      .finally(() => {
        // Fenced out or failed: give the lease back so that a later round (here or elsewhere) takes it.
        this.consumer.discard(targetScope({ partition, partitions: this.partitionCount, epoch: owned.epoch }));
        if (owned.releasing) return;
        this.owned.delete(partition);
        if (this.leaseClient) store.unlock(this.leaseClient, this.lockClass, partition).catch(() => undefined);
      });
    this.options.log.info(`took stream partition ${partition}`);
  }

  private async release(partition: number, unlock = true): Promise<void> {
    const owned = this.owned.get(partition);
    if (!owned) return;
    owned.stopping = true;
    owned.releasing = true;
    await owned.done;
    this.owned.delete(partition);
    if (unlock && this.leaseClient)
      await store.unlock(this.leaseClient, this.lockClass, partition).catch(() => undefined);
    this.options.metrics.consumerLag.remove({ partition: String(partition) });
    this.options.log.info(`released stream partition ${partition}`);
  }

  private async consume(partition: number, owned: Owned): Promise<void> {
    const claim = await store.claimStreamPartition(this.pool, this.stream, partition, this.id, Date.now());
    owned.epoch = claim.epoch;
    let fresh = true;
    /** Deliveries received from the current consumer, in order: the next one must be this + 1. */
    let delivered = 0;
    for (let attempt = 0; !owned.stopping;) {
      const js = this.options.link.js;
      if (!js) {
        await sleep(250);
        continue;
      }
      let messages: JsMsg[];
      try {
        // A new owner starts a fresh consumer: what the former one fetched and never acknowledged
        // is still in the stream (work-queue retention) and comes again at once.
        if (fresh) {
          await this.resetConsumer(partition);
          delivered = 0;
        }
        fresh = false;
        const consumer = await js.consumers.get(this.stream, consumerName(this.stream, partition));
        messages = [];
        for await (const message of await consumer.fetch({ max_messages: FETCH_MESSAGES, expires: FETCH_EXPIRES_MS }))
          messages.push(message);
        attempt = 0;
      } catch (error) {
        this.options.log.warn(`stream partition ${partition}: fetch failed: ${(error as Error).message}`);
        fresh = true;
        await sleep(backoffMs((attempt += 1)));
        continue;
      }
      const inOrder = inDeliveryOrder(messages, delivered);
      if (inOrder.length < messages.length) {
        // A delivery sent to this worker never reached it (a fetch that ended, a connection or
        // server lost on the way). JetStream sends it again only after the ack wait, behind later
        // messages, where the applied sequence would skip it: apply what came before the gap and
        // start the consumer again, which delivers everything unacknowledged in stream order.
        const gap = messages[inOrder.length]?.info.deliverySequence;
        this.options.log.warn(
          `stream partition ${partition}: delivery ${gap} came where ${delivered + inOrder.length + 1} was due; restarting its consumer to keep the stream partition in order`,
        );
        this.options.metrics.consumerRestarts.inc();
        fresh = true;
      }
      delivered += inOrder.length;
      if (inOrder.length === 0) continue;
      const applied = await this.applyUntilDone(partition, owned, inOrder);
      if (!applied) return;
      for (const message of inOrder) message.ack();
    }
  }

  /** Applies with retries (PostgreSQL may be away); false when the lease was lost meanwhile. */
  private async applyUntilDone(partition: number, owned: Owned, messages: JsMsg[]): Promise<boolean> {
    for (let attempt = 0; !owned.stopping; attempt += 1) {
      try {
        const outcome = await this.apply(partition, owned.epoch, messages);
        if (outcome === 'fenced') {
          this.options.log.warn(`stream partition ${partition}: another worker took it over; letting it go`);
          owned.stopping = true;
          return false;
        }
        return true;
      } catch (error) {
        this.problem = `PostgreSQL: ${(error as Error).message}`;
        this.options.log.warn(`stream partition ${partition}: applying failed (retrying): ${(error as Error).message}`);
        await sleep(backoffMs(attempt));
      }
    }
    return false;
  }

  /** One transaction: the fence, the records, what is derived from them, the new applied sequence. */
  private async apply(partition: number, epoch: number, messages: JsMsg[]): Promise<'applied' | 'fenced'> {
    const { metrics, log } = this.options;
    const result = await applyMessages(
      {
        db: this.options.db,
        stream: this.stream,
        partition,
        partitions: this.partitionCount,
        epoch,
        consumer: this.consumer,
        leaseMs: this.leaseMs,
      },
      messages.map((message) => ({ seq: message.seq, data: message.data })),
    );
    metrics.skippedMessages.inc(result.skipped);
    metrics.appliedRecords.inc(result.records);
    for (const letter of result.deadLetters) {
      metrics.deadLetters.inc({ partition: String(partition) });
      log.error(
        `stream partition ${partition}: message ${letter.seq} (tenant ${letter.tenantId ?? 'unknown'}, ${letter.data.byteLength} bytes) set aside in log_dead_letters: ${letter.reason}`,
      );
    }
    return result.outcome;
  }

  private async resetConsumer(partition: number): Promise<void> {
    const jsm = this.options.link.jsm;
    if (!jsm) throw new Error(this.options.link.unavailable ?? 'not connected');
    const name = consumerName(this.stream, partition);
    try {
      await jsm.consumers.delete(this.stream, name);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.ConsumerNotFound)) throw error;
    }
    await jsm.consumers.add(this.stream, {
      durable_name: name,
      filter_subject: streamPartitionSubject(this.stream, partition),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: 30_000_000_000,
      max_ack_pending: 1_000,
    });
  }
}

/**
 * The leading messages whose delivery sequences follow `delivered` without a gap. The consumer
 * counts every delivery, redeliveries included, so a gap means one was sent and never received.
 */
export function inDeliveryOrder<M extends { info: { deliverySequence: number } }>(
  messages: M[],
  delivered: number,
): M[] {
  const gap = messages.findIndex((message, i) => message.info.deliverySequence !== delivered + i + 1);
  return gap === -1 ? messages : messages.slice(0, gap);
}

export function consumerName(stream: string, partition: number): string {
  return `${stream}-p${partition}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
