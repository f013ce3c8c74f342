// What a demo attack is: a campaign of records of one rule family, at a fixed time in each cycle.
import type { JsonObject } from './records.js';

export const ATTACK_FAMILIES = ['web', 'auth', 'process', 'network', 'kubernetes', 'application', 'windows'] as const;
export type AttackFamily = (typeof ATTACK_FAMILIES)[number];

export interface AttackContext {
  time: number;
  /** The record's position in its campaign (0-based). */
  index: number;
  /** An address the attacker uses this cycle: `<prefix>.<n>`. */
  attacker: (prefix: string) => string;
}

/** One attack: `count` records `every` ms apart, from `at` ms into each cycle. */
export interface Campaign {
  name: string;
  family: AttackFamily;
  at: number;
  count: number;
  every: number;
  build(context: AttackContext): JsonObject;
}

export const campaign = (
  family: AttackFamily,
  name: string,
  at: number,
  build: Campaign['build'],
  count = 1,
  every = 1_000,
): Campaign => ({ name, family, at, count, every, build });

/** The `index`-th entry of a list a campaign walks through; the list is as long as the campaign. */
export function entry<T>(items: readonly T[], index: number): T {
  const item = items[index];
  if (item === undefined) throw new Error(`demo campaign: no entry ${index} in a list of ${items.length}`);
  return item;
}
