// Sigma correlation rules (specification v2): compiling a document with a `correlation` section
// (the engine that runs them is correlation.ts).
//
// Semantics, decided here and relied on by the tests:
// - State is kept per (correlation, tenant, group-by values). Group-by values are read from
//   event.fields under the name the correlation's `aliases` give for the matching rule (else the
//   group-by name itself); an event lacking the field groups under null, so it still correlates
//   with other events lacking it. Two tenants never share state.
// - Windows slide on event time, never the wall clock: a window holds the matches whose time is
//   within `timespan` (inclusive) of the newest match of the group; older ones drop out.
// - The value is the number of matches (event_count), of distinct values of `condition.field`
//   as written — case-sensitive, absent/null not counted (value_count), of referenced rules seen
//   (temporal), or of referenced rules seen in the listed order (temporal_ordered; order is the
//   order matches are observed, i.e. record order). temporal* without a condition need all rules.
// - The condition is checked as each match arrives. When it holds, the correlation fires and that
//   group's window is reset, so the next alert needs a fresh set of matches. Because a value grows
//   by at most one per match, a correlation fires when the value first reaches the smallest count
//   the condition accepts: lt/lte/eq/neq narrow that count but cannot mean "at most N per window"
//   (that needs end-of-window evaluation), so a condition without a lower bound is refused.
// - Memory per group is bounded: event_count keeps one timestamp per match (at most the threshold,
//   itself capped at MAX_THRESHOLD) and the newest MAX_HIT_EVENTS matches; value_count keeps the
//   newest match per distinct value; temporal the newest per rule; temporal_ordered one best chain
//   per prefix length.
// - generate (default false, per the spec): the referenced rules make no alerts of their own
//   unless a correlation referring to them says `generate: true`. A correlation that refers to
//   another correlation is fed the inner one's hits (its fields: the completing event's fields
//   overlaid with the inner group); an inner correlation so referenced reports its own hits only
//   under the same `generate` rule.
import type { FieldValue } from '../../telemetry/normalise/event.js';
import { RuleError } from './errors.js';
import type { RuleMetadata } from './types.js';

export type CorrelationType = 'event_count' | 'value_count' | 'temporal' | 'temporal_ordered';
const TYPES: readonly string[] = ['event_count', 'value_count', 'temporal', 'temporal_ordered'];
const OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq'] as const;
type Operator = (typeof OPERATORS)[number];
export type CorrelationCondition = Partial<Record<Operator, number>>;
const LEVELS: readonly string[] = ['informational', 'low', 'medium', 'high', 'critical'];
// The spec's units: seconds, minutes, hours, days (no weeks).
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SECTION_KEYS: readonly string[] = ['type', 'rules', 'aliases', 'group-by', 'timespan', 'condition', 'generate'];

/** How many matches a hit lists (the newest ones); the value still counts them all. */
export const MAX_HIT_EVENTS = 100;
/** The largest count a condition may ask for: event_count keeps a timestamp per match. */
export const MAX_THRESHOLD = 10_000;

export interface CompiledCorrelation extends RuleMetadata {
  type: CorrelationType;
  /** Resolved ids of the referenced rules and correlations, in the order written. */
  rules: string[];
  /** [] when absent. */
  groupBy: string[];
  timespanMs: number;
  generate: boolean;
  condition: CorrelationCondition;
  /** The smallest value the condition accepts: the value at which the correlation fires. */
  threshold: number;
  /** value_count: the field whose distinct values are counted. */
  valueField?: string;
  /** Alias name → referenced rule id → the field that rule's events carry it in. */
  aliases: Record<string, Record<string, string>>;
}

export interface CorrelationHit {
  correlation: CompiledCorrelation;
  tenantId: number;
  /** Group-by name → value (null when the event lacked it). */
  group: Record<string, FieldValue>;
  /**
   * The matches that made it fire, oldest first, at most MAX_HIT_EVENTS (the newest). For a
   * correlation of correlations an inner hit appears as its completing match, with the inner id.
   */
  events: { seq: number; time: number; ruleId: string }[];
  firstTime: number;
  lastTime: number;
  value: number;
  /** `${tenantId}:${group hash}:${completing seq}:${completing rule id}`: replays give the same key. */
  dedupeKey: string;
}

type Resolve = (ref: string) => { id: string; kind: 'rule' | 'correlation' } | undefined;

export function compileCorrelation(doc: Record<string, unknown>, file: string, resolve: Resolve): CompiledCorrelation {
  const who = {
    id: typeof doc.id === 'string' ? doc.id : undefined,
    title: typeof doc.title === 'string' ? doc.title : undefined,
  };
  function fail(construct: string, message: string): never {
    throw new RuleError(file, construct, message, who);
  }
  const text = (key: string): string | undefined => {
    const value = doc[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value.trim() === '') fail(key, `${key} must be a non-empty string`);
    return value;
  };
  const title = text('title') ?? fail('title', 'a correlation needs a title');
  const name = text('name');
  const id =
    text('id') ?? name ?? fail('id', 'a correlation needs an id or a name: alerts and window state are keyed by it');
  const level = (text('level') ?? 'medium').toLowerCase();
  if (!LEVELS.includes(level)) fail('level', `level must be one of ${LEVELS.join(', ')}`);
  const tags = stringList(doc.tags, () => fail('tags', 'tags must be a list of strings')).map((tag) =>
    tag.toLowerCase(),
  );

  const section = doc.correlation;
  if (!isRecord(section)) fail('correlation', 'correlation must be a mapping');
  for (const key of Object.keys(section)) {
    if (!SECTION_KEYS.includes(key)) fail(`correlation.${key}`, `unknown correlation attribute '${key}'`);
  }
  const type = section.type;
  if (typeof type !== 'string' || !TYPES.includes(type))
    fail('correlation.type', `type must be one of ${TYPES.join(', ')}, not ${JSON.stringify(type)}`);

  const refs =
    typeof section.rules === 'string'
      ? [section.rules]
      : stringList(section.rules, () => fail('correlation.rules', 'rules must be a list of rule names or ids'));
  if (refs.length === 0) fail('correlation.rules', 'rules must name at least one rule');
  const resolveRef = (ref: string, construct: string): string => {
    const target = resolve(ref) ?? fail(construct, `no rule or correlation has the name or id '${ref}'`);
    if (target.id === id) fail(construct, `the correlation refers to itself ('${ref}')`);
    return target.id;
  };
  const rules = refs.map((ref) => resolveRef(ref, 'correlation.rules'));
  if (new Set(rules).size !== rules.length) fail('correlation.rules', 'rules lists the same rule twice');

  const groupBy =
    typeof section['group-by'] === 'string'
      ? [section['group-by']]
      : stringList(section['group-by'], () => fail('correlation.group-by', 'group-by must be a list of field names'));
  if (new Set(groupBy).size !== groupBy.length) fail('correlation.group-by', 'group-by lists the same field twice');

  const timespan = section.timespan;
  const span = typeof timespan === 'string' ? /^([1-9][0-9]*)([smhd])$/.exec(timespan) : null;
  if (!span)
    fail(
      'correlation.timespan',
      `timespan must be a number and one of s, m, h, d (e.g. 30s, 5m, 1h, 1d), not ${JSON.stringify(timespan)}`,
    );
  const timespanMs = Number(span[1]) * (UNIT_MS[span[2] ?? ''] ?? 0);

  const aliases: Record<string, Record<string, string>> = {};
  if (section.aliases !== undefined && section.aliases !== null) {
    if (!isRecord(section.aliases))
      fail('correlation.aliases', 'aliases must map alias names to {rule: field} mappings');
    for (const [alias, mapping] of Object.entries(section.aliases)) {
      if (!isRecord(mapping)) fail('correlation.aliases', `alias '${alias}' must map rule names to field names`);
      const byRule: Record<string, string> = {};
      for (const [ref, field] of Object.entries(mapping)) {
        if (typeof field !== 'string' || field === '')
          fail('correlation.aliases', `alias '${alias}': the field for '${ref}' must be a string`);
        const ruleId = resolveRef(ref, 'correlation.aliases');
        if (!rules.includes(ruleId))
          fail('correlation.aliases', `alias '${alias}' names '${ref}', which the correlation does not refer to`);
        byRule[ruleId] = field;
      }
      aliases[alias] = byRule;
    }
  }

  const { condition, valueField } = compileCondition(section.condition, type as CorrelationType, rules.length, fail);
  const threshold = smallestAccepted(condition) ?? fail('correlation.condition', 'the condition can never hold');
  if (threshold > MAX_THRESHOLD)
    fail('correlation.condition', `counts above ${MAX_THRESHOLD} are not supported (window state is kept per group)`);
  if ((type === 'temporal' || type === 'temporal_ordered') && threshold > rules.length) {
    fail(
      'correlation.condition',
      `the condition needs ${threshold} rules but the correlation refers to ${rules.length}`,
    );
  }

  const generate = generateFlag(doc.generate, section.generate, fail);
  const correlation: CompiledCorrelation = {
    id,
    title,
    level,
    tags,
    type: type as CorrelationType,
    rules,
    groupBy,
    timespanMs,
    file,
    generate,
    condition,
    threshold,
    aliases,
  };
  if (name !== undefined) correlation.name = name;
  for (const key of ['description', 'status', 'author'] as const) {
    const value = text(key);
    if (value !== undefined) correlation[key] = value;
  }
  if (valueField !== undefined) correlation.valueField = valueField;
  return correlation;
}

function compileCondition(
  raw: unknown,
  type: CorrelationType,
  ruleCount: number,
  fail: (construct: string, message: string) => never,
): { condition: CorrelationCondition; valueField?: string } {
  const temporal = type === 'temporal' || type === 'temporal_ordered';
  if (raw === undefined || raw === null) {
    if (temporal) return { condition: { gte: ruleCount } };
    fail('correlation.condition', `a ${type} correlation needs a condition (e.g. gte: 10)`);
  }
  if (!isRecord(raw)) fail('correlation.condition', 'condition must be a mapping such as {gte: 10}');
  const condition: CorrelationCondition = {};
  let valueField: string | undefined;
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'field') {
      if (type !== 'value_count') fail('correlation.condition.field', `field is only for value_count, not ${type}`);
      if (typeof value !== 'string' || value === '')
        fail('correlation.condition.field', 'field must be one field name');
      valueField = value;
    } else if ((OPERATORS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
        fail('correlation.condition', `${key} must be a non-negative integer`);
      condition[key as Operator] = value;
    } else {
      fail('correlation.condition', `unknown condition operator '${key}' (use gt, gte, lt, lte, eq, neq)`);
    }
  }
  if (type === 'value_count' && valueField === undefined)
    fail(
      'correlation.condition.field',
      'value_count needs condition.field, the field whose distinct values are counted',
    );
  if (condition.gt === undefined && condition.gte === undefined && condition.eq === undefined) {
    fail(
      'correlation.condition',
      'the condition needs a lower bound (gt, gte or eq): it is checked as each match arrives, so "fewer than N in the window" cannot be decided',
    );
  }
  return valueField === undefined ? { condition } : { condition, valueField };
}

function generateFlag(top: unknown, inSection: unknown, fail: (construct: string, message: string) => never): boolean {
  // The spec lists generate beside level; pySigma reads it inside the correlation section. Accept both.
  for (const [construct, value] of [
    ['generate', top],
    ['correlation.generate', inSection],
  ] as const) {
    if (value !== undefined && typeof value !== 'boolean') fail(construct, 'generate must be true or false');
  }
  if (typeof top === 'boolean' && typeof inSection === 'boolean' && top !== inSection)
    fail('generate', 'generate is given twice with different values');
  return (top ?? inSection ?? false) as boolean;
}

export function satisfies(condition: CorrelationCondition, value: number): boolean {
  return (
    (condition.gt === undefined || value > condition.gt) &&
    (condition.gte === undefined || value >= condition.gte) &&
    (condition.lt === undefined || value < condition.lt) &&
    (condition.lte === undefined || value <= condition.lte) &&
    (condition.eq === undefined || value === condition.eq) &&
    (condition.neq === undefined || value !== condition.neq)
  );
}

/** The smallest count ≥ 1 the condition accepts (a lower bound is required, neq can skip one). */
function smallestAccepted(condition: CorrelationCondition): number | undefined {
  const lower = Math.max(1, condition.gte ?? 0, (condition.gt ?? -1) + 1, condition.eq ?? 0);
  return [lower, lower + 1].find((count) => satisfies(condition, count));
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown, onError: () => never): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item !== '')) onError();
  return value as string[];
}
