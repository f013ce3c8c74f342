// What the Sigma engine hands to the rest of detection: compiled rules, compiled correlations,
// and what a directory of rule files compiled to (with every rejected rule and why).
import type { NormalisedEvent, LogSource } from '../../telemetry/normalise/event.js';
import type { EventView } from './event-view.js';
import type { Clauses, Requirement } from './item.js';

/** What every compiled rule, detection or correlation, says about itself. */
export interface RuleMetadata {
  id: string;
  /** The rule's `name` (spec v2), which correlations may refer to instead of the id. */
  name?: string;
  title: string;
  description?: string;
  status?: string;
  /** `informational`, `low`, `medium`, `high`, `critical` (`medium` when the rule omits it). */
  level: string;
  author?: string;
  /** As written, lower-cased: `attack.t1059.001`, `attack.execution`, `cve.2021-44228`. */
  tags: string[];
  /** The file the rule came from. */
  file: string;
}

/** A Sigma detection rule, compiled to a matcher. */
export interface CompiledRule extends RuleMetadata {
  logsource: LogSource;
  /** The fields the detection looks at, for evidence. */
  fields: string[];
  /**
   * (field, folded literal) pairs of which an event must contain at least one for the rule to
   * possibly match (the pre-filter); null when the rule can match without any (`not`, `lt`, …).
   */
  requirement: Requirement;
  /**
   * Every such requirement the condition implies (`requirement` is the best of them): the
   * pre-filter evaluates the rule only when all of the ones it indexes hold.
   */
  clauses: Clauses;
  /** Whether the event matches the rule's condition (the logsource is not checked here). */
  match: (event: NormalisedEvent) => boolean;
  /** The same over a shared view, so that many rules fold each field once. */
  test: (view: EventView) => boolean;
}

/** A rule file, or one document of it, that did not compile. */
export interface RejectedRule {
  file: string;
  id?: string;
  title?: string;
  /** The construct refused: `modifier 'foo'`, `condition`, `correlation.type`, `yaml`, … */
  construct: string;
  /** Names the file, the rule and what was wrong. */
  message: string;
}
