// Checks a value against the ATT&CK Navigator layer format 4.5 (mitre-attack/attack-navigator,
// layers/LAYERFORMATv4_5.md): the required properties and the type of every property the
// specification defines, with a message naming the property that is wrong.
import assert from 'node:assert/strict';

export interface CheckedLayer {
  name: string;
  techniques: { techniqueID: string; score?: number; color?: string; showSubtechniques?: boolean }[];
  legendItems: { label: string; color: string }[];
}

const DOMAINS = ['enterprise-attack', 'mobile-attack', 'ics-attack'];
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

type Json = Record<string, unknown>;

function object(value: unknown, where: string): Json {
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `${where} must be an object`);
  return value as Json;
}

function optional(json: Json, key: string, type: 'string' | 'number' | 'boolean', where: string): void {
  if (json[key] !== undefined) assert.equal(typeof json[key], type, `${where}.${key} must be a ${type}`);
}

function required(json: Json, key: string, type: 'string' | 'number' | 'boolean', where: string): void {
  assert.ok(key in json, `${where}.${key} is required`);
  optional(json, key, type, where);
}

function list(json: Json, key: string, where: string): unknown[] {
  const value = json[key] ?? [];
  assert.ok(Array.isArray(value), `${where}.${key} must be an array`);
  return value;
}

/** Metadata entries are { name, value } strings or { divider: boolean }. */
function metadata(items: unknown[], where: string): void {
  for (const [i, item] of items.entries()) {
    const entry = object(item, `${where}[${i}]`);
    if ('divider' in entry) required(entry, 'divider', 'boolean', `${where}[${i}]`);
    else {
      required(entry, 'name', 'string', `${where}[${i}]`);
      required(entry, 'value', 'string', `${where}[${i}]`);
    }
  }
}

function versionAtLeast(version: string, minimum: number[]): boolean {
  const parts = version.split('.').map(Number);
  for (const [i, want] of minimum.entries()) {
    const have = parts[i] ?? 0;
    if (have !== want) return have > want;
  }
  return true;
}

export function assertNavigatorLayer(value: unknown): CheckedLayer {
  const layer = object(value, 'layer');
  required(layer, 'name', 'string', 'layer');
  required(layer, 'domain', 'string', 'layer');
  assert.ok(DOMAINS.includes(layer.domain as string), `layer.domain must be one of ${DOMAINS.join(', ')}`);
  optional(layer, 'description', 'string', 'layer');
  const versions = object(layer.versions, 'layer.versions');
  optional(versions, 'attack', 'string', 'layer.versions');
  required(versions, 'navigator', 'string', 'layer.versions');
  assert.ok(versionAtLeast(versions.navigator as string, [4, 9, 0]), 'layer.versions.navigator must be at least 4.9.0');
  assert.equal(versions.layer, '4.5', 'layer.versions.layer must be "4.5"');
  optional(layer, 'sorting', 'number', 'layer');
  assert.ok([undefined, 0, 1, 2, 3].includes(layer.sorting as number | undefined), 'layer.sorting must be 0-3');
  optional(layer, 'hideDisabled', 'boolean', 'layer');
  if (layer.layout !== undefined) {
    const layout = object(layer.layout, 'layer.layout');
    assert.ok(['side', 'flat', 'mini', undefined].includes(layout.layout as string | undefined), 'layer.layout.layout');
    for (const key of ['showID', 'showName', 'showAggregateScores', 'countUnscored'])
      optional(layout, key, 'boolean', 'layer.layout');
    assert.ok(
      ['none', 'all', 'annotated', undefined].includes(layout.expandedSubtechniques as string | undefined),
      'layer.layout.expandedSubtechniques',
    );
  }
  for (const [i, item] of list(layer, 'techniques', 'layer').entries()) {
    const where = `layer.techniques[${i}]`;
    const technique = object(item, where);
    required(technique, 'techniqueID', 'string', where);
    assert.match(technique.techniqueID as string, /^T\d{4}(\.\d{3})?$/, `${where}.techniqueID`);
    optional(technique, 'tactic', 'string', where);
    optional(technique, 'comment', 'string', where);
    optional(technique, 'enabled', 'boolean', where);
    optional(technique, 'score', 'number', where);
    optional(technique, 'color', 'string', where);
    if (technique.color !== undefined && technique.color !== '')
      assert.match(technique.color as string, HEX_COLOR, `${where}.color`);
    optional(technique, 'showSubtechniques', 'boolean', where);
    metadata(list(technique, 'metadata', where), `${where}.metadata`);
  }
  if (layer.gradient !== undefined) {
    const gradient = object(layer.gradient, 'layer.gradient');
    const colors = list(gradient, 'colors', 'layer.gradient');
    assert.ok(colors.length >= 2, 'layer.gradient.colors needs at least two colours');
    for (const color of colors) assert.match(String(color), HEX_COLOR, 'layer.gradient.colors');
    required(gradient, 'minValue', 'number', 'layer.gradient');
    required(gradient, 'maxValue', 'number', 'layer.gradient');
    assert.ok((gradient.maxValue as number) > (gradient.minValue as number), 'layer.gradient.maxValue > minValue');
  }
  for (const [i, item] of list(layer, 'legendItems', 'layer').entries()) {
    const legend = object(item, `layer.legendItems[${i}]`);
    required(legend, 'label', 'string', `layer.legendItems[${i}]`);
    required(legend, 'color', 'string', `layer.legendItems[${i}]`);
  }
  metadata(list(layer, 'metadata', 'layer'), 'layer.metadata');
  return value as CheckedLayer;
}
