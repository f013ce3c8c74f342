// `sightline rules import`: a rule package (zip or folder) becomes one directory under the data
// directory's rule-packages/, which the server loads beside the bundled pack and --rule-paths at
// start. The package is extracted and compiled in a hidden staging directory first and only
// then renamed into place, so a refused package leaves the deployment's rules as they were; a
// package imported again under the same name replaces the earlier one.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../core/errors.js';
import type { ProcessingPipeline } from '../telemetry/normalise/pipeline.js';
import { loadRuleDirectories, type RuleCompilation } from './sigma/index.js';
import { assessReach, type RuleReach } from './rule-reach.js';
import { extractPackage, PACKAGE_LIMITS, type PackageLimits } from './rule-package.js';

/** Where imported packages live, inside the data directory. */
export const RULE_PACKAGES_DIR = 'rule-packages';

export function rulePackagesDir(dataDir: string): string {
  return path.join(dataDir, RULE_PACKAGES_DIR);
}

/** The rule paths a server loads: the configured ones, then the imported packages if any. */
export function deploymentRulePaths(configured: readonly string[], dataDir: string): string[] {
  const imported = rulePackagesDir(dataDir);
  return fs.existsSync(imported) ? [...configured, imported] : [...configured];
}

export interface RuleImport {
  source: string;
  dataDir: string;
  pipeline: ProcessingPipeline;
  /** The package's directory name; default: the source's name without .zip. */
  name?: string;
  limits?: PackageLimits;
}

export interface ImportedPackage {
  name: string;
  directory: string;
  files: number;
  replaced: boolean;
  compilation: RuleCompilation;
  reach: RuleReach;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function packageName(source: string, given?: string): string {
  const name = given ?? path.basename(path.resolve(source)).replace(/\.zip$/i, '');
  if (!NAME.test(name))
    throw new AppError(
      'invalid_request',
      `package name "${name.slice(0, 80)}": use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit (--name)`,
    );
  return name;
}

export async function importRulePackage(input: RuleImport): Promise<ImportedPackage> {
  const name = packageName(input.source, input.name);
  const root = rulePackagesDir(input.dataDir);
  fs.mkdirSync(root, { recursive: true });
  // Dot-named: the rule loader never walks into it, should a server start meanwhile.
  const staging = path.join(root, `.staging-${name}-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(staging);
  const directory = path.join(root, name);
  try {
    const files = await extractPackage(input.source, staging, input.limits ?? PACKAGE_LIMITS);
    const compilation = loadRuleDirectories([staging], { placeholders: input.pipeline.placeholders });
    const loaded = compilation.rules.length + compilation.correlations.length;
    if (loaded === 0)
      throw new AppError(
        'rule_package_empty',
        `${input.source}: no Sigma rule loaded (${files} rule files, ${compilation.rejected.length} rejected); nothing was imported`,
      );
    const reach = assessReach(compilation, input.pipeline);
    const replaced = fs.existsSync(directory);
    const previous = path.join(root, `.replaced-${name}-${randomBytes(4).toString('hex')}`);
    if (replaced) fs.renameSync(directory, previous);
    fs.renameSync(staging, directory);
    if (replaced) fs.rmSync(previous, { recursive: true, force: true });
    return { name, directory, files, replaced, compilation: relocate(compilation, staging, directory), reach };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The compilation as if read from the package's final place, for the report's file names. */
function relocate(compilation: RuleCompilation, from: string, to: string): RuleCompilation {
  const move = (file: string) => (file.startsWith(from) ? to + file.slice(from.length) : file);
  return {
    ...compilation,
    rules: compilation.rules.map((rule) => ({ ...rule, file: move(rule.file) })),
    correlations: compilation.correlations.map((rule) => ({ ...rule, file: move(rule.file) })),
    rejected: compilation.rejected.map((entry) => ({
      ...entry,
      file: move(entry.file),
      message: entry.message.split(from).join(to),
    })),
  };
}
