// bench:query's seeded data: the shapes the checks compare responses with (the model of every
// case), and what the seed draws from — the bundled rule pack, host families, places, people —
// with the deterministic helpers (ids, weighted choices) that make every run seed the same data.
import { loadDetection } from '../../src/detection/detection-setup.js';
import type { AttackCatalogue } from '../../src/detection/attack.js';
import type { Criticality } from '../../src/storage/schema.js';
import type { Random } from '../../src/core/random.js';

/** Page size of every search. */
export const PAGE = 50;
/** Cases span this many days before the run; the last week holds most open ones. */
export const SPAN_DAYS = 180;
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export interface SeedUser {
  id: string;
  email: string;
  /** Relative share of the assigned cases. */
  weight: number;
}

export interface SeedDevice {
  id: string;
  hostName: string;
  criticality: Criticality;
}

export interface RuleChoice {
  id: string;
  title: string;
  author: string | null;
  level: string;
  type: 'detection' | 'correlation';
  tags: string[];
  techniques: string[];
  tactics: string[];
  /** Relative frequency: noisy low rules fire far more often than critical ones. */
  weight: number;
}

export interface ModelCase {
  id: string;
  seq: number;
  number: number;
  status: string;
  severity: string;
  score: number;
  assigneeId: string | null;
  tags: string[];
  techniques: string[];
  deviceIds: string[];
  createdAt: number;
  updatedAt: number;
  searchText: string;
  observations: number;
  comments: number;
}

export interface Seeded {
  tenantId: number;
  token: string;
  users: SeedUser[];
  devices: SeedDevice[];
  cases: ModelCase[];
  rows: Record<string, number>;
  seconds: number;
  now: number;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** An id shaped as newId() makes them (`case_` + 20 base62), but from the seeded generator. */
export function seededId(random: Random, prefix: string): string {
  let out = `${prefix}_`;
  for (let i = 0; i < 20; i++) out += BASE62.charAt(Math.floor(random() * 62));
  return out;
}

/** Index into `weights` with probability proportional to each weight. */
export function weighted(random: Random, weights: readonly number[]): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let roll = random() * total;
  for (const [i, weight] of weights.entries()) {
    roll -= weight;
    if (roll < 0) return i;
  }
  return weights.length - 1;
}

const levelWeight: Record<string, number> = { informational: 14, low: 10, medium: 5, high: 2, critical: 0.4 };

/** The bundled rule pack (and its correlations): real titles, levels and ATT&CK techniques. */
export function ruleChoices(): { rules: RuleChoice[]; catalogue: AttackCatalogue } {
  const detection = loadDetection({ rulePaths: [], pipelinePath: '' });
  const catalogue = detection.catalogue;
  const choose = (
    rule: { id: string; title: string; author?: string; level: string; tags: string[] },
    type: RuleChoice['type'],
  ): RuleChoice => {
    const mapped = catalogue.fromTags(rule.tags);
    return {
      id: rule.id,
      title: rule.title,
      author: rule.author ?? null,
      level: rule.level,
      type,
      tags: rule.tags,
      techniques: mapped.techniques.map((technique) => technique.id),
      tactics: mapped.tactics.map((tactic) => tactic.shortname),
      weight: levelWeight[rule.level] ?? 5,
    };
  };
  const rules = [
    ...detection.compilation.rules.map((rule) => choose(rule, 'detection')),
    ...detection.compilation.correlations.map((rule) => choose(rule, 'correlation')),
  ];
  if (rules.length === 0) throw new Error('the bundled rule pack compiled to no rules');
  return { rules, catalogue };
}

/** 2,000 devices in all. */
export const hostFamilies: { prefix: string; count: number; width: number; os: string; criticality: number[] }[] = [
  // criticality weights: low, medium, high, critical
  { prefix: 'web', count: 220, width: 3, os: 'Ubuntu 22.04', criticality: [0, 50, 40, 10] },
  { prefix: 'api', count: 160, width: 3, os: 'Ubuntu 22.04', criticality: [0, 55, 40, 5] },
  { prefix: 'db', count: 60, width: 2, os: 'Debian 12', criticality: [0, 10, 50, 40] },
  { prefix: 'k8s-node', count: 320, width: 3, os: 'Flatcar Container Linux', criticality: [5, 70, 25, 0] },
  { prefix: 'bastion', count: 8, width: 2, os: 'Debian 12', criticality: [0, 0, 60, 40] },
  { prefix: 'mail', count: 12, width: 2, os: 'Debian 12', criticality: [0, 40, 60, 0] },
  { prefix: 'build', count: 40, width: 2, os: 'Ubuntu 24.04', criticality: [10, 70, 20, 0] },
  { prefix: 'ws', count: 1_180, width: 4, os: 'Windows 11', criticality: [40, 55, 5, 0] },
];
export const criticalities: Criticality[] = ['low', 'medium', 'high', 'critical'];
export const places = [
  ['DE', 'Germany', 'Frankfurt am Main'],
  ['NL', 'Netherlands', 'Amsterdam'],
  ['US', 'United States', 'Ashburn'],
  ['FR', 'France', 'Paris'],
  ['GB', 'United Kingdom', 'London'],
] as const;
export const people = ['ana', 'ben', 'chloe', 'dmitri', 'eva', 'farid'];
export const peopleWeights = [34, 24, 18, 12, 8, 4];
export const resolutions = ['false_positive', 'benign_true_positive', 'true_positive', 'inconclusive'];
export const resolutionWeights = [48, 30, 14, 8];
