// What a compiled detection item is — a test over an EventView, with what the pre-filter may
// require of the event — and the error a modifier refuses a rule with.
import type { EventView } from './event-view.js';

export type Matcher = (view: EventView) => boolean;

/**
 * Where the literal must be in one of the field's folded texts: anywhere in it, at its start, at
 * its end, or the whole text. A pattern like `*\cmd.exe` puts its literal at the end: the
 * pre-filter then looks at the text's end instead of searching all of it.
 */
export type Anchor = 'anywhere' | 'start' | 'end' | 'whole';

/** One literal the pre-filter can look for: in this field, folded, at this place. */
export interface Needed {
  field: string;
  literal: string;
  at: Anchor;
}

/** At least one of these must occur in the event; null: no requirement. */
export type Requirement = Needed[] | null;

/** Requirements that must all hold, each by one of its literals; empty: none. */
export type Clauses = NonNullable<Requirement>[];

export interface CompiledItem {
  match: Matcher;
  requirement: Requirement;
  fields: string[];
  /** Every requirement an ANDed condition implies (absent: just `requirement`). */
  clauses?: Clauses;
}

/** What the pre-filter may require of an event for the item to match: all of these. */
export function clausesOf(item: CompiledItem): Clauses {
  if (item.clauses) return item.clauses;
  return item.requirement === null || item.requirement.length === 0 ? [] : [item.requirement];
}

/** How well a requirement prunes, as `bestRequirement` ranks them: the longest shortest literal, then fewer. */
export function requirementScore(requirement: NonNullable<Requirement>): number {
  return Math.min(...requirement.map((entry) => entry.literal.length)) * 1000 - requirement.length;
}

/** Thrown for what a rule may not say; the compiler wraps it with the file and rule. */
export class ModifierError extends Error {
  constructor(
    readonly construct: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ItemContext {
  placeholders: Readonly<Record<string, readonly string[]>>;
}

/** Of requirements that must all hold, the one the pre-filter can use best: the longest shortest literal. */
export function bestRequirement(requirements: Requirement[]): Requirement {
  let best: Requirement = null;
  let bestScore = -1;
  for (const requirement of requirements) {
    if (requirement === null || requirement.length === 0) continue;
    const score = requirementScore(requirement);
    if (score > bestScore) {
      best = requirement;
      bestScore = score;
    }
  }
  return best;
}

/** The entries without repeats (the same literal at the same place in the same field). */
export function distinct(requirement: Needed[]): Needed[] {
  const seen = new Set<string>();
  return requirement.filter((entry) => {
    const key = `${entry.field}\u0000${entry.at}\u0000${entry.literal}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
