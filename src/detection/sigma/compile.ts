// A Sigma detection rule (one parsed YAML document) compiled to a matcher: each named detection
// (a map: AND of its items; a list of maps: OR; a list of strings: keywords) becomes a test, and
// the condition combines them. Also compiles meta filters and computes, for the pre-filter, the
// literals an event must contain for the rule to be able to match.
//
// Absent fields: a value test on a field the event lacks is false — except `field: null` and
// `field|exists: false`, which are true — so `not selection` is true on an event without the
// selection's field (as Splunk's `NOT field=x` and Elastic's `NOT field:x` behave).
import type { LogSource } from '../../telemetry/normalise/event.js';
import { ConditionError, parseCondition, resolveNames, type ConditionNode } from './condition.js';
import { RuleError } from './errors.js';
import { EventView } from './event-view.js';
import {
  bestRequirement,
  clausesOf,
  distinct,
  ModifierError,
  type Clauses,
  type CompiledItem,
  type ItemContext,
  type Matcher,
  type Needed,
  type Requirement,
} from './item.js';
import { compileItem } from './modifiers.js';
import type { CompiledRule } from './types.js';

export const LEVELS = ['informational', 'low', 'medium', 'high', 'critical'];

type Doc = Record<string, unknown>;

export const isMap = (value: unknown): value is Doc =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The rule's identity, for error messages. */
export function who(doc: Doc): { id?: string; title?: string } {
  return {
    id: typeof doc.id === 'string' ? doc.id : undefined,
    title: typeof doc.title === 'string' ? doc.title : undefined,
  };
}

/** Compiles a detection (the rule's, or a filter's) to one matcher. */
export function compileDetection(
  detection: unknown,
  file: string,
  doc: Doc,
  context: ItemContext,
  section = 'detection',
): CompiledItem {
  const reject = (construct: string, message: string): never => {
    throw new RuleError(file, construct, message, who(doc));
  };
  if (!isMap(detection)) return reject(section, `${section} must be a mapping of named searches and a condition`);
  const { condition, timeframe, ...searches } = detection;
  if (timeframe !== undefined)
    reject(`${section}.timeframe`, 'timeframe (Sigma 1 aggregation) is not supported: write a correlation rule');
  const compiled = new Map<string, CompiledItem>();
  for (const [name, value] of Object.entries(searches)) {
    if (section === 'filter' && name === 'rules') continue;
    try {
      compiled.set(name, compileSearch(value));
    } catch (error) {
      if (error instanceof ModifierError) reject(error.construct, `${section}.${name}: ${error.message}`);
      throw error;
    }
  }
  if (compiled.size === 0) reject(section, `${section} has no named search`);
  const conditions = Array.isArray(condition) ? condition : [condition];
  if (condition === undefined || conditions.length === 0 || conditions.some((item) => typeof item !== 'string')) {
    reject(`${section}.condition`, `${section}.condition must be a string or a list of strings`);
  }
  const names = [...compiled.keys()];
  const trees = conditions.map((text) => {
    try {
      return parseCondition(text as string);
    } catch (error) {
      if (error instanceof ConditionError)
        return reject(`${section}.condition`, `condition '${text}': ${error.message}`);
      throw error;
    }
  });
  const build = (node: ConditionNode): CompiledItem => {
    // Every case returns: the switch is exhaustive over the node types.
    switch (node.type) {
      case 'ref': {
        const item = compiled.get(node.name);
        return (
          item ??
          reject(`${section}.condition`, `condition refers to '${node.name}', which the ${section} does not define`)
        );
      }
      case 'not': {
        const inner = build(node.child);
        return { match: (view) => !inner.match(view), requirement: null, fields: inner.fields, clauses: [] };
      }
      case 'and':
        return allOf(node.children.map(build));
      case 'or':
        return anyOf(node.children.map(build));
      case 'of': {
        const matched = resolveNames(node.pattern, names);
        if (matched.length === 0) reject(`${section}.condition`, `'${node.pattern}' in the condition names no search`);
        const items = matched.map(
          (name) =>
            compiled.get(name) ??
            reject(`${section}.condition`, `'${node.pattern}' names '${name}', which is not a search`),
        );
        if (node.quantifier === 'all') return allOf(items);
        if (node.quantifier === 1) return anyOf(items);
        return atLeast(node.quantifier, items);
      }
    }
  };
  return anyOf(trees.map(build));

  function compileSearch(value: unknown): CompiledItem {
    if (isMap(value)) {
      const entries = Object.entries(value);
      if (entries.length === 0) throw new ModifierError('search', 'an empty mapping');
      return allOf(entries.map(([key, item]) => compileItem(key, item, context)));
    }
    if (Array.isArray(value)) {
      if (value.length > 0 && value.every(isMap)) return anyOf(value.map(compileSearch));
      if (value.length > 0 && value.every((item) => typeof item === 'string' || typeof item === 'number'))
        return compileItem('', value, context);
      throw new ModifierError('search', 'a list must hold only mappings or only keywords');
    }
    if (typeof value === 'string' || typeof value === 'number') return compileItem('', [value], context);
    throw new ModifierError('search', `${JSON.stringify(value)} is neither a mapping, a list nor a keyword`);
  }
}

function allOf(items: CompiledItem[]): CompiledItem {
  if (items.length === 1 && items[0]) return items[0];
  const matchers = items.map((item) => item.match);
  const match: Matcher = (view) => {
    for (const matcher of matchers) if (!matcher(view)) return false;
    return true;
  };
  return {
    match,
    requirement: bestRequirement(items.map((item) => item.requirement)),
    fields: items.flatMap((item) => item.fields),
    // Each item must match, so each item's requirements must all hold.
    clauses: items.flatMap(clausesOf),
  };
}

function anyOf(items: CompiledItem[]): CompiledItem {
  if (items.length === 1 && items[0]) return items[0];
  const matchers = items.map((item) => item.match);
  const match: Matcher = (view) => {
    for (const matcher of matchers) if (matcher(view)) return true;
    return false;
  };
  const requirements = items.map((item) => item.requirement);
  const requirement = requirements.some((entry) => entry === null)
    ? null
    : distinct(requirements.flatMap((entry) => entry ?? []));
  return {
    match,
    requirement,
    fields: items.flatMap((item) => item.fields),
    clauses: requirement === null || requirement.length === 0 ? [] : orClauses(items, requirement),
  };
}

/** Past this many combinations an OR's clauses are not multiplied out. */
const MAX_COMBINATIONS = 8;

/**
 * What an OR of items requires, clause by clause: `(a1 and a2) or b` holds only where `a1 or b`
 * and `a2 or b` both do, so each way of taking one clause from every item, joined, is a clause.
 * A rule such as `1 of selection_*`, one selection naming `\rundll32.exe` and `.dat,#1`, is then
 * tried only on events with both (or with another selection's literal), not on every rundll32.
 * Past MAX_COMBINATIONS: one clause, the items' best requirements joined (`requirement`).
 */
function orClauses(items: CompiledItem[], requirement: NonNullable<Requirement>): Clauses {
  const each: Clauses[] = [];
  let combinations = 1;
  for (const item of items) {
    const clauses = clausesOf(item);
    // An item whose clauses say nothing still has its requirement (or the OR has none).
    const usable = clauses.length > 0 ? clauses : item.requirement ? [item.requirement] : null;
    if (usable === null || usable.length === 0) return [requirement];
    each.push(usable);
    combinations *= usable.length;
  }
  if (combinations > MAX_COMBINATIONS) return [requirement];
  let product: Needed[][] = [[]];
  for (const clauses of each) product = product.flatMap((partial) => clauses.map((clause) => [...partial, ...clause]));
  return product.map(distinct);
}

function atLeast(count: number, items: CompiledItem[]): CompiledItem {
  const matchers = items.map((item) => item.match);
  const match: Matcher = (view) => {
    let found = 0;
    for (const matcher of matchers) if (matcher(view) && ++found >= count) return true;
    return false;
  };
  return { ...anyOf(items), match };
}

/** A meta filter, compiled: which rules it names and the condition it ANDs onto them. */
export interface CompiledFilter {
  file: string;
  id?: string;
  title?: string;
  rules: string[];
  logsource: LogSource;
  item: CompiledItem;
}

export function compileFilter(doc: Doc, file: string, context: ItemContext): CompiledFilter {
  const filter = doc.filter;
  if (!isMap(filter))
    throw new RuleError(file, 'filter', 'filter must be a mapping with rules, searches and a condition', who(doc));
  const rules = filter.rules;
  if (!Array.isArray(rules) || rules.length === 0 || rules.some((rule) => typeof rule !== 'string')) {
    throw new RuleError(
      file,
      'filter.rules',
      'filter.rules must list the ids or names of the rules it applies to',
      who(doc),
    );
  }
  return {
    file,
    ...who(doc),
    rules: rules as string[],
    logsource: logsourceOf(doc, file),
    item: compileDetection(filter, file, doc, context, 'filter'),
  };
}

export function logsourceOf(doc: Doc, file: string): LogSource {
  const logsource = doc.logsource;
  if (!isMap(logsource))
    throw new RuleError(file, 'logsource', 'logsource must be a mapping (category, product, service)', who(doc));
  const out: LogSource = {};
  for (const key of ['category', 'product', 'service'] as const) {
    const value = logsource[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.trim() === '')
      throw new RuleError(file, `logsource.${key}`, `logsource.${key} must be non-empty text`, who(doc));
    out[key] = value.toLowerCase();
  }
  return out;
}

/** Compiles one detection rule document; filters are applied later by the loader. */
export function compileRule(doc: Doc, file: string, context: ItemContext): CompiledRule {
  const identity = who(doc);
  const reject = (construct: string, message: string): never => {
    throw new RuleError(file, construct, message, identity);
  };
  if (typeof doc.title !== 'string' || doc.title.trim() === '') reject('title', 'the rule has no title');
  if (typeof doc.id !== 'string' || doc.id.trim() === '')
    reject('id', 'the rule has no id (observations name the rule by it)');
  const stated = doc.level;
  const levelText = stated === undefined ? 'medium' : typeof stated === 'string' ? stated : JSON.stringify(stated);
  const level = levelText.toLowerCase();
  if (!LEVELS.includes(level)) reject('level', `level '${levelText}' is not one of ${LEVELS.join(', ')}`);
  if (doc.tags !== undefined && (!Array.isArray(doc.tags) || doc.tags.some((tag) => typeof tag !== 'string')))
    reject('tags', 'tags must be a list of text');
  const logsource = logsourceOf(doc, file);
  const item = compileDetection(doc.detection, file, doc, context);
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const rule: CompiledRule = {
    id: doc.id as string,
    name: text(doc.name),
    title: doc.title as string,
    description: text(doc.description),
    status: text(doc.status),
    level,
    author: text(doc.author),
    tags: ((doc.tags as string[] | undefined) ?? []).map((tag) => tag.toLowerCase()),
    logsource,
    fields: [...new Set(item.fields)],
    file,
    requirement: item.requirement,
    clauses: clausesOf(item),
    test: item.match,
    match: (event) => item.match(new EventView(event)),
  };
  return rule;
}

/** The rule with a filter's condition ANDed onto it. */
export function applyFilter(rule: CompiledRule, filter: CompiledFilter): CompiledRule {
  const combined = allOf([
    { match: rule.test, requirement: rule.requirement, fields: rule.fields, clauses: rule.clauses },
    filter.item,
  ]);
  return {
    ...rule,
    fields: [...new Set(combined.fields)],
    requirement: combined.requirement,
    clauses: clausesOf(combined),
    test: combined.match,
    match: (event) => combined.match(new EventView(event)),
  };
}
