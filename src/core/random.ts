// A small seeded pseudo-random generator (mulberry32) for what must look random yet repeat from
// run to run: the demo's traffic, the benchmarks' corpora, property tests. Never for secrets.

export type Random = () => number;

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** An integer from low to high, both included. */
export const between = (random: Random, low: number, high: number): number =>
  low + Math.floor(random() * (high - low + 1));

export const hex = (random: Random, length: number): string => {
  let out = '';
  for (let i = 0; i < length; i++) out += Math.floor(random() * 16).toString(16);
  return out;
};

/** A public-looking IPv4 address (first octet 1–223). */
export const ipv4 = (random: Random): string =>
  `${between(random, 1, 223)}.${between(random, 0, 255)}.${between(random, 0, 255)}.${between(random, 1, 254)}`;
