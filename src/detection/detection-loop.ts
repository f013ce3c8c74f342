// The detection consumer of the record log: reads the next chunk after its position, runs
// normalisation, the rules and the correlations over it, and hands the output to `commit`, which
// stores it with the new position and the correlation state in one transaction (the composition
// root decides what a commit writes: app/detection-commit.ts). Runs in the detection thread in a
// server; tests drive it directly.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { CursorMoved, type LogPosition, type RecordLogReader } from '../record-log/record-log.js';
import type { DetectionOutput, DetectionProcessor } from './detection-processor.js';
import type { CorrelationEngine } from './sigma/correlation.js';
import { loadCorrelationState } from './detection-store.js';

/** The detection consumer's name in the record log. */
export const DETECTION_CURSOR = 'detection';

/** One processed chunk, ready to store. */
export interface DetectionCommit {
  from: LogPosition;
  to: LogPosition;
  output: DetectionOutput;
  correlationChanges: { key: string; value: string | null }[];
  now: number;
}

/** Stores a chunk's output and moves the position, atomically; returns how many observations were new. */
export type CommitDetection = (input: DetectionCommit) => Promise<number>;

export interface ChunkResult {
  records: number;
  observations: number;
  failures: { seq: number; error: unknown }[];
}

/** Builds a fresh processor around a fresh correlation engine (state is restored by the loop). */
export type ProcessorFactory = () => { processor: DetectionProcessor; correlations: CorrelationEngine };

export const DEFAULT_CHUNK = 1_000;

export class DetectionLoop {
  private processor: DetectionProcessor | undefined;
  private correlations: CorrelationEngine | undefined;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly log: RecordLogReader,
    private readonly build: ProcessorFactory,
    private readonly commit: CommitDetection,
    private readonly chunk = DEFAULT_CHUNK,
  ) {}

  /**
   * Processes the next chunk; returns what it did (records 0: nothing visible to read).
   * Any failure discards the in-memory correlation state, which is rebuilt from the database
   * on the next call, so memory never runs ahead of what was committed.
   */
  async runChunk(now = Date.now()): Promise<ChunkResult> {
    try {
      const { processor, correlations } = await this.ready();
      const from = await this.log.position(DETECTION_CURSOR);
      const { records, to } = await this.log.read(from, this.chunk);
      if (records.length === 0) return { records: 0, observations: 0, failures: [] };
      const output = processor.process(records);
      // Windows slide on event time (the engine's per-tenant watermarks, saved with them), so a
      // replay of old records correlates exactly as it did live, however it is chunked.
      correlations.expire();
      const observations = await this.commit({
        from,
        to,
        output,
        correlationChanges: correlations.takeChanges(),
        now,
      });
      return { records: records.length, observations, failures: output.failures };
    } catch (error) {
      this.processor = undefined;
      this.correlations = undefined;
      if (error instanceof CursorMoved) return { records: 0, observations: 0, failures: [] };
      throw error;
    }
  }

  /** Runs chunks until nothing is left to read; returns the totals. */
  async runUntilIdle(now?: number): Promise<ChunkResult> {
    const total: ChunkResult = { records: 0, observations: 0, failures: [] };
    for (;;) {
      const result = await this.runChunk(now);
      if (result.records === 0) return total;
      total.records += result.records;
      total.observations += result.observations;
      total.failures.push(...result.failures);
    }
  }

  private async ready(): Promise<{ processor: DetectionProcessor; correlations: CorrelationEngine }> {
    if (this.processor && this.correlations) return { processor: this.processor, correlations: this.correlations };
    const built = this.build();
    built.correlations.restore(await loadCorrelationState(this.db));
    // Restoring is not a change to persist.
    built.correlations.takeChanges();
    this.processor = built.processor;
    this.correlations = built.correlations;
    return built;
  }
}
