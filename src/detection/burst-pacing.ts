// Detection follows the record log and never waits while it keeps up: under sustained load it
// is a few seconds' records behind at most, and runs flat out, so that time to detect stays
// within its target. A burst is different: ingest then outruns every core, and detection taking
// one of the two would halve what the collector answers. So while records keep arriving and
// detection is more than BURST_LAG behind (ingest has outrun it), it spends only a share of its
// time on chunks, and catches up as soon as the burst eases. Falling behind is bounded: past
// MAX_DEFERRED_LAG unprocessed records it runs flat out again, so under overload detection keeps
// pace as it always did. A scheduler priority (nice) would do the same without the bounds, and
// would also yield to every other process on the machine: on a busy host detection starved.

/** Writes within this long of each other are a burst. */
export const ACTIVE_GAP_MS = 1_000;
/** Detection's share of its own time while a burst lasts. */
export const BURST_SHARE = 0.25;
/**
 * Past this many records behind, detection no longer waits for bursts to end: ≈ 20 s of a 2-core
 * machine's full ingest rate. A lower bound that a burst crosses part-way sends detection flat
 * out on one of the two cores for the rest of the burst, and the collector then answers fewer
 * requests, more slowly; flat out, detection falls over a million records behind in such a burst
 * all the same (docs/performance.md, bench:ingest).
 */
export const MAX_DEFERRED_LAG = 3_000_000;
/**
 * Behind by fewer records than this, detection runs flat out even while records arrive: about
 * five seconds of a 2-core machine's sustained rate, which a burst passes in a second or two.
 */
export const BURST_LAG = 100_000;

export interface ChunkPace {
  /** How long the chunk took (ms). */
  tookMs: number;
  /** Time since the last write the thread heard of (ms). */
  sinceWriteMs: number;
  /** Records in the log that detection has not processed yet. */
  lag: number;
}

/** How long to rest after a chunk before the next (ms): 0 outside a burst or past the bounds. */
export function restAfterChunk(pace: ChunkPace): number {
  if (pace.sinceWriteMs >= ACTIVE_GAP_MS || pace.lag < BURST_LAG || pace.lag >= MAX_DEFERRED_LAG) return 0;
  return (pace.tookMs * (1 - BURST_SHARE)) / BURST_SHARE;
}
