// Observations as the API shows them: listing with filters, one with its evidence records, and
// external writes by approved tenants (validated, deduplicated by external id, held to the
// hourly volume the platform approved, and marked external).
import { RawJson } from '../core/exact-json.js';
import type { FindingSource } from '../webhooks/ocsf-findings.js';
import { recordIds, recordSeq } from '../core/record-ids.js';
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { AppError } from '../core/errors.js';
import type { AttackCatalogue, AttackTechnique } from '../detection/attack.js';
import { usableHost } from '../devices/device-sightings.js';
import type { Db } from '../storage/database.js';
import { writeTransaction } from '../storage/write-transaction.js';
import type { ObservationDraft } from '../detection/detection-processor.js';
import { observablesOfFields } from '../detection/observable-extract.js';
import type { FieldValue } from '../telemetry/normalise/event.js';
import type { TenantRow } from '../identity/tenants/tenant-store.js';
import {
  insertObservations,
  countExternalSince,
  findObservation,
  findObservationByKey,
  findRecords,
  listObservations,
  type ObservationFilter,
  type NewObservation,
  type ObservationRow,
} from './observation-store.js';

/**
 * Files new observations into cases inside the transaction that stored them, so that an
 * observation is never left outside a case. Grouping is the cases feature's (above this one):
 * the composition root passes it in.
 */
export type PlaceInCases = (trx: Db, observations: NewObservation[], now: number) => Promise<void>;

/** What an external write needs beyond the request: where to write and how to file the result. */
export interface ObservationWriting {
  placeInCases: PlaceInCases;
}

export const LEVELS = ['informational', 'low', 'medium', 'high', 'critical'] as const;
export type Level = (typeof LEVELS)[number];

/** Records shown with one observation; the rest are listed by id only. */
export const MAX_EVIDENCE_RECORDS = 20;
/** Records an external observation may cite. */
export const MAX_EXTERNAL_RECORDS = 100;
const HOUR_MS = 3_600_000;

export interface ObservationView {
  id: string;
  rule: { id: string; title: string; author: string | null; type: string };
  level: string;
  source: string;
  techniques: { id: string; name: string | null }[];
  tactics: { id: string | null; name: string; known: boolean }[];
  tags: string[];
  host: string | null;
  first_time: string;
  last_time: string;
  record_ids: string[];
  correlation: { group: Record<string, FieldValue>; value: number } | null;
  created_at: string;
  created_by: string | null;
}

export interface ObservationDetail extends ObservationView {
  evidence: {
    record_id: string | null;
    fields: Record<string, FieldValue>;
    received_at: string | null;
    event_time: string | null;
    /** The record as stored, written into the answer as it is (core/exact-json.ts). */
    record: RawJson | null;
  }[];
}

export function presentObservation(row: ObservationRow, catalogue: AttackCatalogue): ObservationView {
  const techniques = JSON.parse(row.techniques) as string[];
  const tactics = JSON.parse(row.tactics) as string[];
  const evidence = JSON.parse(row.evidence) as { correlation?: { group: Record<string, FieldValue>; value: number } };
  return {
    id: row.id,
    rule: { id: row.rule_id, title: row.rule_title, author: row.rule_author, type: row.rule_type },
    level: row.level,
    source: row.source,
    techniques: techniques.map((id) => ({ id, name: catalogue.technique(id)?.name ?? null })),
    tactics: tactics.map((shortname) => {
      const tactic = catalogue.tactic(shortname);
      return tactic ? { id: tactic.id, name: tactic.name, known: true } : { id: null, name: shortname, known: false };
    }),
    tags: JSON.parse(row.tags) as string[],
    host: row.host,
    first_time: new Date(row.first_time).toISOString(),
    last_time: new Date(row.last_time).toISOString(),
    record_ids: recordIds(JSON.parse(row.record_seqs) as number[]),
    correlation: evidence.correlation ?? null,
    created_at: new Date(row.created_at).toISOString(),
    created_by: row.created_by,
  };
}

export async function searchObservations(
  db: Kysely<Tables>,
  catalogue: AttackCatalogue,
  tenantId: number,
  filter: ObservationFilter,
  page: { limit: number; before?: number },
): Promise<{ observations: ObservationView[]; next: number | null }> {
  const rows = await listObservations(db, tenantId, filter, {
    limit: page.limit + 1,
    ...(page.before !== undefined ? { before: page.before } : {}),
  });
  const more = rows.length > page.limit;
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    observations: shown.map((row) => presentObservation(row, catalogue)),
    next: more && last ? last.seq : null,
  };
}

export async function getObservation(
  db: Kysely<Tables>,
  catalogue: AttackCatalogue,
  tenantId: number,
  id: string,
): Promise<ObservationDetail> {
  const row = await findObservation(db, tenantId, id);
  if (!row) throw new AppError('not_found', `observation ${id} not found`);
  return withEvidence(db, tenantId, row, catalogue);
}

async function withEvidence(
  db: Kysely<Tables>,
  tenantId: number,
  row: ObservationRow,
  catalogue: AttackCatalogue,
): Promise<ObservationDetail> {
  const view = presentObservation(row, catalogue);
  const stored = JSON.parse(row.evidence) as { records?: { seq: number; fields: Record<string, FieldValue> }[] };
  const fieldsBySeq = new Map((stored.records ?? []).map((item) => [item.seq, item.fields]));
  const seqs = (JSON.parse(row.record_seqs) as number[]).slice(0, MAX_EVIDENCE_RECORDS);
  const records = new Map((await findRecords(db, tenantId, seqs)).map((record) => [record.seq, record]));
  const ids = recordIds(seqs);
  const cited: ObservationDetail['evidence'] = seqs.map((seq, i) => {
    const record = records.get(seq);
    return {
      record_id: ids[i] ?? null,
      fields: fieldsBySeq.get(seq) ?? {},
      received_at: record ? new Date(record.received_at).toISOString() : null,
      event_time: record ? new Date(record.event_time).toISOString() : null,
      record: record ? new RawJson(record.record) : null,
    };
  });
  // An external observation citing no record keeps its fields under seq 0.
  const uncited = fieldsBySeq.get(0);
  if (uncited && !seqs.includes(0))
    cited.push({ record_id: null, fields: uncited, received_at: null, event_time: null, record: null });
  return { ...view, evidence: cited };
}

export interface ExternalObservationInput {
  externalId: string;
  title: string;
  level: Level;
  ruleId?: string;
  author?: string;
  techniques: string[];
  host?: string;
  firstTime: number;
  lastTime: number;
  recordIds: string[];
  fields: Record<string, FieldValue>;
}

/**
 * Writes an external observation. The route has already checked the permission and the
 * tenant's approval; here: techniques must be in the catalogue, cited records must be the
 * tenant's, the approved hourly volume holds, and a repeated external id returns the original.
 */
export async function writeExternalObservation(
  db: Kysely<Tables>,
  catalogue: AttackCatalogue,
  tenant: TenantRow,
  input: ExternalObservationInput,
  writer: string,
  writing: ObservationWriting,
  now = Date.now(),
): Promise<{ observation: ObservationDetail; created: boolean }> {
  const dedupeKey = `external:${input.externalId}`;
  const existing = await findObservationByKey(db, tenant.id, dedupeKey);
  if (existing) return { observation: await withEvidence(db, tenant.id, existing, catalogue), created: false };

  const techniques: AttackTechnique[] = [];
  const unknown: string[] = [];
  for (const id of input.techniques) {
    const technique = catalogue.technique(id);
    if (technique) techniques.push(technique);
    else unknown.push(id);
  }
  if (unknown.length > 0) {
    throw new AppError(
      'invalid_request',
      `techniques ${unknown.join(', ')} are not in the ATT&CK catalogue (v${catalogue.version})`,
      {
        extensions: { field: 'techniques' },
      },
    );
  }
  if (input.lastTime < input.firstTime)
    throw new AppError('invalid_request', 'last_time is before first_time', { extensions: { field: 'last_time' } });
  // An id we never made names no record; neither does another tenant's (answered alike).
  const decoded = input.recordIds.map((id) => ({ id, seq: recordSeq(id) }));
  const seqs = decoded.flatMap((item) => (item.seq === undefined ? [] : [item.seq]));
  const found = new Set((await findRecords(db, tenant.id, seqs)).map((record) => record.seq));
  const missing = decoded.filter((item) => item.seq === undefined || !found.has(item.seq)).map((item) => item.id);
  if (missing.length > 0) {
    throw new AppError(
      'invalid_request',
      `record_ids ${missing.slice(0, 5).join(', ')} are not records of this tenant`,
      { extensions: { field: 'record_ids' } },
    );
  }
  const limit = tenant.observation_write_limit_per_hour;
  if (limit !== null && (await countExternalSince(db, tenant.id, now - HOUR_MS)) >= limit) {
    throw new AppError(
      'observation_rate_limited',
      `the approved volume is ${limit} observations per hour; it is used up for the last hour`,
      {
        extensions: { limit_per_hour: limit },
        headers: { 'Retry-After': '60' },
      },
    );
  }
  const draft: ObservationDraft = {
    tenantId: tenant.id,
    dedupeKey,
    source: 'external',
    ruleId: input.ruleId ?? `external:${input.externalId}`,
    ruleTitle: input.title,
    ruleAuthor: input.author ?? null,
    ruleType: 'external',
    level: input.level,
    techniques: techniques.map((technique) => technique.id),
    tactics: [...new Set(techniques.flatMap((technique) => technique.tactics))],
    tags: techniques.map((technique) => `attack.${technique.id.toLowerCase()}`),
    host: input.host ?? null,
    deviceHost: usableHost(input.host),
    firstTime: input.firstTime,
    lastTime: input.lastTime,
    recordSeqs: seqs,
    evidence:
      seqs.length > 0
        ? seqs.map((seq, index) => ({ seq, fields: index === 0 ? input.fields : {} }))
        : [{ seq: 0, fields: input.fields }],
    observables: observablesOfFields(input.fields),
  };
  // Stored and grouped into a case together: an observation is never left outside a case.
  await writeTransaction(db, async (trx) => {
    const created = await insertObservations(trx, [draft], now, writer);
    await writing.placeInCases(trx, created, Math.max(now, Date.now()));
  });
  const row = await findObservationByKey(db, tenant.id, dedupeKey);
  if (!row) throw new Error(`external observation ${input.externalId} vanished after insert`);
  return { observation: await withEvidence(db, tenant.id, row, catalogue), created: true };
}

/** What an OCSF Detection Finding needs of an observation (webhooks/ocsf-findings.ts). */
export function findingSource(view: ObservationView): FindingSource {
  return {
    id: view.id,
    title: view.rule.title,
    rule: view.source === 'detection' || view.rule.id ? { id: view.rule.id, title: view.rule.title } : null,
    source: view.source,
    level: view.level,
    techniques: view.techniques.map((technique) => technique.id),
    tactics: view.tactics.map((tactic) => tactic.name),
    host: view.host,
    first_time: view.first_time,
    last_time: view.last_time,
    created_time: Date.parse(view.created_at),
    href: `/v1/observations/${view.id}`,
  };
}
