// Which loaded rules can ever fire: a detection rule is unreachable when no record Sightline
// parses produces its logsource (telemetry/normalise/produced.ts); a correlation when none of
// the rules it counts is reachable. `rules test`, the server's start-up line and the rules API
// all report it from here, in the same words.
import type { LogSource } from '../telemetry/normalise/event.js';
import { isReachable, producedLogsources } from '../telemetry/normalise/produced.js';
import type { ProcessingPipeline } from '../telemetry/normalise/pipeline.js';
import type { RuleCompilation } from './sigma/index.js';

export interface ReachSummary {
  /** Every rule that compiled, reachable or not. */
  loaded: number;
  reachable: number;
  unreachable: number;
  rejected: number;
  /** `product/category/service` (empty parts for absent keys) → loaded and unreachable rules. */
  by_logsource: Record<string, { loaded: number; unreachable: number }>;
}

export interface RuleReach {
  /** Ids of the loaded rules (detection and correlation) no parsed record can make fire. */
  unreachable: ReadonlySet<string>;
  summary: ReachSummary;
}

export function logsourceKey(logsource: LogSource): string {
  return `${logsource.product ?? ''}/${logsource.category ?? ''}/${logsource.service ?? ''}`;
}

export function assessReach(compilation: RuleCompilation, pipeline: ProcessingPipeline): RuleReach {
  const produced = producedLogsources(pipeline);
  const unreachable = new Set<string>();
  const byLogsource: ReachSummary['by_logsource'] = {};
  const verdicts = new Map<string, boolean>();
  for (const rule of compilation.rules) {
    const key = logsourceKey(rule.logsource);
    let reachable = verdicts.get(key);
    if (reachable === undefined) {
      reachable = isReachable(rule.logsource, produced);
      verdicts.set(key, reachable);
    }
    const entry = (byLogsource[key] ??= { loaded: 0, unreachable: 0 });
    entry.loaded += 1;
    if (!reachable) {
      entry.unreachable += 1;
      unreachable.add(rule.id);
    }
  }
  for (const correlation of compilation.correlations) {
    if (correlation.rules.length > 0 && correlation.rules.every((id) => unreachable.has(id)))
      unreachable.add(correlation.id);
  }
  const loaded = compilation.rules.length + compilation.correlations.length;
  const sorted = Object.fromEntries(Object.entries(byLogsource).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    unreachable,
    summary: {
      loaded,
      reachable: loaded - unreachable.size,
      unreachable: unreachable.size,
      rejected: compilation.rejected.length,
      by_logsource: sorted,
    },
  };
}

/** The one-line summary `serve` logs and `rules test` prints last in text mode. */
export function describeReach(summary: ReachSummary, detail = ''): string {
  return `total: ${summary.loaded} loaded (${summary.reachable} reachable, ${summary.unreachable} unreachable${detail}), ${summary.rejected} rejected`;
}
