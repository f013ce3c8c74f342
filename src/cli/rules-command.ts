// `sightline rules test <path>…`: compiles rule files or directories the way the server would
// and reports each rule as loaded, unreachable (no parsed input produces its logsource) or
// rejected (with the file, the construct and the reason), then the totals. Exits 1 when any
// rule was rejected, so a rule repository's CI can use it.
import type { Command } from 'commander';
import { assessReach, describeReach } from '../detection/rule-reach.js';
import { loadRuleDirectories } from '../detection/sigma/index.js';
import { loadPipeline } from '../telemetry/normalise/index.js';

export function registerRules(program: Command): void {
  const rules = program.command('rules').description('Work with Sigma detection rules');

  rules
    .command('test <paths...>')
    .description(
      'Compile Sigma rules and report, per rule, loaded, unreachable (no input Sightline parses produces its logsource) or rejected with the reason; exit 1 if any is rejected',
    )
    .option(
      '--detection-pipeline <file>',
      'processing pipeline YAML whose placeholders `expand` uses (default: the bundled one)',
    )
    .option('--json', 'one JSON object per rule, then one with the totals and the counts by logsource')
    .option('--quiet', 'print rejected rules and the totals only')
    .action((paths: string[], options: { detectionPipeline?: string; json?: boolean; quiet?: boolean }) => {
      const pipeline = loadPipeline(options.detectionPipeline);
      const compilation = loadRuleDirectories(paths, { placeholders: pipeline.placeholders });
      const reach = assessReach(compilation, pipeline);
      const out = (line: string) => process.stdout.write(`${line}\n`);
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
      if (totals.rejected > 0) process.exitCode = 1;
    });
}
