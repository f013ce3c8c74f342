// The scale-out parts of one process (docs/scale.md): the JetStream link, the collector's
// publisher when it plays the collector role, and when it plays the worker role the consumers of
// its stream partitions (which apply the record log's consumers, the search index and detection,
// inside each batch's transaction), plus the search index cursor while it holds the maintenance
// lease. Readiness and metrics of these parts are reported here; the embedded single process has
// none of them.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.js';
import type { Database } from '../storage/database.js';
import type { Metrics } from '../observability/metrics.js';
import { JetStreamLink, describeServers, type QueueLog } from '../record-log/jetstream-connection.js';
import { JetStreamRecordQueue } from '../record-log/jetstream-queue.js';
import { StreamPartitionConsumers } from '../storage/postgres/stream-partition-consumers.js';
import type { RecordConsumer } from '../record-log/record-consumer.js';
import { ScaleMetrics } from '../record-log/scale-metrics.js';

/** What a stream-consuming node starts while it holds the maintenance lease, and stops when it loses it. */
export interface LeasedDuties {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ScaleStatus {
  roles: string[];
  queue: 'ok' | 'unavailable';
  worker: 'ok' | 'failing' | 'off';
  partitions_owned: number[];
  maintenance_lease: boolean;
  consumer_lag: Record<string, number>;
  dead_letters: number;
}

export class ScaleNode {
  readonly link: JetStreamLink;
  readonly queue: JetStreamRecordQueue | undefined;
  /** The worker role's consumers of the stream partitions this node owns. */
  readonly streamPartitionConsumers: StreamPartitionConsumers | undefined;
  private readonly metrics: ScaleMetrics;
  private maintenanceLease = false;
  private duties: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: Config,
    private readonly database: Database,
    metrics: Metrics,
    log: () => FastifyBaseLogger | undefined,
    leased: LeasedDuties,
    consumers: readonly RecordConsumer[],
  ) {
    if (database.kind !== 'postgres') throw new Error('the scale-out mode needs PostgreSQL');
    const queueLog: QueueLog = {
      info: (message) => log()?.info(message),
      warn: (message) => log()?.warn(message),
      error: (message) => log()?.error(message),
    };
    this.metrics = new ScaleMetrics(metrics.registry);
    this.link = new JetStreamLink(
      {
        urls: config.queue,
        credentialsFile: config.queueCredentials,
        token: config.queueToken,
        tlsCaFile: config.queueTlsCa,
        stream: config.queueStream,
        partitions: config.queuePartitions,
        replicas: config.queueReplicas,
      },
      queueLog,
    );
    if (config.role.includes('collector')) {
      this.queue = new JetStreamRecordQueue(this.link, config.maxQueueBytes, {
        published: (_records, seconds) => this.metrics.publishSeconds.observe(seconds),
        failed: (reason) => {
          this.metrics.publishFailures.inc();
          log()?.warn(`record-log publish failed; the requests got 503: ${reason}`);
        },
      });
    }
    if (config.role.includes('worker')) {
      this.streamPartitionConsumers = new StreamPartitionConsumers({
        link: this.link,
        pgConfig: database.pgConfig,
        pgSchema: database.pgSchema,
        db: database.db,
        consumers,
        log: queueLog,
        metrics: this.metrics,
        leaseMs: config.queueLease,
        onMaintenanceLease: (held) => {
          this.maintenanceLease = held;
          // Serialised: a lease lost and won again quickly never runs two index loops at once.
          this.duties = this.duties
            .then(() => (held ? leased.start() : leased.stop()))
            .catch((error: unknown) =>
              log()?.error({ err: error }, 'the search index cursor could not be started or stopped'),
            );
          log()?.info(
            held ? 'holding the maintenance lease: moving the search index cursor' : 'maintenance lease released',
          );
        },
      });
    }
    log()?.info(`record log on NATS JetStream ${describeServers(config.queue)}, roles ${config.role.join(',')}`);
  }

  /** An API-only node never touches the record log: it neither connects nor waits for NATS. */
  private get usesQueue(): boolean {
    return this.queue !== undefined || this.streamPartitionConsumers !== undefined;
  }

  /** Connects in the background (retrying for ever) and starts consuming the owned stream partitions. */
  start(): void {
    if (this.usesQueue) this.link.start();
    this.streamPartitionConsumers?.start();
  }

  /** Throws when the stream can never be used with these settings (a stream partition count mismatch). */
  async startupCheck(timeoutMs: number): Promise<void> {
    if (!this.usesQueue) return;
    await Promise.race([this.link.whenReady(), new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
    if (this.link.fatal) throw this.link.fatal;
  }

  /** Readiness of the queue and of the stream consumers (the worker role), with the reasons when not ready. */
  async status(): Promise<{ ready: boolean; reasons: string[]; status: ScaleStatus }> {
    const unavailable = this.usesQueue ? this.link.unavailable : undefined;
    this.metrics.natsConnected.set(unavailable ? 0 : 1);
    const consumers = this.streamPartitionConsumers;
    const workerProblem = consumers?.problem;
    const lag = consumers ? await consumers.lag() : new Map<number, number>();
    const deadLetters = await this.deadLetters();
    for (const [partition, messages] of lag) this.metrics.consumerLag.set({ partition: String(partition) }, messages);
    const reasons = [
      unavailable ? `queue: ${unavailable}` : undefined,
      workerProblem && !unavailable ? `worker: ${workerProblem}` : undefined,
    ].filter((reason): reason is string => reason !== undefined);
    return {
      ready: reasons.length === 0,
      reasons,
      status: {
        roles: this.config.role,
        queue: unavailable ? 'unavailable' : 'ok',
        worker: consumers ? (workerProblem ? 'failing' : 'ok') : 'off',
        partitions_owned: consumers?.partitions ?? [],
        maintenance_lease: this.maintenanceLease,
        consumer_lag: Object.fromEntries([...lag].map(([partition, messages]) => [String(partition), messages])),
        dead_letters: deadLetters,
      },
    };
  }

  /** Messages of this stream set aside as dead letters (0 when PostgreSQL cannot tell now). */
  private async deadLetters(): Promise<number> {
    try {
      const row = await this.database.db
        .selectFrom('log_dead_letters')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('stream', '=', this.config.queueStream)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    } catch {
      // PostgreSQL away: /readyz already says so through its database check.
      return 0;
    }
  }

  async close(): Promise<void> {
    await this.queue?.drain();
    await this.streamPartitionConsumers?.stop();
    await this.duties;
    await this.link.close();
  }
}
