// The per-rule report `rules test` and `rules import` print: each rule loaded, unreachable (no
// input Sightline parses produces its logsource) or rejected with the reason, then the totals —
// as text, or one JSON object per rule and one with the totals and the counts by logsource.
import { describeReach, type RuleReach } from '../detection/rule-reach.js';
import type { RuleCompilation } from '../detection/sigma/index.js';

export interface ReportOptions {
  json?: boolean;
  quiet?: boolean;
}

/** Prints the report; answers how many rules were rejected. */
export function printRuleReport(
  compilation: RuleCompilation,
  reach: RuleReach,
  options: ReportOptions,
  out: (line: string) => void,
): number {
  const loaded = [
    ...compilation.rules.map((rule) => ({
      type: 'detection',
      id: rule.id,
      title: rule.title,
      file: rule.file,
      logsource: rule.logsource,
    })),
    ...compilation.correlations.map((rule) => ({
      type: 'correlation',
      id: rule.id,
      title: rule.title,
      file: rule.file,
      logsource: {},
    })),
  ];
  for (const rule of loaded) {
    const status = reach.unreachable.has(rule.id) ? 'unreachable' : 'loaded';
    if (options.quiet && status === 'loaded') continue;
    const where = Object.entries(rule.logsource)
      .map(([key, value]) => `${key}:${String(value)}`)
      .join(' ');
    out(
      options.json
        ? JSON.stringify({ status, ...rule })
        : `${status === 'loaded' ? 'loaded    ' : 'unreachable '}${rule.file}  ${rule.id}  ${rule.title}${rule.type === 'correlation' ? ' (correlation)' : ''}${status === 'unreachable' ? `  [${where}]` : ''}`,
    );
  }
  for (const entry of compilation.rejected) {
    out(options.json ? JSON.stringify({ status: 'rejected', ...entry }) : `rejected  ${entry.message}`);
  }
  const { by_logsource, ...counts } = reach.summary;
  const totals = {
    ...counts,
    detection: compilation.rules.length,
    correlation: compilation.correlations.length,
    filters: compilation.filters,
  };
  out(
    options.json
      ? JSON.stringify({ ...totals, by_logsource })
      : describeReach(
          reach.summary,
          `; ${totals.detection} detection, ${totals.correlation} correlation, ${totals.filters} filters applied`,
        ),
  );
  return totals.rejected;
}
