// A case's title and description, written from its observations: what was detected (rules,
// ATT&CK techniques), where (devices), when (first and last observation). Regenerated whenever
// observations join the case, so they never go stale.
import type { AttackCatalogue } from '../detection/attack.js';
import { levelRank } from './case-score.js';

export interface CaseRule {
  id: string;
  title: string;
  level: string;
  count: number;
}

/** How many rules a case remembers by name (the rest are counted in the title only). */
export const MAX_CASE_RULES = 50;

export interface CaseTextInput {
  number: number;
  rules: readonly CaseRule[];
  hosts: readonly string[];
  techniques: readonly string[];
  observationCount: number;
  firstTime: number;
  lastTime: number;
}

/** The most important rule first: highest level, then most observations, then title. */
export function rankRules(rules: readonly CaseRule[]): CaseRule[] {
  return [...rules].sort(
    (a, b) => levelRank(b.level) - levelRank(a.level) || b.count - a.count || a.title.localeCompare(b.title),
  );
}

function where(hosts: readonly string[]): string {
  if (hosts.length === 0) return '';
  if (hosts.length === 1) return ` on ${hosts[0]}`;
  return ` on ${hosts[0]} and ${hosts.length - 1} other device${hosts.length === 2 ? '' : 's'}`;
}

export function caseTitle(input: CaseTextInput): string {
  const [top, ...rest] = rankRules(input.rules);
  const what = top ? top.title : 'Observations';
  const more = rest.length > 0 ? ` and ${rest.length} more detection${rest.length === 1 ? '' : 's'}` : '';
  return `${what}${more}${where(input.hosts)}`.slice(0, 300);
}

function utc(time: number): string {
  return `${new Date(time).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function caseDescription(input: CaseTextInput, catalogue: AttackCatalogue): string {
  const count = `${input.observationCount} observation${input.observationCount === 1 ? '' : 's'}`;
  const span =
    input.firstTime === input.lastTime
      ? `at ${utc(input.firstTime)}`
      : `between ${utc(input.firstTime)} and ${utc(input.lastTime)}`;
  const hosts = input.hosts.length > 0 ? ` on ${input.hosts.join(', ')}` : ' with no device named';
  const lines = [`${count}${hosts} ${span}.`];
  const rules = rankRules(input.rules);
  if (rules.length > 0) {
    lines.push('', 'Detections:');
    for (const rule of rules.slice(0, 10)) lines.push(`- ${rule.title} (${rule.level}, ${rule.count}×)`);
    if (rules.length > 10) lines.push(`- … and ${rules.length - 10} more`);
  }
  if (input.techniques.length > 0) {
    lines.push('', 'MITRE ATT&CK techniques:');
    for (const id of input.techniques.slice(0, 20)) {
      const technique = catalogue.technique(id);
      const tactics = technique?.tactics.map((shortname) => catalogue.tactic(shortname)?.name ?? shortname).join(', ');
      lines.push(`- ${id}${technique ? ` ${technique.name}` : ''}${tactics ? ` (${tactics})` : ''}`);
    }
    if (input.techniques.length > 20) lines.push(`- … and ${input.techniques.length - 20} more`);
  }
  return lines.join('\n');
}
