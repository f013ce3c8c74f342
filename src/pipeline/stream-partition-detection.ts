// What a scale-out node consuming the stream derives from a batch inside its apply transaction:
// the search index entries, and detection — normalised rows, devices, observations, cases,
// logsource sightings, unrecognised counts and the correlation state — so every consuming node
// detects for the stream partitions it owns, and a batch's records, their detection and the
// stream partition's position commit together or not at all.
//
// A tenant lives on one stream partition, so each keeps its own correlation engine: restored
// from correlation_state (its tenants' windows and watermarks) when the stream partition is first
// applied under a new owner epoch or after a rollback, and saved with every batch. A stream
// partition that moves between nodes mid-window continues from exactly the state committed with
// its last applied message, and the engine slides windows record by record, so batch sizes do
// not matter.
import type { Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Tables } from '../storage/schema.js';
import type { Metrics } from '../observability/metrics.js';
import type { AppliedBatch, BatchApplier } from '../storage/postgres/stream-partition-apply.js';
import { tenantPartition } from '../record-log/jetstream-codec.js';
import { indexStoredRecords } from '../storage/postgres/search-indexer.js';
import type { ProcessorFactory } from '../detection/detection-loop.js';
import type { DetectionProcessor } from '../detection/detection-processor.js';
import type { CorrelationEngine } from '../detection/sigma/correlation.js';
import { loadCorrelationState } from '../detection/detection-store.js';
import { storeDetection, type CaseUpkeep } from './detection-commit.js';

interface StreamPartitionState {
  epoch: number;
  processor: DetectionProcessor;
  correlations: CorrelationEngine;
}

export interface StreamPartitionDetectionOptions {
  /** Absent when detection is off: the batch is only indexed. */
  build: ProcessorFactory | undefined;
  upkeep: CaseUpkeep;
  /** The stream's partition count (to tell which tenants a partition holds). */
  partitions: number;
  metrics: Metrics;
  log: () => FastifyBaseLogger | undefined;
}

export class StreamPartitionDetection implements BatchApplier {
  private readonly states = new Map<number, StreamPartitionState>();

  constructor(private readonly options: StreamPartitionDetectionOptions) {}

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
    state.correlations.expire();
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
          partition: batch.partition,
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

  /** The transaction rolled back, or the partition is no longer ours: its memory may be ahead. */
  discard(partition: number): void {
    this.states.delete(partition);
  }

  /** The partition's engine; restored from the database when it is new here or its owner epoch changed. */
  private async state(trx: Transaction<Tables>, batch: AppliedBatch): Promise<StreamPartitionState> {
    const known = this.states.get(batch.partition);
    if (known?.epoch === batch.epoch) return known;
    const build = this.options.build;
    if (!build) throw new Error('detection is off');
    const built = build();
    // Read after the partition row was locked (storage/postgres/stream-partition-apply.ts), so the former owner's last
    // commit is visible and nothing of it can still be in flight.
    const tenants = await trx.selectFrom('tenants').select('id').execute();
    const mine = tenants
      .map((tenant) => tenant.id)
      .filter((tenantId) => tenantPartition(tenantId, this.options.partitions) === batch.partition);
    built.correlations.restore(await loadCorrelationState(trx, mine));
    // Restoring is not a change to persist.
    built.correlations.takeChanges();
    const state = { epoch: batch.epoch, ...built };
    this.states.set(batch.partition, state);
    return state;
  }
}
