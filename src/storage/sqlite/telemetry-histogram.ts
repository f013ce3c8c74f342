// SQLite's histogram counting. Its reads run on the event loop, so it counts one bucket per
// query and yields in between: a wide range never stalls other requests (the collector's 201s
// among them) for longer than a bucket. The time index gives each bucket's count and sequence
// span, and a text match looks up only that span of the full-text index.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { HistogramCounter } from '../../telemetry/telemetry-ports.js';
import { countMatching, hasText, receivedSpan } from '../../telemetry/telemetry-store.js';
import { sqliteRecordDialect } from './telemetry-dialect.js';

export const sqliteHistogram: HistogramCounter = {
  async count(db, tenantId, match, grid) {
    const { since, until } = match;
    const counts: number[] = [];
    const narrowed = match.query !== undefined || (match.fields?.length ?? 0) > 0;
    const text = hasText(match);
    for (let i = 0; i < grid.count; i++) {
      const from = Math.max(since, grid.origin + i * grid.width);
      const to = Math.min(until, grid.origin + (i + 1) * grid.width);
      const bucket = { ...match, since: from, until: to };
      if (narrowed && !text) {
        // Field conditions only: one pass over the bucket's records; the span would not narrow it.
        counts.push(await countMatching(db, sqliteRecordDialect, tenantId, bucket));
      } else {
        const span = await receivedSpan(db, tenantId, from, to);
        if (span.count === 0 || !narrowed) counts.push(span.count);
        else {
          const scope = { kind: 'window', afterSeq: span.firstSeq - 1, upToSeq: span.lastSeq } as const;
          counts.push(await countMatching(db, sqliteRecordDialect, tenantId, bucket, scope));
        }
      }
      await yieldToEventLoop();
    }
    return counts;
  },
};
