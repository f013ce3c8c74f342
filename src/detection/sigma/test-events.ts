// Test factories for the Sigma engine's unit tests: DetectionEvents with sensible defaults, and
// a one-rule compiler that fails loudly when the rule text is rejected.
import assert from 'node:assert/strict';
import type { NormalisedEvent, FieldValue, LogSource, RecordFamily } from '../../telemetry/normalise/event.js';
import { compileRuleText, type LoadOptions } from './loader.js';
import type { CompiledRule } from './types.js';

export const T0 = Date.UTC(2025, 0, 1);

let nextSeq = 1;

export interface EventOverrides {
  seq?: number;
  tenantId?: number;
  time?: number;
  family?: RecordFamily;
  logsources?: LogSource[];
  host?: string | null;
  fields?: Record<string, FieldValue>;
  keywords?: string;
}

/** A NormalisedEvent; every key can be overridden. */
export function makeEvent(overrides: EventOverrides = {}): NormalisedEvent {
  return {
    seq: overrides.seq ?? nextSeq++,
    tenantId: overrides.tenantId ?? 1,
    time: overrides.time ?? T0,
    family: overrides.family ?? 'process',
    logsources: overrides.logsources ?? [{ category: 'process_creation', product: 'windows' }],
    host: overrides.host === undefined ? 'host-1' : overrides.host,
    fields: overrides.fields ?? {},
    keywords: overrides.keywords ?? '',
  };
}

/** An event with only these fields (the usual case in matcher tests). */
export function withFields(fields: Record<string, FieldValue>, keywords = ''): NormalisedEvent {
  return makeEvent({ fields, keywords });
}

/** A keyword-only event: free text, no fields. */
export function withKeywords(keywords: string): NormalisedEvent {
  return makeEvent({ keywords });
}

let nextRule = 1;

/** A whole rule document around a detection section (indented under `detection:`). */
export function ruleYaml(
  detection: string,
  extra: { id?: string; title?: string; logsource?: string; more?: string } = {},
): string {
  const id = extra.id ?? `rule-${nextRule++}`;
  const logsource = extra.logsource ?? '  category: process_creation\n  product: windows';
  const body = detection
    .replace(/^\n+|\s+$/g, '')
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
  return `title: ${extra.title ?? `Test rule ${id}`}\nid: ${id}\n${extra.more ?? ''}logsource:\n${logsource}\ndetection:\n${body}\n`;
}

/** Compiles exactly one rule from a detection section; fails the test if it is rejected. */
export function compileOne(detection: string, options: LoadOptions = {}): CompiledRule {
  const result = compileRuleText(ruleYaml(detection), 'test.yml', options);
  assert.deepEqual(
    result.rejected,
    [],
    `the rule was rejected: ${result.rejected.map((entry) => entry.message).join('; ')}`,
  );
  assert.equal(result.rules.length, 1);
  const [rule] = result.rules;
  assert.ok(rule);
  return rule;
}

/** Compiles one field item `key: value` (YAML text) in `selection`, condition `selection`. */
export function compileItem(item: string, options: LoadOptions = {}): CompiledRule {
  return compileOne(`selection:\n${item.replace(/^/gm, '  ')}\ncondition: selection`, options);
}
