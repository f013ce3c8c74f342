// The bundled rule pack (rules/sightline/), proven rule by rule through the real normaliser and
// engine: raw records that must trigger each rule and near misses that must not, timed sequences
// for correlations; plus the pack's own checks (compiles, ids, metadata, ATT&CK tags, coverage).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { loadAttackCatalogue } from '../../src/detection/attack.js';
import type { NormalisedEvent, LogSource } from '../../src/telemetry/normalise/event.js';
import { createNormaliser, loadPipeline } from '../../src/telemetry/normalise/index.js';
import { loadRuleDirectories, RuleSet } from '../../src/detection/sigma/index.js';
import { CorrelationEngine } from '../../src/detection/sigma/correlation.js';
import {
  listYaml,
  loadFixtureFiles,
  type FixtureCase,
  type RecordEntry,
  type Scenario,
} from '../fixtures/rule-pack/fixtures.js';
import { buildRecord, isPlainObject } from '../fixtures/rule-pack/records.js';

/** What the server loads (detection-setup's BUNDLED_RULES_DIR), and the pack inside it. */
const RULES_DIR = fileURLToPath(new URL('../../rules/', import.meta.url));
const PACK_DIR = path.join(RULES_DIR, 'sightline');
const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/rule-pack/', import.meta.url));
const T0 = Date.parse('2026-11-22T10:15:00Z');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const LEVELS = ['informational', 'low', 'medium', 'high', 'critical'];
const STATUSES = ['experimental', 'test', 'stable'];
const TECHNIQUE_TAG = /^attack\.t\d{4}(\.\d{3})?$/;

const pipeline = loadPipeline();
const normaliser = createNormaliser(pipeline);
const compilation = loadRuleDirectories([RULES_DIR], { placeholders: pipeline.placeholders });
const ruleSet = new RuleSet(compilation.rules);
const catalogue = loadAttackCatalogue();
const fixtures = loadFixtureFiles(FIXTURE_DIR);

/** Every YAML document of the pack, as written: the metadata checks and the fixtures read these. */
interface RawRule {
  file: string;
  id: string;
  title: string;
  doc: Record<string, unknown>;
  correlation: boolean;
}

const rawRules: RawRule[] = listYaml(PACK_DIR).flatMap((file) =>
  parseAllDocuments(fs.readFileSync(path.join(PACK_DIR, file), 'utf8')).map((parsed) => {
    const doc: unknown = parsed.toJS();
    if (!isPlainObject(doc)) throw new Error(`rules/sightline/${file}: a document is not a mapping`);
    if (typeof doc.id !== 'string' || typeof doc.title !== 'string')
      throw new Error(`rules/sightline/${file}: a document without a string id and title`);
    return { file, id: doc.id, title: doc.title, doc, correlation: doc.correlation !== undefined };
  }),
);
const byId = new Map(rawRules.map((rule) => [rule.id, rule]));
const byName = new Map(
  rawRules.flatMap((rule) => (typeof rule.doc.name === 'string' ? [[rule.doc.name, rule] as const] : [])),
);

test('every bundled rule file compiles with no rejection', () => {
  assert.deepEqual(
    compilation.rejected.map((rejected) => rejected.message),
    [],
  );
  const compiled = [...compilation.rules, ...compilation.correlations];
  assert.equal(compiled.length, rawRules.length, 'one compiled rule per YAML document');
  assert.deepEqual(compiled.map((rule) => rule.id).sort(), rawRules.map((rule) => rule.id).sort());
});

test('the pack: at least 40 rules with unique ids and names, in family folders', () => {
  assert.ok(rawRules.length >= 40, `${rawRules.length} rules`);
  const ids = rawRules.map((rule) => rule.id);
  assert.deepEqual(
    ids.filter((id, index) => ids.indexOf(id) !== index),
    [],
    'duplicate ids',
  );
  const names = rawRules.flatMap((rule) => (typeof rule.doc.name === 'string' ? [rule.doc.name] : []));
  assert.deepEqual(
    names.filter((name, index) => names.indexOf(name) !== index),
    [],
    'duplicate names',
  );
  for (const rule of rawRules) assert.match(rule.file, /^[a-z]+\/[a-z0-9_]+\.yml$/, rule.file);
  assert.ok(fs.existsSync(path.join(RULES_DIR, 'LICENSE')) && fs.existsSync(path.join(RULES_DIR, 'README.md')));
});

test('every rule has its metadata: id, title, status, description, author, licence, date, level, false positives', () => {
  for (const { file, id, doc } of rawRules) {
    const where = `${file} ${id}`;
    assert.match(id, UUID, where);
    assert.ok(typeof doc.title === 'string' && doc.title.length > 0 && doc.title.length <= 256, `${where}: title`);
    assert.ok(STATUSES.includes(String(doc.status)), `${where}: status`);
    assert.ok(typeof doc.description === 'string' && doc.description.length > 20, `${where}: description`);
    assert.equal(doc.author, 'Sightline', `${where}: author`);
    assert.equal(doc.license, 'Apache-2.0', `${where}: license`);
    assert.match(String(doc.date), /^\d{4}-\d{2}-\d{2}$/, `${where}: date`);
    assert.ok(LEVELS.includes(String(doc.level)), `${where}: level`);
    assert.ok(Array.isArray(doc.falsepositives) && doc.falsepositives.length > 0, `${where}: falsepositives`);
    assert.ok(
      Array.isArray(doc.references) && doc.references.every((ref) => /^https?:\/\//.test(String(ref))),
      `${where}: references`,
    );
  }
});

test('every rule has ATT&CK tags the catalogue knows, tactics agreeing with techniques', () => {
  for (const { file, id, doc } of rawRules) {
    const where = `${file} ${id}`;
    assert.ok(Array.isArray(doc.tags), `${where}: tags`);
    const tags = (doc.tags as unknown[]).map(String);
    const mapped = catalogue.fromTags(tags);
    assert.ok(
      mapped.techniques.length > 0 && mapped.tactics.length > 0,
      `${where}: needs a technique and a tactic tag`,
    );
    for (const technique of mapped.techniques)
      assert.ok(technique.known, `${where}: ${technique.id} is not in ATT&CK ${catalogue.version}`);
    for (const tactic of mapped.tactics)
      assert.ok(tactic.known, `${where}: tactic ${tactic.shortname} is not in ATT&CK ${catalogue.version}`);
    for (const tag of tags.filter((tag) => tag.startsWith('attack.')))
      assert.equal(tag, tag.toLowerCase(), `${where}: ${tag} is not lower case`);
    assert.ok(
      !tags.some((tag) => /^attack\.[a-z]+_[a-z_]+$/.test(tag)),
      `${where}: tactics are written with hyphens (spec v2)`,
    );
    const techniqueTactics = new Set(mapped.techniques.flatMap((technique) => technique.tactics));
    for (const tactic of mapped.tactics)
      assert.ok(techniqueTactics.has(tactic.shortname), `${where}: no technique tagged for tactic ${tactic.shortname}`);
    for (const technique of mapped.techniques) {
      assert.ok(
        technique.tactics.some((tactic) => mapped.tactics.some((tagged) => tagged.shortname === tactic)),
        `${where}: no tactic tag for ${technique.id}`,
      );
    }
    assert.ok(tags.some((tag) => TECHNIQUE_TAG.test(tag)));
  }
});

test('every rule has fixtures beside it: a fixture file per rule file, a case per rule, of the right kind', () => {
  assert.deepEqual(
    fixtures.map((fixture) => fixture.file),
    listYaml(PACK_DIR),
    'test/fixtures/rule-pack/ mirrors rules/sightline/',
  );
  for (const fixture of fixtures) {
    const expected = rawRules
      .filter((rule) => rule.file === fixture.file)
      .map((rule) => rule.id)
      .sort();
    assert.deepEqual(
      fixture.cases.map((item) => item.rule).sort(),
      expected,
      `${fixture.file}: one case per rule of the file`,
    );
    for (const item of fixture.cases) {
      const rule = byId.get(item.rule);
      assert.equal(
        item.kind === 'correlation',
        rule?.correlation,
        `${fixture.file}: ${item.rule} is ${rule?.correlation ? 'a correlation (fires/silent)' : 'a detection (match/nomatch)'}`,
      );
    }
  }
});

let seq = 0;

function normalise(entry: RecordEntry, time = T0, index = 0): NormalisedEvent {
  const record = buildRecord(entry.shape, entry.overrides, time, index);
  seq += 1;
  return normaliser.normalise({
    seq,
    tenantId: 1,
    receivedAt: time + 1500,
    eventTime: time,
    record: JSON.stringify(record),
    meta: null,
  });
}

function matchedIds(event: NormalisedEvent): Set<string> {
  return new Set([...ruleSet.match(event)].map((rule) => rule.id));
}

/** A rule's logsource applies when one of the event's logsources has every key it states, equal. */
function applies(rule: RawRule, event: NormalisedEvent): boolean {
  const wanted = rule.doc.logsource as Record<string, string>;
  return event.logsources.some((source: LogSource) =>
    Object.entries(wanted).every(
      ([key, value]) => (source[key as keyof LogSource] ?? '').toLowerCase() === value.toLowerCase(),
    ),
  );
}

/** The detection rules a correlation counts, by name or id. */
function baseRules(correlation: RawRule): RawRule[] {
  const refs = (correlation.doc.correlation as { rules: string[] }).rules;
  return refs.map((ref) => {
    const rule = byName.get(ref) ?? byId.get(ref);
    assert.ok(rule, `${correlation.file}: correlation refers to unknown rule ${ref}`);
    return rule;
  });
}

/** Feeds a scenario's records, in time order, through the rule set and a fresh correlation engine. */
function run(correlation: RawRule, scenario: Scenario): { fired: boolean; unmatched: number[] } {
  const engine = new CorrelationEngine(compilation.correlations);
  const bases = new Set(baseRules(correlation).map((rule) => rule.id));
  let fired = false;
  const unmatched: number[] = [];
  for (let index = 0; index < scenario.count; index++) {
    const event = normalise(scenario, T0 + index * scenario.every, index);
    let counted = false;
    for (const rule of ruleSet.match(event)) {
      if (bases.has(rule.id)) counted = true;
      for (const hit of engine.observe(rule.id, event)) if (hit.correlation.id === correlation.id) fired = true;
    }
    if (!counted) unmatched.push(index);
  }
  return { fired, unmatched };
}

function describeScenario(scenario: Scenario): string {
  return `${scenario.count} records ${scenario.every / 1000}s apart`;
}

function caseTests(item: FixtureCase): void {
  const rule = byId.get(item.rule);
  if (!rule) return; // reported by the coverage test
  if (item.kind === 'detection') {
    item.match.forEach((entry, index) => {
      test(`${rule.title}: triggers on match[${index}]`, { todo: entry.todo }, () => {
        const event = normalise(entry);
        assert.ok(matchedIds(event).has(rule.id), `not matched; event fields: ${JSON.stringify(event.fields)}`);
      });
    });
    item.nomatch.forEach((entry, index) => {
      test(`${rule.title}: stays quiet on near miss nomatch[${index}]`, { todo: entry.todo }, () => {
        const event = normalise(entry);
        assert.ok(applies(rule, event), 'a near miss must reach the rule: the event must satisfy its logsource');
        assert.ok(!matchedIds(event).has(rule.id), `matched; event fields: ${JSON.stringify(event.fields)}`);
      });
    });
    return;
  }
  item.fires.forEach((scenario, index) => {
    test(`${rule.title}: fires on fires[${index}] (${describeScenario(scenario)})`, { todo: scenario.todo }, () => {
      const { fired, unmatched } = run(rule, scenario);
      assert.deepEqual(unmatched, [], 'records the base rule did not match');
      assert.ok(fired, 'the correlation did not fire');
    });
  });
  item.silent.forEach((scenario, index) => {
    test(
      `${rule.title}: stays silent on silent[${index}] (${describeScenario(scenario)})`,
      { todo: scenario.todo },
      () => {
        const { fired, unmatched } = run(rule, scenario);
        assert.deepEqual(unmatched, [], 'a near miss must be counted by the base rule: records it did not match');
        assert.ok(!fired, 'the correlation fired');
      },
    );
  });
}

for (const fixture of fixtures) {
  describe(`rules/sightline/${fixture.file}`, () => {
    for (const item of fixture.cases) caseTests(item);
  });
}
