// The Sigma engine: load and compile rules (detection, correlation, meta filters), and evaluate
// them against normalised events, routed by logsource and pre-filtered by literal.
export { compileRuleText, loadRuleDirectories, type LoadOptions, type RuleCompilation } from './loader.js';
export { matchNaively, RuleSet } from './rule-set.js';
export { RuleError } from './errors.js';
export type { CompiledRule, RejectedRule } from './types.js';
