// Evaluates many rules against an event without trying them all. Rules are routed by logsource
// (an event reaches only the rules its logsources satisfy, merged per distinct set of logsources) and pre-filtered
// by the literals they require: an index over each field's required literals (literal-index.ts)
// finds, in one pass over the event's values, which literals occur, hence which rules can match.
// Only those rules (and the few that require no literal) are evaluated.
import type { NormalisedEvent, LogSource } from '../../telemetry/normalise/event.js';
import { EventView, fieldKey, KEYWORDS, type FieldKey } from './event-view.js';
import type { CompiledRule } from './types.js';
import { Candidates } from './candidates.js';
import { LiteralIndex } from './literal-index.js';
import { requirementScore, type Anchor, type Clauses } from './item.js';

const KEYS = ['category', 'product', 'service'] as const;
/** What the reused view holds before the first event. */
const EMPTY_EVENT: NormalisedEvent = {
  seq: 0,
  tenantId: 0,
  time: 0,
  family: 'other',
  logsources: [],
  host: null,
  fields: {},
  keywords: '',
};
const MAX_ROUTES = 1_024;
/**
 * Of the requirements a rule's condition implies, how many the pre-filter indexes: a second and
 * a third one turn "an event with `type: EXECVE`" into "an EXECVE event naming tcpdump", and more
 * add literals to scan for without pruning much more.
 */
const MAX_CLAUSES = 3;

/** The rule's best requirements (at most MAX_CLAUSES, each once), the best first. */
function indexedClauses(rule: CompiledRule): Clauses {
  const seen = new Set<string>();
  const distinct = rule.clauses.filter((clause) => {
    const key = JSON.stringify(clause);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return distinct
    .map((clause) => ({ clause, score: requirementScore(clause) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_CLAUSES)
    .map((entry) => entry.clause);
}

function bucketKey(source: LogSource): string {
  return `${source.category ?? ''}\u0001${source.product ?? ''}\u0001${source.service ?? ''}`;
}

/** Whether one of the event's logsources has every key the rule states, with an equal value. */
export function appliesTo(rule: CompiledRule, event: NormalisedEvent): boolean {
  return event.logsources.some((source) =>
    KEYS.every((key) => rule.logsource[key] === undefined || (source[key] ?? '').toLowerCase() === rule.logsource[key]),
  );
}

/** The reference: every rule's logsource and condition, in order. What the benchmark compares to. */
export function matchNaively(rules: readonly CompiledRule[], event: NormalisedEvent): CompiledRule[] {
  const view = new EventView(event);
  return rules.filter((rule) => appliesTo(rule, event) && rule.test(view));
}

/**
 * What an event with a given set of logsources is checked against: the rules of every bucket
 * it reaches, merged into one literal index per field, so each field is scanned once.
 */
interface Route {
  always: number[];
  /** Each field with required literals, beside its index (arrays: walked on every event); keywords last. */
  fields: FieldKey[];
  indexes: LiteralIndex[];
  /** Whether the last field is the keywords text. */
  keywords: boolean;
  /** Per field, its literals: what an index of a field's and the keywords' literals is built from. */
  entries: Entry[][];
  /** Per field, that index, built the first time an event's keywords are the field's value. */
  merged: (LiteralIndex | undefined)[];
}

interface Entry {
  literal: string;
  mark: number;
  at: Anchor;
}

function indexOf(entries: readonly Entry[]): LiteralIndex {
  const index = new LiteralIndex();
  for (const { literal, mark, at } of entries) index.add(literal, mark, at);
  return index;
}

export class RuleSet {
  private readonly buckets = new Map<string, number[]>();
  private readonly frozenRoutes = new WeakMap<readonly LogSource[], Route>();
  private readonly routes = new Map<string, Route>();
  private readonly clauses: Clauses[];
  /** Reused across events (one event is matched at a time). */
  private readonly candidates: Candidates;
  private readonly view = new EventView(EMPTY_EVENT);

  constructor(readonly rules: readonly CompiledRule[]) {
    rules.forEach((rule, index) => {
      const key = bucketKey(rule.logsource);
      const bucket = this.buckets.get(key);
      if (bucket) bucket.push(index);
      else this.buckets.set(key, [index]);
    });
    this.clauses = rules.map(indexedClauses);
    this.candidates = new Candidates(
      rules.length,
      this.clauses.map((clauses) => Math.max(1, clauses.length)),
    );
  }

  get size(): number {
    return this.rules.length;
  }

  /** The rules the event matches, in load order. */
  match(event: NormalisedEvent): CompiledRule[] {
    const view = this.view;
    view.reset(event);
    const candidates = this.candidates;
    candidates.reset();
    const route = this.route(event.logsources);
    candidates.mark(route.always);
    const { fields, indexes } = route;
    // The keywords text is often a field's value (a process's command line): that field's text
    // is then searched once for both its own and the keywords' literals.
    const keywords = route.keywords && event.keywords !== '' ? event.keywords : null;
    let keywordsFound = keywords === null;
    const count = route.keywords ? fields.length - 1 : fields.length;
    for (let at = 0; at < count; at++) {
      const field = fields[at];
      let literals = indexes[at];
      if (field === undefined || literals === undefined) continue;
      if (!keywordsFound) {
        const raw = view.texts(field);
        if (raw !== null && raw.length === 1 && raw[0] === keywords) {
          literals = route.merged[at] ??= indexOf([...(route.entries[at] ?? []), ...(route.entries[count] ?? [])]);
          keywordsFound = true;
        }
      }
      const texts = view.folded(field);
      if (texts !== null) for (const text of texts) literals.scan(text, candidates);
    }
    if (!keywordsFound) {
      const field = fields[count];
      const texts = field === undefined ? null : view.folded(field);
      if (texts !== null) for (const text of texts) indexes[count]?.scan(text, candidates);
    }
    // Evaluated as marked; only the (few) matches are put in load order.
    const matched: number[] = [];
    for (const index of candidates.list) {
      const rule = this.rules[index];
      if (rule === undefined) throw new Error(`rule set: candidate ${index} is not a rule index`);
      if (rule.test(view)) matched.push(index);
    }
    if (matched.length > 1) matched.sort((a, b) => a - b);
    const rules: CompiledRule[] = [];
    for (const index of matched) {
      const rule = this.rules[index];
      if (rule !== undefined) rules.push(rule);
    }
    return rules;
  }

  private route(logsources: readonly LogSource[]): Route {
    // Normalised events share frozen logsource arrays: a WeakMap hit without building a key.
    const frozen = Object.isFrozen(logsources);
    if (frozen) {
      const cached = this.frozenRoutes.get(logsources);
      if (cached) return cached;
    }
    const key = logsources.map(bucketKey).join('\u0002');
    let route = this.routes.get(key);
    if (!route) {
      route = this.buildRoute(logsources);
      // Logsource values can come from records (an application's product): bounded, oldest out.
      if (this.routes.size >= MAX_ROUTES) {
        const oldest = this.routes.keys().next();
        if (!oldest.done) this.routes.delete(oldest.value);
      }
      this.routes.set(key, route);
    }
    if (frozen) this.frozenRoutes.set(logsources, route);
    return route;
  }

  /** The buckets an event with these logsources reaches: every subset of each logsource's keys. */
  private buildRoute(logsources: readonly LogSource[]): Route {
    const reached = new Set<number>();
    for (const source of logsources) {
      const stated: [key: (typeof KEYS)[number], value: string][] = [];
      for (const key of KEYS) {
        const value = source[key];
        if (value !== undefined) stated.push([key, value.toLowerCase()]);
      }
      for (let subset = 0; subset < 1 << stated.length; subset++) {
        const partial: LogSource = {};
        stated.forEach(([key, value], bit) => {
          if (subset & (1 << bit)) partial[key] = value;
        });
        for (const index of this.buckets.get(bucketKey(partial)) ?? []) reached.add(index);
      }
    }
    const always: number[] = [];
    const fields = new Map<string, Entry[]>();
    for (const index of [...reached].sort((a, b) => a - b)) {
      const rule = this.rules[index];
      if (rule === undefined) throw new Error(`rule set: bucket entry ${index} is not a rule index`);
      const clauses = this.clauses[index] ?? [];
      if (clauses.length === 0) {
        always.push(index);
        continue;
      }
      clauses.forEach((clause, number) => {
        for (const { field, literal, at } of clause) {
          let entries = fields.get(field);
          if (!entries) {
            entries = [];
            fields.set(field, entries);
          }
          entries.push({ literal, mark: index + number * this.rules.length, at });
        }
      });
    }
    const ordered = [...fields].sort(([a], [b]) => Number(a === KEYWORDS.name) - Number(b === KEYWORDS.name));
    const entries = ordered.map(([, list]) => list);
    return {
      always,
      fields: ordered.map(([name]) => fieldKey(name)),
      indexes: entries.map(indexOf),
      keywords: fields.has(KEYWORDS.name),
      entries,
      merged: entries.map(() => undefined),
    };
  }
}
