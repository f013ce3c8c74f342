// Turns a chunk of records into what detection stores for them: the normalised process and
// network rows, and observations from rule matches and completed correlations. Pure apart from
// the correlation engine's state, so the caller can commit its output and that state together.
import type { CompiledRule, RuleSet } from './sigma/index.js';
import type { CorrelationEngine, CorrelationHit } from './sigma/correlation.js';
import type { Normaliser, StoredRecord } from '../telemetry/normalise/index.js';
import type { AttackCatalogue } from './attack.js';
import type { NormalisedEvent, FieldValue } from '../telemetry/normalise/event.js';
import type { NetworkRow, ProcessRow } from '../telemetry/process-event-store.js';
import { deviceHostOf, SightingCollector, type DeviceSighting } from '../devices/device-sightings.js';
import { UnrecognisedCounter, type UnrecognisedTally } from '../telemetry/unrecognised/unrecognised-shape.js';
import { LogsourceCollector, type LogsourceSighting } from './logsource-sightings.js';
import { observablesOfEvent } from './observable-extract.js';
import type { ObservableDraft } from './observable-values.js';

export interface EvidenceRecord {
  seq: number;
  /** The fields the rule looked at, as the event had them (absent fields are left out). */
  fields: Record<string, FieldValue>;
}

/** An observation before it has an id: what the store writes, deduplicated by `dedupeKey`. */
export interface ObservationDraft {
  tenantId: number;
  dedupeKey: string;
  source: 'detection' | 'external';
  ruleId: string;
  ruleTitle: string;
  ruleAuthor: string | null;
  ruleType: 'detection' | 'correlation' | 'external';
  level: string;
  /** ATT&CK technique ids (`T1059.004`). */
  techniques: string[];
  /** Tactic short names from the catalogue, or tags it does not know, as given. */
  tactics: string[];
  tags: string[];
  host: string | null;
  /** The device the observation is on, when its event names one (a web record's host does not). */
  deviceHost: string | null;
  firstTime: number;
  lastTime: number;
  recordSeqs: number[];
  evidence: EvidenceRecord[];
  /** Correlations: the group-by values and the aggregated value. */
  correlation?: { group: Record<string, FieldValue>; value: number };
  /** What the evidence names (addresses, domains, hashes, accounts…), for the observation's case. */
  observables: ObservableDraft[];
}

export interface DetectionOutput {
  processRows: ProcessRow[];
  networkRows: NetworkRow[];
  observations: ObservationDraft[];
  /** The devices the chunk's events name, one entry per device. */
  sightings: DeviceSighting[];
  /** The logsources the chunk's events produced, one entry per tenant and logsource (ATT&CK coverage). */
  logsources: LogsourceSighting[];
  /** Records that could not be normalised or evaluated (each one logged by the caller). */
  failures: { seq: number; tenantId: number; error: unknown }[];
  /** Records no shape recognised, per tenant and source shape (absent: none). */
  unrecognised?: UnrecognisedTally[];
}

export interface DetectionParts {
  normaliser: Normaliser;
  ruleSet: RuleSet;
  correlations: CorrelationEngine;
  catalogue: AttackCatalogue;
}

export class DetectionProcessor {
  private readonly suppressed: Set<string>;

  constructor(private readonly parts: DetectionParts) {
    this.suppressed = parts.correlations.suppressedRuleIds();
  }

  process(records: readonly StoredRecord[]): DetectionOutput {
    const output: DetectionOutput = {
      processRows: [],
      networkRows: [],
      observations: [],
      sightings: [],
      logsources: [],
      failures: [],
      unrecognised: [],
    };
    const sightings = new SightingCollector();
    const unrecognised = new UnrecognisedCounter();
    const logsources = new LogsourceCollector();
    for (const record of records) {
      // Before its matches are fed: windows slide on the record's time as it stands here.
      this.parts.correlations.advance(record);
      let event: NormalisedEvent;
      try {
        event = this.parts.normaliser.normalise(record);
      } catch (error) {
        output.failures.push({ seq: record.seq, tenantId: record.tenantId, error });
        continue;
      }
      sightings.add(event);
      if (event.unrecognised) unrecognised.add(record.tenantId, event.unrecognised, record.receivedAt);
      logsources.add(record.tenantId, event.logsources, record.receivedAt);
      if (event.process)
        output.processRows.push({ ...event.process, tenantId: record.tenantId, recordSeq: record.seq });
      if (event.network)
        output.networkRows.push({ ...event.network, tenantId: record.tenantId, recordSeq: record.seq });
      try {
        for (const rule of this.parts.ruleSet.match(event)) {
          if (!this.suppressed.has(rule.id)) output.observations.push(this.fromRule(rule, event));
          for (const hit of this.parts.correlations.observe(rule.id, event))
            output.observations.push(this.fromCorrelation(hit, event));
        }
      } catch (error) {
        output.failures.push({ seq: record.seq, tenantId: record.tenantId, error });
      }
    }
    output.sightings = sightings.take();
    output.unrecognised = unrecognised.take();
    output.logsources = logsources.take();
    return output;
  }

  private fromRule(rule: CompiledRule, event: NormalisedEvent): ObservationDraft {
    const { techniques, tactics } = this.attack(rule.tags);
    return {
      tenantId: event.tenantId,
      dedupeKey: `rule:${rule.id}:${event.seq}`,
      source: 'detection',
      ruleId: rule.id,
      ruleTitle: rule.title,
      ruleAuthor: rule.author ?? null,
      ruleType: 'detection',
      level: rule.level,
      techniques,
      tactics,
      tags: rule.tags,
      host: event.host,
      deviceHost: deviceHostOf(event),
      firstTime: event.time,
      lastTime: event.time,
      recordSeqs: [event.seq],
      evidence: [{ seq: event.seq, fields: pickFields(event, rule.fields) }],
      observables: observablesOfEvent(event),
    };
  }

  private fromCorrelation(hit: CorrelationHit, event: NormalisedEvent): ObservationDraft {
    const correlation = hit.correlation;
    const { techniques, tactics } = this.attack(correlation.tags);
    const seqs = hit.events.map((item) => item.seq);
    return {
      tenantId: hit.tenantId,
      dedupeKey: `correlation:${correlation.id}:${hit.dedupeKey}`,
      source: 'detection',
      ruleId: correlation.id,
      ruleTitle: correlation.title,
      ruleAuthor: correlation.author ?? null,
      ruleType: 'correlation',
      level: correlation.level,
      techniques,
      tactics,
      tags: correlation.tags,
      host: event.host,
      deviceHost: deviceHostOf(event),
      firstTime: hit.firstTime,
      lastTime: hit.lastTime,
      recordSeqs: seqs,
      // The completing event's fields stand for the group; the rest are listed by sequence.
      evidence: [{ seq: event.seq, fields: pickFields(event, correlation.groupBy) }],
      correlation: { group: hit.group, value: hit.value },
      // The completing event is the one at hand; the others are known by sequence only.
      observables: observablesOfEvent(event),
    };
  }

  private attack(tags: string[]): { techniques: string[]; tactics: string[] } {
    const mapped = this.parts.catalogue.fromTags(tags);
    return {
      techniques: mapped.techniques.map((technique) => technique.id),
      tactics: mapped.tactics.map((tactic) => tactic.shortname),
    };
  }
}

function pickFields(event: NormalisedEvent, names: readonly string[]): Record<string, FieldValue> {
  const picked: Record<string, FieldValue> = {};
  for (const name of names) {
    const value = event.fields[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}
