// SQL for case observables. Every function takes the tenant and every query filters on it;
// writers run inside the caller's transaction (extraction inside grouping's, in detection's).
import { sql, type Selectable } from 'kysely';
import type { CaseObservablesTable } from '../storage/schema.js';
import { OBSERVABLE_LIMITS, type ObservableDraft } from '../detection/observable-values.js';
import { newId } from '../core/ids.js';
import type { Db } from './case-store.js';

export type ObservableRow = Selectable<CaseObservablesTable>;

/** One observable an observation's evidence named, with when and where it was seen. */
export interface EvidenceObservable {
  draft: ObservableDraft;
  observationId: string | null;
  firstSeen: number;
}

const ROWS_PER_STATEMENT = 100;
const keyOf = (item: { type: string; value: string }) => `${item.type}\u0000${item.value}`;

export async function countObservables(db: Db, tenantId: number, caseId: string): Promise<number> {
  const row = await db
    .selectFrom('case_observables')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', caseId)
    .executeTakeFirstOrThrow();
  return row.n;
}

/**
 * Adds what a case's new evidence names: a value the case holds keeps its row (its first_seen
 * moves back if this sighting is older; an analyst's removal stands), and the case holds at
 * most OBSERVABLE_LIMITS.perCase. Two statements for a flush that fits, one more when it is near the bound.
 */
export async function addEvidenceObservables(
  db: Db,
  tenantId: number,
  caseId: string,
  items: readonly EvidenceObservable[],
  now: number,
): Promise<void> {
  const unique = new Map<string, EvidenceObservable>();
  for (const item of items) if (!unique.has(keyOf(item.draft))) unique.set(keyOf(item.draft), item);
  if (unique.size === 0) return;
  const held = await countObservables(db, tenantId, caseId);
  const room = OBSERVABLE_LIMITS.perCase - held;
  if (room <= 0) return;
  let fresh = [...unique.values()];
  if (fresh.length > room) {
    const known = new Set((await listObservables(db, tenantId, caseId, true)).map(keyOf));
    fresh = fresh.filter((item) => !known.has(keyOf(item.draft))).slice(0, room);
  }
  for (let i = 0; i < fresh.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('case_observables')
      .values(
        fresh.slice(i, i + ROWS_PER_STATEMENT).map((item) => ({
          id: newId('obv'),
          tenant_id: tenantId,
          case_id: caseId,
          type: item.draft.type,
          value: item.draft.value,
          tags: JSON.stringify(item.draft.tags),
          source: 'evidence',
          observation_id: item.observationId,
          first_seen: item.firstSeen,
          created_at: now,
          created_by: null,
          removed_at: null,
          removed_by: null,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['tenant_id', 'case_id', 'type', 'value'])
          .doUpdateSet((eb) => ({
            first_seen: eb.ref('excluded.first_seen'),
            observation_id: eb.ref('excluded.observation_id'),
          }))
          .where(sql<boolean>`excluded.first_seen < case_observables.first_seen`),
      )
      .execute();
  }
}

/** A case's observables in a stable order (type, then value); removed ones only when asked. */
export function listObservables(
  db: Db,
  tenantId: number,
  caseId: string,
  includeRemoved: boolean,
): Promise<ObservableRow[]> {
  let query = db
    .selectFrom('case_observables')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', caseId);
  if (!includeRemoved) query = query.where('removed_at', 'is', null);
  return query.orderBy('type').orderBy('value').execute();
}

export function findObservable(
  db: Db,
  tenantId: number,
  caseId: string,
  id: string,
): Promise<ObservableRow | undefined> {
  return db
    .selectFrom('case_observables')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', caseId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findObservableByValue(
  db: Db,
  tenantId: number,
  caseId: string,
  item: { type: string; value: string },
): Promise<ObservableRow | undefined> {
  return db
    .selectFrom('case_observables')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', caseId)
    .where('type', '=', item.type)
    .where('value', '=', item.value)
    .executeTakeFirst();
}

export async function insertObservable(db: Db, row: Omit<ObservableRow, 'seq'>): Promise<void> {
  await db.insertInto('case_observables').values(row).execute();
}

export async function updateObservable(
  db: Db,
  tenantId: number,
  id: string,
  changes: Partial<Pick<ObservableRow, 'tags' | 'removed_at' | 'removed_by' | 'source' | 'created_by'>>,
): Promise<void> {
  await db
    .updateTable('case_observables')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

/**
 * A merge: the values `from` holds that `to` lacks move to `to` (up to its bound); `to` keeps its
 * own rows (with their tags and removals) and `from` is left with none.
 */
export async function moveObservables(db: Db, tenantId: number, from: string, to: string): Promise<void> {
  const target = new Set((await listObservables(db, tenantId, to, true)).map(keyOf));
  const room = Math.max(0, OBSERVABLE_LIMITS.perCase - target.size);
  const moving = (await listObservables(db, tenantId, from, true))
    .filter((row) => !target.has(keyOf(row)))
    .sort((a, b) => a.seq - b.seq)
    .slice(0, room)
    .map((row) => row.id);
  for (let i = 0; i < moving.length; i += ROWS_PER_STATEMENT) {
    await db
      .updateTable('case_observables')
      .set({ case_id: to })
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', moving.slice(i, i + ROWS_PER_STATEMENT))
      .execute();
  }
  await db.deleteFrom('case_observables').where('tenant_id', '=', tenantId).where('case_id', '=', from).execute();
}

/**
 * Per value the case holds: how many other cases hold it, and how many devices the cases holding
 * it have. One statement; each count is an index lookup by (tenant, type, value). The CROSS JOINs
 * keep SQLite, which has no statistics, from walking every device link or observable of the
 * tenant first (PostgreSQL plans them as the inner joins they are).
 */
export async function observableSpread(
  db: Db,
  tenantId: number,
  caseId: string,
): Promise<Map<string, { otherCases: number; devices: number }>> {
  const result = await sql<{ type: string; value: string; other_cases: number; devices: number }>`
    SELECT o.type, o.value,
      (SELECT count(DISTINCT x.case_id) FROM case_observables x
        WHERE x.tenant_id = o.tenant_id AND x.type = o.type AND x.value = o.value
          AND x.case_id <> o.case_id AND x.removed_at IS NULL) AS other_cases,
      (SELECT count(DISTINCT cd.device_id) FROM case_observables x CROSS JOIN case_devices cd
        WHERE x.tenant_id = o.tenant_id AND x.type = o.type AND x.value = o.value AND x.removed_at IS NULL
          AND cd.tenant_id = x.tenant_id AND cd.case_id = x.case_id) AS devices
    FROM case_observables o
    WHERE o.tenant_id = ${tenantId} AND o.case_id = ${caseId} AND o.removed_at IS NULL`.execute(db);
  return new Map(result.rows.map((row) => [keyOf(row), { otherCases: row.other_cases, devices: row.devices }]));
}

/** A value this case shares with another case. */
export interface SharedValue {
  caseId: string;
  type: string;
  value: string;
  /** This case's tags on it. */
  tags: string;
}

/**
 * The values this case shares with other cases of the tenant: at most `perValue` other cases
 * per value (the lowest case ids: any fixed choice keeps the answer stable) and `limit` in all,
 * so a value half the tenant's cases hold costs what a rare one does. The CROSS JOIN makes
 * SQLite start from this case's values (see observableSpread).
 */
export async function sharedValues(
  db: Db,
  tenantId: number,
  caseId: string,
  bounds: { perValue: number; limit: number },
): Promise<SharedValue[]> {
  const result = await sql<{ case_id: string; type: string; value: string; tags: string }>`
    SELECT case_id, type, value, tags FROM (
      SELECT x.case_id, o.type, o.value, o.tags,
        row_number() OVER (PARTITION BY o.type, o.value ORDER BY x.case_id) AS n
      FROM case_observables o CROSS JOIN case_observables x
      WHERE o.tenant_id = ${tenantId} AND o.case_id = ${caseId} AND o.removed_at IS NULL
        AND x.tenant_id = o.tenant_id AND x.type = o.type AND x.value = o.value
        AND x.case_id <> ${caseId} AND x.removed_at IS NULL
    ) shared
    WHERE n <= ${bounds.perValue}
    ORDER BY case_id, type, value
    LIMIT ${bounds.limit}`.execute(db);
  return result.rows.map((row) => ({ caseId: row.case_id, type: row.type, value: row.value, tags: row.tags }));
}
