// `sightline rules test <path>…`: compiles rule files or directories the way the server would
// and reports each rule as loaded or rejected (with the file, the construct and the reason),
// then the totals. Exits 1 when any rule was rejected, so a rule repository's CI can use it.
import type { Command } from 'commander';
import { loadRuleDirectories } from '../detection/sigma/index.js';
import { loadPipeline } from '../telemetry/normalise/index.js';

export function registerRules(program: Command): void {
  const rules = program.command('rules').description('Work with Sigma detection rules');

  rules
    .command('test <paths...>')
    .description(
      'Compile Sigma rules and report, per rule, loaded or rejected with the reason; exit 1 if any is rejected',
    )
    .option(
      '--detection-pipeline <file>',
      'processing pipeline YAML whose placeholders `expand` uses (default: the bundled one)',
    )
    .option('--json', 'one JSON object per rule, then one with the totals')
    .option('--quiet', 'print rejected rules and the totals only')
    .action((paths: string[], options: { detectionPipeline?: string; json?: boolean; quiet?: boolean }) => {
      const pipeline = loadPipeline(options.detectionPipeline);
      const compilation = loadRuleDirectories(paths, { placeholders: pipeline.placeholders });
      const out = (line: string) => process.stdout.write(`${line}\n`);
      const loaded = [
        ...compilation.rules.map((rule) => ({ type: 'detection', id: rule.id, title: rule.title, file: rule.file })),
        ...compilation.correlations.map((rule) => ({
          type: 'correlation',
          id: rule.id,
          title: rule.title,
          file: rule.file,
        })),
      ];
      if (!options.quiet) {
        for (const rule of loaded) {
          out(
            options.json
              ? JSON.stringify({ status: 'loaded', ...rule })
              : `loaded    ${rule.file}  ${rule.id}  ${rule.title}${rule.type === 'correlation' ? ' (correlation)' : ''}`,
          );
        }
      }
      for (const entry of compilation.rejected) {
        out(options.json ? JSON.stringify({ status: 'rejected', ...entry }) : `rejected  ${entry.message}`);
      }
      const totals = {
        loaded: loaded.length,
        detection: compilation.rules.length,
        correlation: compilation.correlations.length,
        filters: compilation.filters,
        rejected: compilation.rejected.length,
      };
      out(
        options.json
          ? JSON.stringify({ totals })
          : `total: ${totals.loaded} loaded (${totals.detection} detection, ${totals.correlation} correlation, ${totals.filters} filters applied), ${totals.rejected} rejected`,
      );
      if (totals.rejected > 0) process.exitCode = 1;
    });
}
