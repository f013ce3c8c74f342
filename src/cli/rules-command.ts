// `sightline rules test <path>…`: compiles rule files or directories the way the server would
// and reports each rule as loaded, unreachable (no parsed input produces its logsource) or
// rejected (with the file, the construct and the reason), then the totals. Exits 1 when any
// rule was rejected, so a rule repository's CI can use it. `sightline rules import <dir|zip>`
// adds a rule package (SigmaHQ's sigma_core.zip, a folder) to the deployment with the same report.
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { assessReach } from '../detection/rule-reach.js';
import { importRulePackage } from '../detection/rule-import.js';
import { loadRuleDirectories } from '../detection/sigma/index.js';
import { loadPipeline } from '../telemetry/normalise/index.js';
import { addSettingOptions, settingValues } from './options.js';
import { printRuleReport } from './rule-report.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

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
      const rejected = printRuleReport(compilation, assessReach(compilation, pipeline), options, out);
      if (rejected > 0) process.exitCode = 1;
    });

  addSettingOptions(
    rules
      .command('import <package>')
      .description(
        "Add a Sigma rule package (a zip such as SigmaHQ's sigma_core.zip, or a folder) to this deployment's rules, under the data directory's rule-packages/; prints the same report as `rules test`. The server loads it at its next start",
      )
      .option('--name <name>', 'the package directory name (default: the file or folder name without .zip)')
      .option('--json', 'one JSON object per rule, then one with the totals and the counts by logsource')
      .option('--quiet', 'print unreachable and rejected rules and the totals only'),
    ['dataDir', 'detectionPipeline'],
  ).action(async (source: string, options: Record<string, unknown>) => {
    const config = loadConfig(settingValues(options, ['dataDir', 'detectionPipeline']));
    const pipeline = loadPipeline(config.detectionPipeline === '' ? undefined : config.detectionPipeline);
    const name = typeof options.name === 'string' ? options.name : undefined;
    const imported = await importRulePackage({ source, dataDir: config.dataDir, pipeline, ...(name ? { name } : {}) });
    const report = { json: options.json === true, quiet: options.quiet === true };
    printRuleReport(imported.compilation, imported.reach, report, out);
    const done = `${imported.replaced ? 'replaced' : 'imported'} ${imported.name}: ${imported.files} rule files into ${imported.directory}; restart the server to load them`;
    if (report.json)
      out(
        JSON.stringify({
          imported: imported.name,
          directory: imported.directory,
          files: imported.files,
          replaced: imported.replaced,
        }),
      );
    else out(done);
  });
}
