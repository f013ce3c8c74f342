// Test factories for the correlation tests: the base rules correlations refer to, a compiler for
// correlation YAML, events some minutes after T0, and a feeder that collects every hit.
import { parse } from 'yaml';
import type { NormalisedEvent, FieldValue } from '../../telemetry/normalise/event.js';
import {
  compileCorrelation,
  type CompiledCorrelation,
  type CorrelationEngine,
  type CorrelationHit,
} from './correlation.js';
import { makeEvent, T0 } from './test-events.js';

export const MINUTE = 60_000;

// Base rules the correlations may refer to, by name or id.
const BASE: Record<string, string> = {
  failed_login: 'id-failed',
  successful_login: 'id-success',
  recon_a: 'id-recon-a',
  recon_b: 'id-recon-b',
  internal_error: 'id-internal-error',
  new_network_connection: 'id-new-conn',
};

function resolver(correlations: Record<string, string> = {}) {
  return (ref: string): { id: string; kind: 'rule' | 'correlation' } | undefined => {
    for (const [name, id] of Object.entries(BASE)) if (ref === name || ref === id) return { id, kind: 'rule' };
    for (const [name, id] of Object.entries(correlations))
      if (ref === name || ref === id) return { id, kind: 'correlation' };
    return undefined;
  };
}

export function compile(yaml: string, correlations?: Record<string, string>): CompiledCorrelation {
  return compileCorrelation(parse(yaml) as Record<string, unknown>, 'mr_test.yml', resolver(correlations));
}

/** A correlation document from its `correlation` section (and optional top-level extras). */
export function correlationYaml(section: string, extra = '', id = 'corr-1'): string {
  return `title: Test correlation\nid: ${id}\n${extra}correlation:\n${section.replace(/^/gm, '  ')}\n`;
}

/** A syslog event `minutes` after T0, of tenant 1 unless another is given. */
export function event(minutes: number, fields: Record<string, FieldValue>, tenantId = 1): NormalisedEvent {
  return makeEvent({ tenantId, time: T0 + minutes * MINUTE, family: 'syslog', logsources: [], host: 'web-1', fields });
}

/** Feeds (ruleId, event) pairs; returns every hit. */
export function run(engine: CorrelationEngine, matches: [string, NormalisedEvent][]): CorrelationHit[] {
  return matches.flatMap(([ruleId, item]) => engine.observe(ruleId, item));
}

/** Three failed logins of one user within 10 minutes. */
export const bruteForce = compile(
  correlationYaml('type: event_count\nrules: [failed_login]\ngroup-by: [User]\ntimespan: 10m\ncondition: {gte: 3}'),
);
