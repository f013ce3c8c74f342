// Simulated telemetry for `sightline demo`: a handful of hosts sending mostly benign records, with
// attacks of every family of the bundled rule pack woven in on a fixed schedule. Records have the
// shapes the normaliser recognises (the rule-pack fixtures' shapes), so the attacks trigger the
// bundled rules. Seeded: the same seed and the same `next` times give the same records.
import { seededRandom } from '../core/random.js';
import { benign } from './benign.js';
import type { AttackFamily, Campaign } from './campaign.js';
import { webAndAuthAttacks } from './attacks-web-auth.js';
import { systemAttacks } from './attacks-systems.js';
import { windowsAttacks } from './attacks-windows.js';
import type { JsonObject } from './records.js';

export { ATTACK_FAMILIES, type AttackFamily, type Campaign } from './campaign.js';
export type { JsonObject } from './records.js';

/** The schedule repeats every cycle, with other attacker addresses. */
export const CYCLE_MS = 60_000;
/** Background (benign) records per second when no rate is given; attacks come on top (≈5%). */
export const DEFAULT_RATE = 50;

export interface GeneratedRecord {
  record: JsonObject;
  /** Which scheduled attack the record belongs to; null for benign traffic. */
  attack: { family: AttackFamily; name: string } | null;
}

export interface Traffic {
  /** The records due since the previous call (or the start), up to `now` (epoch ms), in time order. */
  next(now: number): GeneratedRecord[];
}

export interface TrafficOptions {
  seed: number;
  /** Epoch ms: the schedule's time zero. */
  start: number;
  /** Benign records per second. */
  rate?: number;
}

/**
 * Every attack, in schedule order. Each family appears within the first 20 s of a cycle, and every
 * burst a correlation counts (SSH brute force and password spraying, 5xx and failed-login bursts,
 * NTLM and Kerberos password spraying, the local group sweep) completes within 30 s.
 */
export const attackSchedule: readonly Campaign[] = [...webAndAuthAttacks, ...systemAttacks, ...windowsAttacks];

export function createTraffic(options: TrafficOptions): Traffic {
  const { seed, start } = options;
  const rate = options.rate ?? DEFAULT_RATE;
  const random = seededRandom(seed);
  const salt = Math.floor(seededRandom(seed ^ 0x5eed)() * 250);
  let last = start;
  let owed = 0;

  return {
    next(now) {
      if (now <= last) return [];
      const due: { time: number; generated: GeneratedRecord }[] = [];
      owed += (rate * (now - last)) / 1000;
      const count = Math.floor(owed);
      owed -= count;
      for (let i = 0; i < count; i++) {
        const time = Math.round(last + ((i + 1) * (now - last)) / (count + 1));
        due.push({ time, generated: { record: benign(time, random), attack: null } });
      }
      // Attacks whose time falls in [last, now): campaigns never outlast their cycle.
      const from = last - start;
      const to = now - start;
      for (let cycle = Math.floor(from / CYCLE_MS); cycle * CYCLE_MS < to; cycle++) {
        attackSchedule.forEach((item, position) => {
          const attacker = (prefix: string) => `${prefix}.${1 + ((salt + cycle * 53 + position * 29) % 250)}`;
          for (let index = 0; index < item.count; index++) {
            const offset = cycle * CYCLE_MS + item.at + index * item.every;
            if (offset < from || offset >= to) continue;
            const time = start + offset;
            due.push({
              time,
              generated: {
                record: item.build({ time, index, attacker }),
                attack: { family: item.family, name: item.name },
              },
            });
          }
        });
      }
      last = now;
      return due.sort((a, b) => a.time - b.time).map((entry) => entry.generated);
    },
  };
}
