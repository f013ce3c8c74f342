// SQL for cases and their parts. Every function takes the tenant and every query filters on it;
// writers run inside the caller's transaction (grouping runs in detection's).
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { CasesTable, Tables } from '../storage/schema.js';
import type { RowLocks } from '../storage/row-locks.js';

export type CaseRow = Selectable<CasesTable>;
export type Db = Kysely<Tables> | Transaction<Tables>;
// A case's history lives in case-history-store.ts; its callers reach it from here too.
export { addHistory, listHistory, type HistoryEntry, type HistoryRow } from './case-history-store.js';

/** The next case number of the tenant (1, 2, 3…); the counter row serialises concurrent creators. */
export async function nextCaseNumber(db: Db, tenantId: number): Promise<number> {
  const row = await db
    .insertInto('case_counters')
    .values({ tenant_id: tenantId, last_number: 1 })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ last_number: sql`case_counters.last_number + 1` }))
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return row.last_number;
}

/** Serialises grouping of one (tenant, group) until the transaction ends (RowLocks.lockKey). */
export async function lockGroup(db: Db, locks: RowLocks, tenantId: number, groupKey: string): Promise<void> {
  await locks.lockKey(db, `case:${tenantId}:${groupKey}`);
}

/** The open case a new observation in this window would join: by device (merges included) or by group. */
export async function findOpenCase(
  db: Db,
  locks: RowLocks,
  tenantId: number,
  match: { deviceId: string } | { groupKey: string },
  window: { from: number; to: number },
): Promise<CaseRow | undefined> {
  let query =
    'deviceId' in match
      ? // From the device's few case links (index case_devices_device), merged cases included.
        db
          .selectFrom('case_devices as cd')
          .innerJoin('cases as c', 'c.id', 'cd.case_id')
          .selectAll('c')
          .where('cd.tenant_id', '=', tenantId)
          .where('cd.device_id', '=', match.deviceId)
      : db.selectFrom('cases as c').selectAll('c').where('c.group_key', '=', match.groupKey);
  query = query
    .where('c.tenant_id', '=', tenantId)
    .where('c.status', '!=', 'closed')
    .where('c.last_observation_at', '>=', window.from)
    .where('c.first_observation_at', '<=', window.to);
  query = query.orderBy('c.last_observation_at', 'desc').limit(1);
  // Locked until the grouping transaction ends: a concurrent update waits, then finds the version moved.
  return locks.forUpdate(query, 'c').executeTakeFirst();
}

/** Reads cases, locking their rows in id order (RowLocks.forUpdate). */
export function lockCases(db: Db, locks: RowLocks, tenantId: number, ids: readonly string[]): Promise<CaseRow[]> {
  const query = db
    .selectFrom('cases')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id');
  return locks.forUpdate(query).execute();
}

/** A case as created: its SLA columns start empty. */
export type NewCaseRow = Omit<
  CaseRow,
  'seq' | 'acknowledged_at' | 'held_ms' | 'held_since' | 'acknowledge_breached_at' | 'resolve_breached_at'
>;

export async function insertCase(db: Db, row: NewCaseRow): Promise<void> {
  await db.insertInto('cases').values(row).execute();
}

/** Updates a case if its version is still `version`; false when someone changed it first. */
export async function updateCase(
  db: Db,
  tenantId: number,
  id: string,
  version: number,
  changes: Partial<Omit<CaseRow, 'seq' | 'id' | 'tenant_id'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('cases')
    .set({ ...changes, version: version + 1 })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function findCase(db: Db, tenantId: number, idOrNumber: string): Promise<CaseRow | undefined> {
  const query = db.selectFrom('cases').selectAll().where('tenant_id', '=', tenantId);
  const number = /^\d{1,15}$/.test(idOrNumber) ? Number(idOrNumber) : undefined;
  return (
    number !== undefined ? query.where('number', '=', number) : query.where('id', '=', idOrNumber)
  ).executeTakeFirst();
}

/** The tenant, among these, holding the case with this id; undefined when none does. */
export async function findCaseTenant(db: Db, tenantIds: readonly number[], id: string): Promise<number | undefined> {
  if (tenantIds.length === 0) return undefined;
  const row = await db
    .selectFrom('cases')
    .select('tenant_id')
    .where('id', '=', id)
    .where('tenant_id', 'in', [...tenantIds])
    .executeTakeFirst();
  return row?.tenant_id;
}

export function findCasesByIds(db: Db, tenantId: number, ids: readonly string[]): Promise<CaseRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('cases')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function addCaseObservations(
  db: Db,
  tenantId: number,
  caseId: string,
  observationIds: readonly string[],
  now: number,
): Promise<void> {
  for (let i = 0; i < observationIds.length; i += 200) {
    await db
      .insertInto('case_observations')
      .values(
        observationIds
          .slice(i, i + 200)
          .map((id) => ({ observation_id: id, case_id: caseId, tenant_id: tenantId, added_at: now })),
      )
      .onConflict((oc) => oc.column('observation_id').doUpdateSet({ case_id: caseId }))
      .execute();
  }
}

export async function addCaseDevices(
  db: Db,
  tenantId: number,
  caseId: string,
  deviceIds: readonly string[],
): Promise<void> {
  if (deviceIds.length === 0) return;
  await db
    .insertInto('case_devices')
    .values(deviceIds.map((id) => ({ case_id: caseId, device_id: id, tenant_id: tenantId })))
    .onConflict((oc) => oc.columns(['case_id', 'device_id']).doNothing())
    .execute();
}

/**
 * The techniques a case is filed under in case_techniques: its own and, for each sub-technique
 * (T1059.004), the parent (T1059). A search for a parent, which finds the sub-techniques too, is
 * then one exact index lookup that names each case once. Ids are ^T\d{4}(\.\d{3})?$.
 */
export function filedTechniques(techniques: readonly string[]): string[] {
  return [
    ...new Set(
      techniques.flatMap((technique) => (technique.length > 5 ? [technique, technique.slice(0, 5)] : [technique])),
    ),
  ];
}

export async function addCaseTechniques(
  db: Db,
  tenantId: number,
  caseId: string,
  techniques: readonly string[],
): Promise<void> {
  if (techniques.length === 0) return;
  await db
    .insertInto('case_techniques')
    .values(filedTechniques(techniques).map((technique) => ({ case_id: caseId, technique, tenant_id: tenantId })))
    .onConflict((oc) => oc.columns(['case_id', 'technique']).doNothing())
    .execute();
}

export async function replaceCaseTags(
  db: Db,
  tenantId: number,
  caseId: string,
  tags: readonly string[],
): Promise<void> {
  await db.deleteFrom('case_tags').where('tenant_id', '=', tenantId).where('case_id', '=', caseId).execute();
  if (tags.length === 0) return;
  await db
    .insertInto('case_tags')
    .values(tags.map((tag) => ({ case_id: caseId, tag, tenant_id: tenantId })))
    .execute();
}

export async function caseDeviceIds(
  db: Db,
  tenantId: number,
  caseIds: readonly string[],
): Promise<Map<string, string[]>> {
  const byCase = new Map<string, string[]>();
  if (caseIds.length === 0) return byCase;
  const rows = await db
    .selectFrom('case_devices')
    .select(['case_id', 'device_id'])
    .where('tenant_id', '=', tenantId)
    .where('case_id', 'in', [...caseIds])
    .execute();
  for (const row of rows) byCase.set(row.case_id, [...(byCase.get(row.case_id) ?? []), row.device_id]);
  return byCase;
}

export async function caseObservationIds(db: Db, tenantId: number, caseId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('case_observations')
    .select('observation_id')
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', caseId)
    .orderBy('added_at')
    .execute();
  return rows.map((row) => row.observation_id);
}

/**
 * The cases merged into this one, by number. `+tenant_id` is still the tenant filter, but no index
 * can serve it: without statistics SQLite otherwise walks the tenant's cases in number order
 * (every one of them, for a case nothing was merged into), where the merged_into index finds the
 * few directly.
 */
export function casesMergedInto(db: Db, tenantId: number, caseId: string): Promise<{ id: string; number: number }[]> {
  return db
    .selectFrom('cases')
    .select(['id', 'number'])
    .where(sql`+tenant_id`, '=', tenantId)
    .where('merged_into', '=', caseId)
    .orderBy('number')
    .limit(100)
    .execute();
}

/** What reading a case's evidence needs of its observations: the most recent `limit`, by last time. */
export function caseObservationEvidence(db: Db, tenantId: number, caseId: string, limit: number) {
  return db
    .selectFrom('case_observations as co')
    .innerJoin('observations as o', (join) =>
      join.onRef('o.id', '=', 'co.observation_id').onRef('o.tenant_id', '=', 'co.tenant_id'),
    )
    .select([
      'o.id',
      'o.rule_title',
      'o.level',
      'o.techniques',
      'o.host',
      'o.first_time',
      'o.last_time',
      'o.record_seqs',
    ])
    .where('co.tenant_id', '=', tenantId)
    .where('co.case_id', '=', caseId)
    .orderBy('o.last_time', 'desc')
    .orderBy('o.id')
    .limit(limit)
    .execute();
}
export type CaseObservationEvidence = Awaited<ReturnType<typeof caseObservationEvidence>>[number];

/** Moves every observation, device, technique and tag of `from` to `to` (a merge); `from` keeps none. */
export async function moveCaseParts(db: Db, tenantId: number, from: string, to: string): Promise<void> {
  await db
    .updateTable('case_observations')
    .set({ case_id: to })
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', from)
    .execute();
  const devices = await db
    .selectFrom('case_devices')
    .select('device_id')
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', from)
    .execute();
  await addCaseDevices(
    db,
    tenantId,
    to,
    devices.map((row) => row.device_id),
  );
  const techniques = await db
    .selectFrom('case_techniques')
    .select('technique')
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', from)
    .execute();
  await addCaseTechniques(
    db,
    tenantId,
    to,
    techniques.map((row) => row.technique),
  );
  // The target's tags are rewritten by the caller (the union of both).
  for (const table of ['case_devices', 'case_techniques', 'case_tags'] as const) {
    await db.deleteFrom(table).where('tenant_id', '=', tenantId).where('case_id', '=', from).execute();
  }
}

/**
 * The tenant's cases, and its open ones per (status, severity), in one statement (one snapshot).
 * Both are counted from index entries; the total from the narrowest index led by tenant_id, as
 * counting the closed cases (most of a tenant's) in a wide index reads twice the pages.
 */
export async function countCasesByStatus(
  db: Db,
  tenantId: number,
  open: readonly string[],
): Promise<{ total: number; open: { status: string; severity: string; n: number }[] }> {
  const result = await sql<{ status: string | null; severity: string | null; n: number }>`
    SELECT status, severity, count(*) AS n FROM cases WHERE tenant_id = ${tenantId} AND status IN (${sql.join(open)}) GROUP BY status, severity
    UNION ALL
    SELECT NULL, NULL, count(*) FROM cases WHERE tenant_id = ${tenantId}`.execute(db);
  const rows = result.rows.map((row) => ({ ...row, n: row.n }));
  return {
    total: rows.find((row) => row.status === null)?.n ?? 0,
    open: rows.flatMap((row) =>
      row.status === null || row.severity === null ? [] : [{ status: row.status, severity: row.severity, n: row.n }],
    ),
  };
}

/** Open cases on a device (for rescoring when its criticality changes). */
export function openCasesOnDevice(db: Db, tenantId: number, deviceId: string): Promise<CaseRow[]> {
  return db
    .selectFrom('cases as c')
    .innerJoin('case_devices as cd', 'cd.case_id', 'c.id')
    .selectAll('c')
    .where('cd.tenant_id', '=', tenantId)
    .where('cd.device_id', '=', deviceId)
    .where('c.status', '!=', 'closed')
    .execute();
}

/** The stored evidence of a case's observations (the fields their rules looked at), by observation id. */
export async function caseEvidenceFields(
  db: Db,
  tenantId: number,
  caseId: string,
  limit: number,
): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('case_observations as co')
    .innerJoin('observations as o', (join) =>
      join.onRef('o.id', '=', 'co.observation_id').onRef('o.tenant_id', '=', 'co.tenant_id'),
    )
    .select(['o.id', 'o.evidence'])
    .where('co.tenant_id', '=', tenantId)
    .where('co.case_id', '=', caseId)
    .orderBy('o.first_time')
    .orderBy('o.seq')
    .limit(limit)
    .execute();
  return new Map(rows.map((row) => [row.id, row.evidence]));
}
