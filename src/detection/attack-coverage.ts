// ATT&CK coverage of one tenant: for every technique and sub-technique of the bundled catalogue,
// the loaded rules tagged with it and whether the tenant's telemetry produced their logsource
// lately. A technique is live when at least one covering rule's logsource was seen, silent when
// it is covered only by rules whose logsource was not seen, uncovered when no rule names it.
// The rule index is built once per rule set; a request only checks logsources against it.
import type { LogSource } from '../telemetry/normalise/event.js';
import { isReachable } from '../telemetry/normalise/produced.js';
import type { AttackCatalogue, AttackTechnique } from './attack.js';
import type { RuleCompilation } from './sigma/index.js';

export type CoverageStatus = 'live' | 'silent' | 'uncovered';
export const COVERAGE_STATUSES: readonly CoverageStatus[] = ['live', 'silent', 'uncovered'];

export interface CoveringRule {
  id: string;
  title: string;
  level: string;
  type: 'detection' | 'correlation';
  /** A detection rule's logsource; a correlation's is the logsources of the rules it counts. */
  logsources: LogSource[];
}

export interface CoverageIndex {
  version: string;
  /** Technique id → the rules tagged with it, by title. */
  rulesOf: ReadonlyMap<string, readonly CoveringRule[]>;
  /** Parent techniques first in name order, each followed by its sub-techniques by id. */
  techniques: readonly AttackTechnique[];
  catalogue: AttackCatalogue;
}

export interface RuleCoverage extends CoveringRule {
  /** Some of its logsources was produced by the tenant's telemetry within the window. */
  live: boolean;
}

export interface TechniqueCoverage {
  id: string;
  name: string;
  parent: string | null;
  /** Tactic short names, in the catalogue's order. */
  tactics: string[];
  /** From the rules tagged with this technique itself. */
  status: CoverageStatus;
  /** A technique with its sub-techniques' rules too (the matrix cell); a sub-technique's own status. */
  combinedStatus: CoverageStatus;
  rules: RuleCoverage[];
  subtechniques: string[];
}

export interface CoverageCounts {
  total: number;
  live: number;
  silent: number;
  uncovered: number;
}

export interface TacticCoverage {
  id: string;
  shortname: string;
  name: string;
  /** Its (parent) techniques by name. */
  techniques: string[];
  /** Of those techniques, by combined status. */
  counts: CoverageCounts;
}

export interface AttackCoverage {
  version: string;
  tactics: TacticCoverage[];
  techniques: TechniqueCoverage[];
  /** Parent techniques by combined status; sub-techniques by their own. */
  counts: { techniques: CoverageCounts; subtechniques: CoverageCounts };
}

export function buildCoverageIndex(compilation: RuleCompilation, catalogue: AttackCatalogue): CoverageIndex {
  const logsourcesOf = new Map<string, LogSource[]>();
  for (const rule of compilation.rules) logsourcesOf.set(rule.id, [rule.logsource]);
  const members = new Map(compilation.correlations.map((correlation) => [correlation.id, correlation.rules]));
  // A correlation may count other correlations: follow them down to detection rules.
  const leaves = (id: string, seen: Set<string>): LogSource[] => {
    if (seen.has(id)) return [];
    seen.add(id);
    return logsourcesOf.get(id) ?? (members.get(id) ?? []).flatMap((member) => leaves(member, seen));
  };
  const entries: (CoveringRule & { tags: string[] })[] = [
    ...compilation.rules.map((rule) => ({
      id: rule.id,
      title: rule.title,
      level: rule.level,
      type: 'detection' as const,
      logsources: [rule.logsource],
      tags: rule.tags,
    })),
    ...compilation.correlations.map((correlation) => ({
      id: correlation.id,
      title: correlation.title,
      level: correlation.level,
      type: 'correlation' as const,
      logsources: leaves(correlation.id, new Set()),
      tags: correlation.tags,
    })),
  ];
  const rulesOf = new Map<string, CoveringRule[]>();
  for (const { tags, ...rule } of entries) {
    for (const technique of catalogue.fromTags(tags).techniques) {
      if (!technique.known) continue;
      const list = rulesOf.get(technique.id) ?? [];
      list.push(rule);
      rulesOf.set(technique.id, list);
    }
  }
  for (const list of rulesOf.values()) list.sort((a, b) => a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
  const all = catalogue.techniques();
  const children = new Map<string, AttackTechnique[]>();
  for (const technique of all) {
    if (technique.parent === undefined) continue;
    const list = children.get(technique.parent) ?? [];
    list.push(technique);
    children.set(technique.parent, list);
  }
  const techniques = all
    .filter((technique) => technique.parent === undefined)
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
    .flatMap((technique) => [
      technique,
      ...(children.get(technique.id) ?? []).sort((a, b) => a.id.localeCompare(b.id)),
    ]);
  return { version: catalogue.version, rulesOf, techniques, catalogue };
}

/** Coverage given the logsources the tenant's telemetry produced within the window. */
export function assessCoverage(index: CoverageIndex, seen: readonly LogSource[]): AttackCoverage {
  const verdicts = new Map<CoveringRule, boolean>();
  const liveRule = (rule: CoveringRule) => {
    let live = verdicts.get(rule);
    if (live === undefined) {
      live = rule.logsources.some((logsource) => isReachable(logsource, seen));
      verdicts.set(rule, live);
    }
    return live;
  };
  const byId = new Map<string, TechniqueCoverage>();
  const techniques: TechniqueCoverage[] = [];
  for (const technique of index.techniques) {
    const rules = (index.rulesOf.get(technique.id) ?? []).map((rule) => ({ ...rule, live: liveRule(rule) }));
    const status = statusOf(rules);
    const entry: TechniqueCoverage = {
      id: technique.id,
      name: technique.name,
      parent: technique.parent ?? null,
      tactics: [...technique.tactics],
      status,
      combinedStatus: status,
      rules,
      subtechniques: [],
    };
    techniques.push(entry);
    byId.set(entry.id, entry);
    const parent = technique.parent === undefined ? undefined : byId.get(technique.parent);
    if (parent !== undefined) {
      parent.subtechniques.push(entry.id);
      parent.combinedStatus = better(parent.combinedStatus, status);
    }
  }
  const parents = techniques.filter((technique) => technique.parent === null);
  const tactics: TacticCoverage[] = [];
  for (const tactic of index.catalogue.tactics()) {
    const members = parents.filter((technique) => technique.tactics.includes(tactic.shortname));
    tactics.push({
      id: tactic.id,
      shortname: tactic.shortname,
      name: tactic.name,
      techniques: members.map((technique) => technique.id),
      counts: count(members.map((technique) => technique.combinedStatus)),
    });
  }
  return {
    version: index.version,
    tactics,
    techniques,
    counts: {
      techniques: count(parents.map((technique) => technique.combinedStatus)),
      subtechniques: count(techniques.filter((t) => t.parent !== null).map((technique) => technique.status)),
    },
  };
}

function statusOf(rules: readonly RuleCoverage[]): CoverageStatus {
  if (rules.length === 0) return 'uncovered';
  return rules.some((rule) => rule.live) ? 'live' : 'silent';
}

function better(a: CoverageStatus, b: CoverageStatus): CoverageStatus {
  return COVERAGE_STATUSES.indexOf(a) <= COVERAGE_STATUSES.indexOf(b) ? a : b;
}

function count(statuses: readonly CoverageStatus[]): CoverageCounts {
  const counts: CoverageCounts = { total: statuses.length, live: 0, silent: 0, uncovered: 0 };
  for (const status of statuses) counts[status] += 1;
  return counts;
}
