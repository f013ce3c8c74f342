// Detection as a consumer of the record log, the same in every deployment: the detection thread
// drives it along the embedded log (record-log/log-follower.ts), a scale-out node applies it to
// each batch of the stream partitions it owns. A batch is normalised, run through the rules and
// the correlations, and stored (detection-commit.ts) in the caller's transaction, beside the
// position it moves.
//
// Correlation windows live in memory between batches, one engine per scope: restored from
// correlation_state (every tenant's for the whole log; a stream partition's own tenants, since a
// tenant lives on one stream partition) when the scope is first applied, under a new owner
// epoch, or after a rollback; and saved with every batch. The engine slides windows on event
// time record by record, so however the log is chunked, or a stream partition moved between
// nodes mid-window, it correlates exactly as one uninterrupted run would.
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../storage/schema.js';
import {
  scopeKey,
  type ConsumedBatch,
  type ConsumerScope,
  type RecordConsumer,
} from '../record-log/record-consumer.js';
import { tenantStreamPartition } from '../record-log/jetstream-codec.js';
import type { ProcessorFactory } from '../detection/detection-cursor.js';
import type { DetectionProcessor } from '../detection/detection-processor.js';
import type { CorrelationEngine } from '../detection/sigma/correlation.js';
import { loadCorrelationState } from '../detection/detection-store.js';
import { storeDetection, type CaseUpkeep, type DetectionCommit } from './detection-commit.js';

/** What one committed batch's detection did, told once its transaction committed. */
export interface DetectionOutcome {
  scope: ConsumerScope;
  records: number;
  observations: number;
  failures: { seq: number; error: unknown }[];
  /** When the collector accepted the batch's oldest record (epoch ms). */
  oldestReceivedAt: number;
  /** Per observation the batch made: when its newest triggering record of the batch was accepted. */
  observationsReceivedAt: number[];
}

export interface DetectionConsumerOptions {
  build: ProcessorFactory;
  upkeep: CaseUpkeep;
  /** Called after each committed batch (metrics, logs, the detection thread's progress message). */
  report(outcome: DetectionOutcome): void;
}

interface ScopeState {
  /** The owner epoch restored under (a stream partition); undefined for the whole log. */
  epoch: number | undefined;
  processor: DetectionProcessor;
  correlations: CorrelationEngine;
  /** The last apply's outcome, until its transaction commits or rolls back. */
  pending: DetectionOutcome | undefined;
  /** What `prepare` matched, for the `apply` of the same batch. */
  prepared?: Prepared;
}

interface Prepared extends Omit<DetectionCommit, 'now'> {
  records: ConsumedBatch['records'];
}

export class DetectionConsumer implements RecordConsumer {
  private readonly states = new Map<string, ScopeState>();

  constructor(private readonly options: DetectionConsumerOptions) {}

  /** Matches the batch outside the transaction; `apply` then only writes what it found. */
  async prepare(db: Kysely<Tables>, batch: ConsumedBatch): Promise<void> {
    const state = await this.state(db, batch.scope);
    state.prepared = { records: batch.records, ...this.match(state, batch) };
  }

  async apply(trx: Transaction<Tables>, batch: ConsumedBatch): Promise<void> {
    const state = await this.state(trx, batch.scope);
    const prepared = state.prepared?.records === batch.records ? state.prepared : undefined;
    state.prepared = undefined;
    const { output, correlationChanges } = prepared ?? this.match(state, batch);
    const observations = await storeDetection(trx, this.options.upkeep, {
      output,
      correlationChanges,
      now: Date.now(),
    });
    state.pending = {
      scope: batch.scope,
      records: batch.records.length,
      observations,
      failures: output.failures,
      ...receiveTimes(batch.records, output.observations),
    };
  }

  private match(state: ScopeState, batch: ConsumedBatch): Omit<Prepared, 'records'> {
    const output = state.processor.process(batch.records);
    // Windows slide on event time (the engine's per-tenant watermarks, saved with them), so a
    // replay of old records correlates exactly as it did live, however it is chunked.
    state.correlations.expire();
    return { output, correlationChanges: state.correlations.takeChanges() };
  }

  committed(scope: ConsumerScope): void {
    const state = this.states.get(scopeKey(scope));
    const outcome = state?.pending;
    if (!state || !outcome) return;
    state.pending = undefined;
    this.options.report(outcome);
  }

  discard(scope: ConsumerScope): void {
    this.states.delete(scopeKey(scope));
  }

  /** The scope's engine; restored from the database when it is new here or its owner epoch changed. */
  private async state(trx: Kysely<Tables>, scope: ConsumerScope): Promise<ScopeState> {
    const key = scopeKey(scope);
    const epoch = scope.kind === 'log' ? undefined : scope.epoch;
    const known = this.states.get(key);
    if (known && known.epoch === epoch) return known;
    const built = this.options.build();
    // Read inside the transaction that moves the position: for a stream partition that is after
    // its row was locked (storage/postgres/stream-partition-apply.ts), so the former owner's last
    // commit is visible and nothing of it can still be in flight.
    built.correlations.restore(await loadCorrelationState(trx, await tenantsOf(trx, scope)));
    // Restoring is not a change to persist.
    built.correlations.takeChanges();
    const state: ScopeState = { epoch, ...built, pending: undefined };
    this.states.set(key, state);
    return state;
  }
}

/** What time to detect is measured from: the receive times of the batch and of each observation's records. */
function receiveTimes(
  records: ConsumedBatch['records'],
  drafts: DetectionCommit['output']['observations'],
): Pick<DetectionOutcome, 'oldestReceivedAt' | 'observationsReceivedAt'> {
  let oldestReceivedAt = Number.POSITIVE_INFINITY;
  for (const record of records) oldestReceivedAt = Math.min(oldestReceivedAt, record.receivedAt);
  if (drafts.length === 0) return { oldestReceivedAt, observationsReceivedAt: [] };
  const receivedAt = new Map(records.map((record) => [record.seq, record.receivedAt]));
  const observationsReceivedAt = drafts.map((draft) =>
    Math.max(...draft.recordSeqs.map((seq) => receivedAt.get(seq) ?? Number.NEGATIVE_INFINITY)),
  );
  return { oldestReceivedAt, observationsReceivedAt: observationsReceivedAt.filter(Number.isFinite) };
}

/** The tenants whose correlation state a scope holds; undefined: all of them. */
async function tenantsOf(trx: Kysely<Tables>, scope: ConsumerScope): Promise<number[] | undefined> {
  if (scope.kind === 'log') return undefined;
  const tenants = await trx.selectFrom('tenants').select('id').execute();
  return tenants
    .map((tenant) => tenant.id)
    .filter((tenantId) => tenantStreamPartition(tenantId, scope.partitions) === scope.partition);
}
