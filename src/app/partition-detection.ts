// What a scale-out worker derives from a batch inside its apply transaction: the search index
// entries and detection — normalised rows, devices, observations, cases and the correlation
// state — so every worker detects for the partitions it owns, and a batch's records, their
// detection and the partition's position commit together or not at all.
//
// Correlation state is per tenant (its keys start with the tenant id) and a tenant lives on one
// partition, so each partition keeps its own engine: restored from correlation_state when the
// partition is first applied here (or after a rollback), saved with every batch. A partition
// that moves between workers mid-window therefore continues from exactly the state committed
// with its last applied message.
import type { Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Tables } from '../storage/schema.js';
import type { Metrics } from '../observability/metrics.js';
import type { AppliedBatch, BatchApplier } from '../record-log/partition-apply.js';
import { tenantPartition } from '../record-log/jetstream-codec.js';
import { indexStoredRecords } from '../telemetry/postgres-search-indexer.js';
import { MAX_CLOCK_SKEW_MS, type ProcessorFactory } from '../detection/detection-loop.js';
import type { DetectionProcessor } from '../detection/detection-processor.js';
import type { CorrelationEngine } from '../detection/sigma/correlation.js';
import { loadCorrelationState } from '../detection/detection-store.js';
import { storeDetection, type CaseUpkeep } from './detection-commit.js';

interface PartitionState {
  epoch: number;
  processor: DetectionProcessor;
  correlations: CorrelationEngine;
  /** Per tenant: the newest event time seen, capped at receive time plus MAX_CLOCK_SKEW_MS. */
  watermarks: Map<number, number>;
}

export interface PartitionDetectionOptions {
  /** Absent when detection is off: the batch is only indexed. */
  build: ProcessorFactory | undefined;
  upkeep: CaseUpkeep;
  /** The stream's partition count (to tell which tenants' correlation state a partition owns). */
  partitions: number;
  metrics: Metrics;
  log: () => FastifyBaseLogger | undefined;
}

export class PartitionDetection implements BatchApplier {
  private readonly states = new Map<number, PartitionState>();

  constructor(private readonly options: PartitionDetectionOptions) {}

  async apply(trx: Transaction<Tables>, batch: AppliedBatch): Promise<void> {
    const { records } = batch;
    await indexStoredRecords(
      trx,
      records.map((record) => record.seq),
    );
    if (!this.options.build) return;
    const state = await this.state(trx, batch);
    const now = Date.now();
    const output = state.processor.process(records);
    // As the embedded loop does (detection-loop.ts): windows slide on event time, capped.
    for (const record of records) {
      const time = Math.min(record.eventTime, record.receivedAt + MAX_CLOCK_SKEW_MS);
      if (time > (state.watermarks.get(record.tenantId) ?? 0)) state.watermarks.set(record.tenantId, time);
    }
    state.correlations.expire(state.watermarks);
    const created = await storeDetection(trx, this.options.upkeep, {
      output,
      correlationChanges: state.correlations.takeChanges(),
      now,
    });
    const { metrics } = this.options;
    metrics.detectionRecords.inc(records.length);
    metrics.observationsCreated.inc(created);
    if (output.failures.length > 0) {
      metrics.detectionFailures.inc(output.failures.length);
      this.options.log()?.warn(
        {
          failures: output.failures.slice(0, 10).map((failure) => ({
            seq: failure.seq,
            message: failure.error instanceof Error ? failure.error.message : String(failure.error),
          })),
          count: output.failures.length,
        },
        'detection could not evaluate some records',
      );
    }
  }

  discard(partition: number): void {
    this.states.delete(partition);
  }

  /** The partition's engine, restored from the database when it is new here or its owner epoch changed. */
  private async state(trx: Transaction<Tables>, batch: AppliedBatch): Promise<PartitionState> {
    const known = this.states.get(batch.partition);
    if (known?.epoch === batch.epoch) return known;
    const build = this.options.build;
    if (!build) throw new Error('detection is off');
    const built = build();
    const rows = await loadCorrelationState(trx);
    built.correlations.restore(rows.filter((row) => this.owns(batch.partition, row.key)));
    // Restoring is not a change to persist.
    built.correlations.takeChanges();
    const state = { epoch: batch.epoch, ...built, watermarks: new Map<number, number>() };
    this.states.set(batch.partition, state);
    return state;
  }

  /** Whether a correlation state key (`<tenant id>:…`) belongs to a tenant of this partition. */
  private owns(partition: number, key: string): boolean {
    const tenantId = Number(key.slice(0, key.indexOf(':')));
    return Number.isSafeInteger(tenantId) && tenantPartition(tenantId, this.options.partitions) === partition;
  }
}
