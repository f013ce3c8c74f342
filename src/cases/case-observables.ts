// A case's observables as the API shows them (each with how many other cases and devices hold it,
// and a telemetry search for it), and the analysts' changes: add one (validated per type), tag
// one, remove one. Each change is one transaction with its case history entry.
import { AppError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { writeTransaction } from '../storage/write-transaction.js';
import { phraseQuery } from '../telemetry/telemetry-query.js';
import {
  automaticTags,
  normaliseObservable,
  OBSERVABLE_FORMS,
  OBSERVABLE_LIMITS,
  type ObservableType,
} from '../detection/observable-values.js';
import type { AuditActor } from '../identity/principal.js';
import { addHistory, type Db } from './case-store.js';
import { requireCase } from './case-service.js';
import {
  countObservables,
  findObservable,
  findObservableByValue,
  insertObservable,
  listObservables,
  observableSpread,
  updateObservable,
  type ObservableRow,
} from './case-observable-store.js';
import type { CaseRequest } from './case-context.js';

/** The tags the UI offers; others may be set too (OBSERVABLE_TAG). */
export const KNOWN_TAGS = ['ioc', 'benign', 'internal'] as const;
export const OBSERVABLE_TAG = /^[a-z0-9][a-z0-9_.:-]{0,39}$/;
export const MAX_OBSERVABLE_TAGS = 10;

const iso = (time: number) => new Date(time).toISOString();
const actorLabel = (actor: AuditActor) => `${actor.type}:${actor.label}`;

export function presentObservable(row: ObservableRow, spread?: { otherCases: number; devices: number }) {
  return {
    id: row.id,
    type: row.type as ObservableType,
    value: row.value,
    tags: JSON.parse(row.tags) as string[],
    source: row.source as 'evidence' | 'analyst',
    observation_id: row.observation_id,
    first_seen: iso(row.first_seen),
    created_at: iso(row.created_at),
    created_by: row.created_by,
    removed_at: row.removed_at === null ? null : iso(row.removed_at),
    removed_by: row.removed_by,
    other_cases: spread?.otherCases ?? 0,
    devices: spread?.devices ?? 0,
    search_query: phraseQuery(row.value) ?? null,
  };
}

export type ObservableView = ReturnType<typeof presentObservable>;

/** GET /v1/cases/{case_id}/observables */
export async function caseObservables(db: Db, tenantId: number, caseRef: string, includeRemoved: boolean) {
  const row = await requireCase(db, tenantId, caseRef);
  const rows = await listObservables(db, tenantId, row.id, includeRemoved);
  const spread = await observableSpread(db, tenantId, row.id);
  return {
    case_id: row.id,
    observables: rows.map((item) => presentObservable(item, spread.get(`${item.type}\u0000${item.value}`))),
  };
}

function checkedTags(tags: readonly string[]): string[] {
  const next = [...new Set(tags.map((tag) => tag.trim().toLowerCase()))];
  const bad = next.find((tag) => !OBSERVABLE_TAG.test(tag));
  if (bad !== undefined)
    throw new AppError(
      'invalid_observable',
      `tag ${JSON.stringify(bad)} is not one of ${KNOWN_TAGS.join(', ')} nor 1–40 lower-case letters, digits and _ . : -`,
      { extensions: { field: 'tags' } },
    );
  if (next.length > MAX_OBSERVABLE_TAGS)
    throw new AppError('invalid_observable', `an observable takes at most ${MAX_OBSERVABLE_TAGS} tags`, {
      extensions: { field: 'tags' },
    });
  return next.sort();
}

function normalised(type: ObservableType, raw: string): string {
  const value = normaliseObservable(type, raw);
  if (value === undefined)
    throw new AppError('invalid_observable', `${JSON.stringify(raw.slice(0, 100))} is not ${OBSERVABLE_FORMS[type]}`, {
      extensions: { field: 'value', type },
    });
  return value;
}

const described = (row: Pick<ObservableRow, 'id' | 'type' | 'value'>) => ({
  id: row.id,
  type: row.type,
  value: row.value,
});

/** POST /v1/cases/{case_id}/observables: a new one, or one removed before back (with the tags sent). */
export async function addObservable(
  request: CaseRequest,
  caseRef: string,
  input: { type: ObservableType; value: string; tags?: string[] },
): Promise<ObservableView> {
  const { db, tenantId, actor } = request;
  const value = normalised(input.type, input.value);
  const tags = checkedTags([...automaticTags(input.type, value), ...(input.tags ?? [])]);
  return writeTransaction(db, async (trx) => {
    const now = request.now ?? Date.now();
    const row = await requireCase(trx, tenantId, caseRef);
    const existing = await findObservableByValue(trx, tenantId, row.id, { type: input.type, value });
    let stored: ObservableRow;
    if (existing?.removed_at === null) {
      throw new AppError('observable_exists', `case ${row.number} already holds ${input.type} ${value}`, {
        extensions: { field: 'value', observable_id: existing.id },
      });
    } else if (existing) {
      stored = { ...existing, tags: JSON.stringify(tags), removed_at: null, removed_by: null };
      await updateObservable(trx, tenantId, existing.id, { tags: stored.tags, removed_at: null, removed_by: null });
    } else {
      if ((await countObservables(trx, tenantId, row.id)) >= OBSERVABLE_LIMITS.perCase)
        throw new AppError(
          'observable_limit_reached',
          `case ${row.number} holds ${OBSERVABLE_LIMITS.perCase} observables, the most a case takes`,
        );
      const insert: Omit<ObservableRow, 'seq'> = {
        id: newId('obv'),
        tenant_id: tenantId,
        case_id: row.id,
        type: input.type,
        value,
        tags: JSON.stringify(tags),
        source: 'analyst',
        observation_id: null,
        first_seen: now,
        created_at: now,
        created_by: actorLabel(actor),
        removed_at: null,
        removed_by: null,
      };
      await insertObservable(trx, insert);
      stored = { ...insert, seq: 0 };
    }
    await addHistory(trx, [
      {
        caseId: row.id,
        tenantId,
        at: now,
        actor,
        action: 'observable_added',
        changes: { observable: described(stored), tags },
      },
    ]);
    return presentObservable(stored);
  });
}

async function requireObservable(trx: Db, tenantId: number, caseRef: string, observableId: string) {
  const row = await requireCase(trx, tenantId, caseRef);
  const observable = await findObservable(trx, tenantId, row.id, observableId);
  if (observable?.removed_at !== null)
    throw new AppError('not_found', `observable ${observableId} not found on case ${row.number}`);
  return { row, observable };
}

/** PATCH /v1/cases/{case_id}/observables/{observable_id}: replaces its tags. */
export async function tagObservable(
  request: CaseRequest,
  target: { caseRef: string; observableId: string },
  tagsSent: readonly string[],
): Promise<ObservableView> {
  const { db, tenantId, actor } = request;
  const tags = checkedTags(tagsSent);
  return writeTransaction(db, async (trx) => {
    const now = request.now ?? Date.now();
    const { row, observable } = await requireObservable(trx, tenantId, target.caseRef, target.observableId);
    const before = JSON.parse(observable.tags) as string[];
    if (JSON.stringify(before) === JSON.stringify(tags)) return presentObservable(observable);
    await updateObservable(trx, tenantId, observable.id, { tags: JSON.stringify(tags) });
    await addHistory(trx, [
      {
        caseId: row.id,
        tenantId,
        at: now,
        actor,
        action: 'observable_tagged',
        changes: { observable: described(observable), tags: { from: before, to: tags } },
      },
    ]);
    return presentObservable({ ...observable, tags: JSON.stringify(tags) });
  });
}

/** DELETE /v1/cases/{case_id}/observables/{observable_id}: removed, and stays so whatever new evidence names. */
export async function removeObservable(
  request: CaseRequest,
  target: { caseRef: string; observableId: string },
): Promise<void> {
  const { db, tenantId, actor } = request;
  await writeTransaction(db, async (trx) => {
    const now = request.now ?? Date.now();
    const { row, observable } = await requireObservable(trx, tenantId, target.caseRef, target.observableId);
    await updateObservable(trx, tenantId, observable.id, { removed_at: now, removed_by: actorLabel(actor) });
    await addHistory(trx, [
      {
        caseId: row.id,
        tenantId,
        at: now,
        actor,
        action: 'observable_removed',
        changes: { observable: described(observable) },
      },
    ]);
  });
}
