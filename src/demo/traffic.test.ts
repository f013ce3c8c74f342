// The demo traffic generator: seeded determinism, the benign share, the attack schedule, and —
// through the real normaliser, rule set and correlation engine with the bundled rules — that the
// attacks of every family trigger rules of that family while benign records trigger nothing serious.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNormaliser, loadPipeline } from '../telemetry/normalise/index.js';
import { loadRuleDirectories, RuleSet } from '../detection/sigma/index.js';
import { CorrelationEngine } from '../detection/sigma/correlation.js';
import {
  ATTACK_FAMILIES,
  attackSchedule,
  createTraffic,
  CYCLE_MS,
  type AttackFamily,
  type GeneratedRecord,
} from './traffic.js';

const RULES_DIR = fileURLToPath(new URL('../../rules/', import.meta.url));
const START = Date.parse('2026-11-22T10:00:00Z');
const STEP_MS = 250;

/** Runs a generator as the CLI does (a batch every 250 ms) for `durationMs`; records with their batch time. */
function simulate(seed: number, durationMs: number, rate?: number): { time: number; generated: GeneratedRecord }[] {
  const traffic = createTraffic({ seed, start: START, ...(rate !== undefined ? { rate } : {}) });
  const out: { time: number; generated: GeneratedRecord }[] = [];
  for (let now = START + STEP_MS; now <= START + durationMs; now += STEP_MS) {
    for (const generated of traffic.next(now)) out.push({ time: now, generated });
  }
  return out;
}

/** The family folder of a bundled rule file: rules/sightline/<family>/<rule>.yml. */
function familyOfRuleFile(file: string): string {
  return path.basename(path.dirname(file));
}

describe('demo traffic', () => {
  test('the same seed gives the same records; another seed gives others', () => {
    const first = simulate(7, 10_000).map((entry) => entry.generated);
    assert.deepEqual(
      simulate(7, 10_000).map((entry) => entry.generated),
      first,
    );
    assert.notDeepEqual(
      simulate(8, 10_000).map((entry) => entry.generated),
      first,
    );
  });

  test('about 95% of the records are benign at the default rate; the rate sets the background volume', () => {
    const minute = simulate(1, CYCLE_MS);
    const benign = minute.filter((entry) => entry.generated.attack === null).length;
    const share = benign / minute.length;
    assert.ok(share > 0.93 && share < 0.97, `benign share ${share.toFixed(3)} of ${minute.length}`);
    const slow = simulate(1, 10_000, 4).filter((entry) => entry.generated.attack === null).length;
    assert.ok(slow >= 39 && slow <= 40, `4 records/s for 10 s gave ${slow}`);
  });

  test('every attack family appears within 30 s, and every campaign ends within its cycle', () => {
    const families = new Set(
      simulate(1, 30_000).flatMap((entry) => (entry.generated.attack ? [entry.generated.attack.family] : [])),
    );
    assert.deepEqual([...families].sort(), [...ATTACK_FAMILIES].sort());
    for (const campaign of attackSchedule) {
      assert.ok(campaign.at + (campaign.count - 1) * campaign.every < CYCLE_MS, `${campaign.name} outlasts the cycle`);
    }
  });

  test('records are in time order within a batch, with their own time', () => {
    const traffic = createTraffic({ seed: 3, start: START });
    const batch = traffic.next(START + 2_000).map((generated) => generated.record);
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    const times = batch.map((record) => {
      const utcTime = text(record.UtcTime);
      const sysmon = utcTime === undefined ? undefined : `${utcTime.replace(' ', 'T')}Z`;
      return Date.parse(
        text(record.timestamp) ?? text(record.requestReceivedTimestamp) ?? text(record['@timestamp']) ?? sysmon ?? '',
      );
    });
    const known = times.filter((time) => !Number.isNaN(time));
    assert.ok(known.length > batch.length / 2);
    for (const time of known) assert.ok(time >= START && time < START + 2_000, new Date(time).toISOString());
  });

  describe('through the real normaliser and the bundled rules', () => {
    const pipeline = loadPipeline();
    const normaliser = createNormaliser(pipeline);
    const compilation = loadRuleDirectories([RULES_DIR], { placeholders: pipeline.placeholders });
    const ruleSet = new RuleSet(compilation.rules);

    /** Feeds records in order; what each matched and which correlations fired on what. */
    function detect(records: { time: number; generated: GeneratedRecord }[]) {
      const engine = new CorrelationEngine(compilation.correlations);
      const matches: {
        generated: GeneratedRecord;
        rules: { id: string; level: string; family: string; title: string }[];
      }[] = [];
      const fired: { family: string; title: string; seqs: number[] }[] = [];
      records.forEach(({ time, generated }, index) => {
        const seq = index + 1;
        const event = normaliser.normalise({
          seq,
          tenantId: 1,
          receivedAt: time,
          eventTime: time,
          record: JSON.stringify(generated.record),
          meta: null,
        });
        const rules = [...ruleSet.match(event)];
        matches.push({
          generated,
          rules: rules.map((rule) => ({
            id: rule.id,
            level: rule.level,
            family: familyOfRuleFile(rule.file),
            title: rule.title,
          })),
        });
        for (const rule of rules) {
          for (const hit of engine.observe(rule.id, event)) {
            fired.push({
              family: familyOfRuleFile(hit.correlation.file),
              title: hit.correlation.title,
              seqs: hit.events.map((item) => item.seq),
            });
          }
        }
      });
      return {
        matches,
        fired,
        attackSeqs: new Set(matches.flatMap((match, index) => (match.generated.attack ? [index + 1] : []))),
      };
    }

    test('the bundled rules compile', () => {
      assert.deepEqual(
        compilation.rejected.map((rejected) => rejected.message),
        [],
      );
    });

    test('within 30 s the attacks of every family are matched by rules of that family, bursts fire their correlations', () => {
      const { matches, fired } = detect(simulate(11, 30_000));
      const detected = new Map<AttackFamily, Set<string>>();
      for (const { generated, rules } of matches) {
        if (!generated.attack) continue;
        for (const rule of rules)
          if (rule.family === generated.attack.family)
            (
              detected.get(generated.attack.family) ??
              detected.set(generated.attack.family, new Set()).get(generated.attack.family)
            )?.add(rule.title);
      }
      for (const family of ATTACK_FAMILIES)
        assert.ok((detected.get(family)?.size ?? 0) > 0, `no ${family} attack matched a ${family} rule`);
      // The bursts: SSH brute force and password spraying (auth), server-error and failed-login bursts
      // (application), NTLM and Kerberos spraying and the local group sweep (windows).
      const firedFamilies = fired.map((hit) => hit.family);
      assert.ok(
        firedFamilies.filter((family) => family === 'auth').length >= 2,
        `auth correlations fired: ${JSON.stringify(fired.map((hit) => hit.title))}`,
      );
      assert.ok(
        firedFamilies.filter((family) => family === 'application').length >= 2,
        `application correlations fired: ${JSON.stringify(fired.map((hit) => hit.title))}`,
      );
      assert.ok(
        firedFamilies.filter((family) => family === 'windows').length >= 3,
        `windows correlations fired: ${JSON.stringify(fired.map((hit) => hit.title))}`,
      );
    });

    test('over one cycle every attack record matches a rule and every bundled correlation fires, on attack records only', () => {
      const { matches, fired, attackSeqs } = detect(simulate(12, CYCLE_MS));
      const missed = matches
        .filter((match) => match.generated.attack && match.rules.length === 0)
        .map((match) => match.generated.attack?.name);
      assert.deepEqual([...new Set(missed)], [], 'attacks no rule matched');
      const firedTitles = new Set(fired.map((hit) => hit.title));
      assert.deepEqual(
        [...firedTitles].sort(),
        compilation.correlations.map((correlation) => correlation.title).sort(),
      );
      for (const hit of fired)
        assert.ok(
          hit.seqs.every((seq) => attackSeqs.has(seq)),
          `${hit.title} counted benign records`,
        );
    });

    test('benign records match no rule of level high or critical', () => {
      const { matches } = detect(simulate(13, 2 * CYCLE_MS));
      const serious = matches
        .filter((match) => !match.generated.attack)
        .flatMap((match) =>
          match.rules
            .filter((rule) => rule.level === 'high' || rule.level === 'critical')
            .map((rule) => `${rule.title}: ${JSON.stringify(match.generated.record)}`),
        );
      assert.deepEqual(serious, []);
    });
  });
});
