// Prometheus metrics of the scale-out record log, registered on the server's registry: the NATS
// connection, publish latency, stream partitions owned, consumer lag per stream partition, records applied,
// consumers restarted after a lost delivery, messages set aside as dead letters.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export class ScaleMetrics {
  readonly natsConnected: Gauge;
  readonly publishSeconds: Histogram;
  readonly publishFailures: Counter;
  readonly streamPartitionsOwned: Gauge;
  readonly consumerLag: Gauge<'partition'>;
  readonly appliedRecords: Counter;
  readonly skippedMessages: Counter;
  readonly consumerRestarts: Counter;
  readonly deadLetters: Counter<'partition'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.natsConnected = new Gauge({
      name: 'sightline_queue_connected',
      help: 'Whether this node is connected to NATS with the record-log stream in place (1) or not (0).',
      registers,
    });
    this.publishSeconds = new Histogram({
      name: 'sightline_queue_publish_seconds',
      help: 'Time from publishing a record-log message to its JetStream acknowledgement (retries included).',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers,
    });
    this.publishFailures = new Counter({
      name: 'sightline_queue_publish_failures_total',
      help: 'Record-log messages JetStream did not store in time (their requests got 503).',
      registers,
    });
    this.streamPartitionsOwned = new Gauge({
      name: 'sightline_queue_partitions_owned',
      help: 'Record-log stream partitions this worker holds the lease of.',
      registers,
    });
    this.consumerLag = new Gauge({
      name: 'sightline_queue_consumer_lag_messages',
      help: 'Messages of a stream partition not yet applied and acknowledged, for the stream partitions this worker owns.',
      labelNames: ['partition'] as const,
      registers,
    });
    this.appliedRecords = new Counter({
      name: 'sightline_queue_applied_records_total',
      help: 'Records this worker applied to PostgreSQL from the record log.',
      registers,
    });
    this.skippedMessages = new Counter({
      name: 'sightline_queue_redeliveries_skipped_total',
      help: 'Redelivered messages at or below their stream partition\u2019s applied sequence, skipped.',
      registers,
    });
    this.consumerRestarts = new Counter({
      name: 'sightline_queue_consumer_restarts_total',
      help: 'Stream partition consumers started again because a delivery never reached this worker (order kept; nothing skipped).',
      registers,
    });
    this.deadLetters = new Counter({
      name: 'sightline_queue_dead_letters_total',
      help: 'Record-log messages a worker could not apply and set aside in log_dead_letters (see the log for why).',
      labelNames: ['partition'] as const,
      registers,
    });
  }
}
