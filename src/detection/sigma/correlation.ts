// The correlation engine: folds detection matches into per-group sliding windows (semantics in
// correlation-compile.ts, which compiles the rules), and hands the caller the changed state to
// commit in the same transaction as its cursor.
//
// Windows slide on event time: each tenant has a watermark, the newest record time seen, and a
// match is fed against it as it stands at that record. So the outcome depends only on each
// tenant's record order, never on how the log was cut into chunks (an embedded chunk, a scale-out
// worker's batch, the batch after a stream partition moved): the watermark is saved with the windows.
import { createHash } from 'node:crypto';
import type { NormalisedEvent, FieldValue } from '../../telemetry/normalise/event.js';
import { RuleError } from './errors.js';
import {
  isRecord,
  MAX_HIT_EVENTS,
  satisfies,
  type CompiledCorrelation,
  type CorrelationHit,
} from './correlation-compile.js';

export {
  compileCorrelation,
  MAX_HIT_EVENTS,
  MAX_THRESHOLD,
  satisfies,
  type CompiledCorrelation,
  type CorrelationCondition,
  type CorrelationHit,
  type CorrelationType,
} from './correlation-compile.js';

interface Entry {
  seq: number;
  time: number;
  ruleId: string;
  /** value_count: the counted value, as JSON (so 1 and "1" stay distinct). */
  value?: string;
}

interface GroupState {
  correlationId: string;
  /** The correlation's definition when the state was built: state of a changed rule is dropped. */
  fingerprint: string;
  tenantId: number;
  group: FieldValue[];
  newest: number;
  /** event_count: the time of every match in the window. */
  times: number[];
  /** event_count: the newest matches; value_count: the newest per value; temporal: the newest per rule. */
  entries: Entry[];
  /** temporal_ordered: chains[j] matches rules[0..j] in order, the one starting latest; else null. */
  chains: (Entry[] | null)[];
}

/** How far ahead of its receive time a record's own time may move its tenant's windows. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** What moves a tenant's watermark: a record's own time, and when it was received. */
export interface TimedRecord {
  tenantId: number;
  /** The record's own time, or its receive time when it had none. */
  eventTime: number;
  receivedAt: number;
}

const WATERMARK_KEY = 'watermark';

export class CorrelationEngine {
  private readonly byId = new Map<string, CompiledCorrelation>();
  private readonly byRule = new Map<string, CompiledCorrelation[]>();
  private readonly fingerprints = new Map<string, string>();
  /** Correlations only referenced by others that do not `generate`: fed on, never reported. */
  private readonly hidden = new Set<string>();
  private readonly suppressed = new Set<string>();
  private states = new Map<string, GroupState>();
  private dirty = new Set<string>();
  /** Per tenant: the newest record time seen (capped), against which windows slide. */
  private watermarks = new Map<number, number>();
  private dirtyWatermarks = new Set<number>();
  /** Per tenant: the newest receive time seen, the clock of a tenant without an event watermark. */
  private receiveClocks = new Map<number, number>();
  /** Restored keys of correlations that no longer exist or changed: deleted at the next expire. */
  private orphans = new Set<string>();

  constructor(correlations: readonly CompiledCorrelation[]) {
    for (const correlation of correlations) {
      if (this.byId.has(correlation.id))
        throw new RuleError(correlation.file, 'id', `two correlations have the id '${correlation.id}'`, correlation);
      this.byId.set(correlation.id, correlation);
      this.fingerprints.set(correlation.id, fingerprint(correlation));
      for (const ruleId of correlation.rules)
        this.byRule.set(ruleId, [...(this.byRule.get(ruleId) ?? []), correlation]);
    }
    for (const [ruleId, users] of this.byRule) {
      if (users.some((user) => user.generate)) continue;
      this.suppressed.add(ruleId);
      if (this.byId.has(ruleId)) this.hidden.add(ruleId);
    }
    for (const correlation of correlations) this.checkAcyclic(correlation, []);
  }

  observe(ruleId: string, event: NormalisedEvent): CorrelationHit[] {
    const hits: CorrelationHit[] = [];
    const queue: { ruleId: string; fields: Record<string, FieldValue> }[] = [{ ruleId, fields: event.fields }];
    for (let item = queue.shift(); item; item = queue.shift()) {
      for (const correlation of this.byRule.get(item.ruleId) ?? []) {
        const hit = this.feed(correlation, item.ruleId, event, item.fields);
        if (!hit) continue;
        if (!this.hidden.has(correlation.id)) hits.push(hit);
        if (this.byRule.has(correlation.id))
          queue.push({ ruleId: correlation.id, fields: { ...item.fields, ...hit.group } });
      }
    }
    return hits;
  }

  suppressedRuleIds(): Set<string> {
    return new Set(this.suppressed);
  }

  /**
   * Moves the record's tenant's watermark; called for every record before its matches are fed.
   * A record's own time is the sender's word, so it is capped at its receive time plus
   * MAX_CLOCK_SKEW_MS (a record dated in the future cannot push windows past the present). A
   * record without a time of its own (its receive time stands in) moves nothing: the clock of
   * the receiving server is not event time, and a replay of old records mixed with such records
   * would otherwise see every window of its tenant expire at once.
   */
  advance(record: TimedRecord): void {
    if (record.receivedAt > (this.receiveClocks.get(record.tenantId) ?? Number.NEGATIVE_INFINITY))
      this.receiveClocks.set(record.tenantId, record.receivedAt);
    if (record.eventTime === record.receivedAt) return;
    const time = Math.min(record.eventTime, record.receivedAt + MAX_CLOCK_SKEW_MS);
    if (time <= (this.watermarks.get(record.tenantId) ?? Number.NEGATIVE_INFINITY)) return;
    this.watermarks.set(record.tenantId, time);
    this.dirtyWatermarks.add(record.tenantId);
  }

  /**
   * Drops matches older than their tenant's watermark minus the timespan, so state does not
   * grow with groups that are never fed again (a group fed again slides by the watermark anyway).
   * Watermarks are per tenant, so one tenant's clock never expires another's windows.
   */
  expire(): void {
    for (const key of this.orphans) this.dirty.add(key);
    this.orphans.clear();
    for (const [key, state] of this.states) {
      const correlation = this.byId.get(state.correlationId);
      const watermark = this.watermarks.get(state.tenantId);
      // A tenant none of whose records had a time of its own lives in receive time: its windows
      // slide on the receive clock, as feeding them again would slide them anyway.
      const clock = watermark ?? this.receiveClocks.get(state.tenantId);
      if (!correlation || clock === undefined || !slide(state, clock - correlation.timespanMs)) continue;
      this.dirty.add(key);
      if (isEmpty(state)) this.states.delete(key);
    }
  }

  /** The windows and watermarks changed since the last call (value null: delete the key). */
  takeChanges(): { key: string; value: string | null }[] {
    const changes = [...this.dirty].map((key) => {
      const state = this.states.get(key);
      return { key, value: state ? JSON.stringify(state) : null };
    });
    for (const tenantId of this.dirtyWatermarks)
      changes.push({ key: `${tenantId}:${WATERMARK_KEY}`, value: String(this.watermarks.get(tenantId)) });
    this.dirty = new Set();
    this.dirtyWatermarks = new Set();
    return changes;
  }

  /** Replaces all state by saved rows (keys start with their tenant id: `<tenant>:…`). */
  restore(rows: { key: string; value: string }[]): void {
    this.states = new Map();
    this.dirty = new Set();
    this.orphans = new Set();
    this.watermarks = new Map();
    this.dirtyWatermarks = new Set();
    this.receiveClocks = new Map();
    for (const row of rows) {
      const watermark = parseWatermark(row.key, row.value);
      if (watermark) {
        this.watermarks.set(watermark.tenantId, watermark.time);
        continue;
      }
      const state = parseState(row.key, row.value);
      if (this.fingerprints.get(state.correlationId) === state.fingerprint) this.states.set(row.key, state);
      else this.orphans.add(row.key);
    }
  }

  private feed(
    correlation: CompiledCorrelation,
    ruleId: string,
    event: NormalisedEvent,
    fields: Record<string, FieldValue>,
  ): CorrelationHit | undefined {
    const field = (name: string): FieldValue | undefined => fields[correlation.aliases[name]?.[ruleId] ?? name];
    const entry: Entry = { seq: event.seq, time: event.time, ruleId };
    if (correlation.valueField !== undefined) {
      const value = field(correlation.valueField);
      if (value === undefined || value === null) return undefined;
      entry.value = JSON.stringify(value);
    }
    const group = correlation.groupBy.map((name) => field(name) ?? null);
    const groupHash = createHash('sha256').update(JSON.stringify(group)).digest('hex').slice(0, 32);
    const key = `${event.tenantId}:${correlation.id}:${groupHash}`;
    const state = this.states.get(key) ?? {
      correlationId: correlation.id,
      fingerprint: this.fingerprints.get(correlation.id) ?? '',
      tenantId: event.tenantId,
      group,
      newest: event.time,
      times: [],
      entries: [],
      chains: correlation.type === 'temporal_ordered' ? correlation.rules.map(() => null) : [],
    };
    this.states.set(key, state);
    this.dirty.add(key);
    state.newest = Math.max(state.newest, event.time);
    const watermark = this.watermarks.get(event.tenantId) ?? Number.NEGATIVE_INFINITY;
    const cutoff = Math.max(state.newest, watermark) - correlation.timespanMs;
    slide(state, cutoff);
    if (event.time >= cutoff) add(correlation, state, entry);
    const value = valueOf(correlation, state);
    if (!satisfies(correlation.condition, value)) {
      if (isEmpty(state)) this.states.delete(key);
      return undefined;
    }
    // Fired: reset the group so the next alert needs a fresh set of matches.
    this.states.delete(key);
    const events = hitEvents(correlation, state);
    const times = correlation.type === 'event_count' ? state.times : events.map((item) => item.time);
    return {
      correlation,
      tenantId: event.tenantId,
      group: Object.fromEntries(correlation.groupBy.map((name, index) => [name, group[index] ?? null])),
      events: events.slice(-MAX_HIT_EVENTS).map(({ seq, time, ruleId: id }) => ({ seq, time, ruleId: id })),
      firstTime: Math.min(...times),
      lastTime: Math.max(...times),
      value,
      dedupeKey: `${event.tenantId}:${groupHash}:${event.seq}:${ruleId}`,
    };
  }

  private checkAcyclic(correlation: CompiledCorrelation, path: string[]): void {
    if (path.includes(correlation.id)) {
      throw new RuleError(
        correlation.file,
        'correlation.rules',
        `correlations refer to each other in a cycle: ${[...path, correlation.id].join(' → ')}`,
        correlation,
      );
    }
    for (const ruleId of correlation.rules) {
      const inner = this.byId.get(ruleId);
      if (inner) this.checkAcyclic(inner, [...path, correlation.id]);
    }
  }
}

function add(correlation: CompiledCorrelation, state: GroupState, entry: Entry): void {
  switch (correlation.type) {
    case 'event_count':
      state.times.push(entry.time);
      state.entries.push(entry);
      if (state.entries.length > MAX_HIT_EVENTS) state.entries.shift();
      return;
    case 'value_count':
    case 'temporal': {
      const same = (item: Entry): boolean =>
        correlation.type === 'temporal' ? item.ruleId === entry.ruleId : item.value === entry.value;
      const existing = state.entries.find(same);
      if (existing && existing.time > entry.time) return;
      state.entries = [...state.entries.filter((item) => !same(item)), entry];
      return;
    }
    case 'temporal_ordered': {
      const position = correlation.rules.indexOf(entry.ruleId);
      const prefix = position === 0 ? [] : state.chains[position - 1];
      if (position < 0 || !prefix) return;
      const candidate = [...prefix, entry];
      const current = state.chains[position];
      if (!current || start(candidate) >= start(current)) state.chains[position] = candidate;
      return;
    }
  }
}

function valueOf(correlation: CompiledCorrelation, state: GroupState): number {
  if (correlation.type === 'event_count') return state.times.length;
  if (correlation.type === 'temporal_ordered')
    return state.chains.reduce((longest, chain, index) => (chain ? index + 1 : longest), 0);
  return state.entries.length;
}

function hitEvents(correlation: CompiledCorrelation, state: GroupState): Entry[] {
  if (correlation.type === 'event_count') return state.entries;
  if (correlation.type === 'temporal_ordered')
    return state.chains.reduce<Entry[]>((longest, chain) => chain ?? longest, []);
  return [...state.entries].sort((a, b) => a.time - b.time || a.seq - b.seq);
}

/** Drops what is older than the cutoff; says whether anything was dropped. */
function slide(state: GroupState, cutoff: number): boolean {
  const before = state.times.length + state.entries.length + state.chains.filter(Boolean).length;
  state.times = state.times.filter((time) => time >= cutoff);
  state.entries = state.entries.filter((entry) => entry.time >= cutoff);
  state.chains = state.chains.map((chain) => (chain && start(chain) >= cutoff ? chain : null));
  return state.times.length + state.entries.length + state.chains.filter(Boolean).length !== before;
}

function isEmpty(state: GroupState): boolean {
  return state.times.length === 0 && state.entries.length === 0 && state.chains.every((chain) => chain === null);
}

function start(chain: readonly Entry[]): number {
  return Math.min(...chain.map((entry) => entry.time));
}

function fingerprint(correlation: CompiledCorrelation): string {
  const { type, rules, groupBy, timespanMs, condition, valueField, aliases } = correlation;
  return createHash('sha256')
    .update(JSON.stringify([type, rules, groupBy, timespanMs, condition, valueField ?? null, aliases]))
    .digest('hex')
    .slice(0, 16);
}

/** A stored watermark row (`<tenant>:watermark`), or undefined when the row is a window. */
function parseWatermark(key: string, value: string): { tenantId: number; time: number } | undefined {
  const [tenant, name, rest] = key.split(':');
  if (name !== WATERMARK_KEY || rest !== undefined) return undefined;
  const tenantId = Number(tenant);
  const time = Number(value);
  if (!Number.isSafeInteger(tenantId) || !Number.isFinite(time))
    throw new Error(`correlation watermark ${key} is malformed: ${value.slice(0, 200)}`);
  return { tenantId, time };
}

/** A stored row back to state; a malformed one is an error, never silently dropped. */
function parseState(key: string, value: string): GroupState {
  const state: unknown = JSON.parse(value);
  const entries = (list: unknown): boolean =>
    Array.isArray(list) &&
    list.every(
      (entry) =>
        isRecord(entry) &&
        typeof entry.seq === 'number' &&
        typeof entry.time === 'number' &&
        typeof entry.ruleId === 'string',
    );
  if (
    !isRecord(state) ||
    typeof state.correlationId !== 'string' ||
    typeof state.fingerprint !== 'string' ||
    typeof state.tenantId !== 'number' ||
    !Array.isArray(state.group) ||
    typeof state.newest !== 'number' ||
    !Array.isArray(state.times) ||
    !state.times.every((time) => typeof time === 'number') ||
    !entries(state.entries) ||
    !Array.isArray(state.chains) ||
    !state.chains.every((chain) => chain === null || entries(chain))
  ) {
    throw new Error(`correlation state ${key} is malformed: ${value.slice(0, 200)}`);
  }
  return state as unknown as GroupState;
}
