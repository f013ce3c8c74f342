// What a case's generated fields (title, description, score, severity, rules, techniques,
// tactics, search text) are, given what it holds. Grouping, merging and device changes all end
// here, so the fields always agree with the case's contents.
import type { AttackCatalogue } from '../detection/attack.js';
import type { Criticality } from '../storage/schema.js';
import type { CaseRow } from './case-store.js';
import type { NewObservation } from '../observations/observation-store.js';
import { caseScore, higherLevel, severityForLevel } from './case-score.js';
import { caseDescription, caseTitle, MAX_CASE_RULES, rankRules, type CaseRule } from './case-text.js';

/** What observations (`count` of them, of one rule) bring to a case. */
export type CaseContribution = Pick<
  NewObservation,
  'ruleId' | 'ruleTitle' | 'level' | 'techniques' | 'tactics' | 'firstTime' | 'lastTime'
> & { count: number };

export interface CaseContents {
  number: number;
  observationCount: number;
  maxLevel: string;
  rules: CaseRule[];
  techniques: string[];
  tactics: string[];
  firstTime: number;
  lastTime: number;
}

export function contentsOf(row: CaseRow): CaseContents {
  return {
    number: row.number,
    observationCount: row.observation_count,
    maxLevel: row.max_level,
    rules: JSON.parse(row.rules) as CaseRule[],
    techniques: JSON.parse(row.techniques) as string[],
    tactics: JSON.parse(row.tactics) as string[],
    firstTime: row.first_observation_at,
    lastTime: row.last_observation_at,
  };
}

export function emptyContents(number: number, firstTime: number): CaseContents {
  return {
    number,
    observationCount: 0,
    maxLevel: 'informational',
    rules: [],
    techniques: [],
    tactics: [],
    firstTime,
    lastTime: firstTime,
  };
}

/** Adds observations (or another case's contents) to a case's contents. */
export function addContribution(contents: CaseContents, item: CaseContribution): void {
  contents.observationCount += item.count;
  contents.maxLevel =
    contents.observationCount === item.count ? item.level : higherLevel(contents.maxLevel, item.level);
  contents.firstTime = Math.min(contents.firstTime, item.firstTime);
  contents.lastTime = Math.max(contents.lastTime, item.lastTime);
  const rule = contents.rules.find((known) => known.id === item.ruleId);
  if (rule) rule.count += item.count;
  else contents.rules.push({ id: item.ruleId, title: item.ruleTitle, level: item.level, count: item.count });
  for (const technique of item.techniques)
    if (!contents.techniques.includes(technique)) contents.techniques.push(technique);
  for (const tactic of item.tactics) if (!contents.tactics.includes(tactic)) contents.tactics.push(tactic);
}

export function mergeContents(into: CaseContents, from: CaseContents): void {
  const maxLevel = higherLevel(into.maxLevel, from.maxLevel);
  for (const rule of from.rules) {
    addContribution(into, {
      ruleId: rule.id,
      ruleTitle: rule.title,
      level: rule.level,
      techniques: [],
      tactics: [],
      firstTime: from.firstTime,
      lastTime: from.lastTime,
      count: rule.count,
    });
  }
  // Rules beyond MAX_CASE_RULES were counted but not named: keep the totals exact.
  into.observationCount += from.observationCount - from.rules.reduce((sum, rule) => sum + rule.count, 0);
  into.maxLevel = maxLevel;
  for (const technique of from.techniques) if (!into.techniques.includes(technique)) into.techniques.push(technique);
  for (const tactic of from.tactics) if (!into.tactics.includes(tactic)) into.tactics.push(tactic);
  into.firstTime = Math.min(into.firstTime, from.firstTime);
  into.lastTime = Math.max(into.lastTime, from.lastTime);
}

export interface DerivedFields {
  title: string;
  description: string;
  score: number;
  max_level: string;
  observation_count: number;
  rules: string;
  techniques: string;
  tactics: string;
  first_observation_at: number;
  last_observation_at: number;
  search_text: string;
}

export function deriveFields(
  contents: CaseContents,
  devices: readonly { host_name: string; criticality: Criticality }[],
  tags: readonly string[],
  catalogue: AttackCatalogue,
): DerivedFields {
  const hosts = devices.map((device) => device.host_name).sort();
  const rules = rankRules(contents.rules).slice(0, MAX_CASE_RULES);
  const text = {
    number: contents.number,
    rules,
    hosts,
    techniques: contents.techniques,
    observationCount: contents.observationCount,
    firstTime: contents.firstTime,
    lastTime: contents.lastTime,
  };
  const title = caseTitle(text);
  const description = caseDescription(text, catalogue);
  const score = caseScore({
    maxLevel: contents.maxLevel,
    observationCount: contents.observationCount,
    tactics: contents.tactics.length,
    criticalities: devices.map((device) => device.criticality),
  });
  return {
    title,
    description,
    score,
    max_level: contents.maxLevel,
    observation_count: contents.observationCount,
    rules: JSON.stringify(rules),
    techniques: JSON.stringify(contents.techniques),
    tactics: JSON.stringify(contents.tactics),
    first_observation_at: contents.firstTime,
    last_observation_at: contents.lastTime,
    search_text: searchText(contents.number, title, description, hosts, tags),
  };
}

export function searchText(
  number: number,
  title: string,
  description: string,
  hosts: readonly string[],
  tags: readonly string[],
): string {
  return [`#${number}`, title, description, ...hosts, ...tags].join('\n').toLowerCase();
}

export function severityFor(row: Pick<CaseRow, 'severity' | 'severity_manual'>, maxLevel: string): string {
  return row.severity_manual ? row.severity : severityForLevel(maxLevel);
}
