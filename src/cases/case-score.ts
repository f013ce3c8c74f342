// A case's score (0–100) and severity, from its observations and its devices. The formula is
// published in docs/cases.md and the API documentation; keep the three in step.
//
//   score = clamp(0, 100, round((level + volume + breadth) × criticality))
//   level       the highest observation level: informational 5, low 15, medium 35, high 55, critical 75
//   volume      min(10, 2.5 × log2(observation count))           1 → 0, 2 → 2.5, 16 or more → 10
//   breadth     min(15, 5 × (distinct ATT&CK tactics − 1))         each tactic past the first: +5
//   criticality the most critical device's factor: low 0.8, medium 1.0, high 1.2, critical 1.4
//
// So a single critical observation on an ordinary device scores 75; a high observation on a
// critical server scores 77; a medium one alone 35; a kill chain across four tactics with many
// observations climbs to the top. Severity follows the highest observation level, unless a
// person has set it.
import type { Criticality } from '../storage/schema.js';

export const levels = ['informational', 'low', 'medium', 'high', 'critical'] as const;
export type Level = (typeof levels)[number];

const levelPoints: Record<Level, number> = { informational: 5, low: 15, medium: 35, high: 55, critical: 75 };
const criticalityFactor: Record<Criticality, number> = { low: 0.8, medium: 1.0, high: 1.2, critical: 1.4 };
export const criticalities: readonly Criticality[] = ['low', 'medium', 'high', 'critical'];

export function isLevel(value: string): value is Level {
  return (levels as readonly string[]).includes(value);
}

/** Unknown levels (an external writer's own words are validated, but be safe) count as medium. */
export function levelRank(level: string): number {
  return isLevel(level) ? levels.indexOf(level) : 2;
}

export function higherLevel(a: string, b: string): string {
  return levelRank(b) > levelRank(a) ? b : a;
}

export interface ScoreInput {
  maxLevel: string;
  observationCount: number;
  tactics: number;
  /** The criticality of each device on the case (none: medium). */
  criticalities: readonly Criticality[];
}

export function caseScore(input: ScoreInput): number {
  const level = levelPoints[isLevel(input.maxLevel) ? input.maxLevel : 'medium'];
  const volume = Math.min(10, 2.5 * Math.log2(Math.max(1, input.observationCount)));
  const breadth = Math.min(15, 5 * Math.max(0, input.tactics - 1));
  const factor =
    input.criticalities.length === 0 ? 1 : Math.max(...input.criticalities.map((value) => criticalityFactor[value]));
  return Math.max(0, Math.min(100, Math.round((level + volume + breadth) * factor)));
}

/** Case severity from the highest observation level (informational cases are `low`). */
export function severityForLevel(level: string): Level {
  return level === 'informational' ? 'low' : isLevel(level) ? level : 'medium';
}
