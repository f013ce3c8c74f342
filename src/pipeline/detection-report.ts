// How a deployment tells of the detection it committed: the same counters and the same warning
// whether the chunk came through the detection thread (which sends it to the main thread, where
// the metrics are) or a stream partition's apply on a scale-out node.
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../observability/metrics.js';

/** What one committed batch did, with its failures' errors as text (it may cross a thread). */
export interface DetectionProgress {
  records: number;
  observations: number;
  failures: { seq: number; message: string }[];
  /** Seconds from the collector accepting the batch's oldest record to its commit. */
  delaySeconds: number;
  /** Per observation made: seconds from its newest triggering record's acceptance to the commit. */
  timeToDetectSeconds: number[];
}

/** The delays of a batch just committed, measured now. */
export function delaysOf(
  outcome: { oldestReceivedAt: number; observationsReceivedAt: number[] },
  committedAt = Date.now(),
): Pick<DetectionProgress, 'delaySeconds' | 'timeToDetectSeconds'> {
  const seconds = (receivedAt: number) => Math.max(0, committedAt - receivedAt) / 1000;
  return {
    delaySeconds: Number.isFinite(outcome.oldestReceivedAt) ? seconds(outcome.oldestReceivedAt) : 0,
    timeToDetectSeconds: outcome.observationsReceivedAt.map(seconds),
  };
}

/** The failures of a batch as text: an Error's message, anything else as a string. */
export function failureMessages(failures: readonly { seq: number; error: unknown }[]): DetectionProgress['failures'] {
  return failures.map((failure) => ({
    seq: failure.seq,
    message: failure.error instanceof Error ? failure.error.message : String(failure.error),
  }));
}

/** Counts a committed batch and warns of the records it could not evaluate (with the stream partition, on a scale-out node). */
export function reportDetection(
  metrics: Metrics,
  log: FastifyBaseLogger | undefined,
  progress: DetectionProgress,
  where: { partition?: number } = {},
): void {
  metrics.detectionRecords.inc(progress.records);
  metrics.observationsCreated.inc(progress.observations);
  if (progress.records > 0) metrics.detectionDelay.observe(progress.delaySeconds);
  for (const seconds of progress.timeToDetectSeconds) metrics.timeToDetect.observe(seconds);
  if (progress.failures.length === 0) return;
  metrics.detectionFailures.inc(progress.failures.length);
  // The record ids say which to look at; their content stays out of the log.
  log?.warn(
    { ...where, failures: progress.failures.slice(0, 10), count: progress.failures.length },
    'detection could not evaluate some records',
  );
}
