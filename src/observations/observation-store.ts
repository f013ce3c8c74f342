// SQL for observations and the records they cite. Every query names the tenant. Observations
// are written by detection (src/pipeline/, from the drafts of src/detection/) and by approved
// external writers.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { ObservationsTable, Tables } from '../storage/schema.js';
import type { ObservationDraft } from '../detection/detection-processor.js';
import type { ObservableDraft } from '../detection/observable-values.js';
import { newId } from '../core/ids.js';
import { emitEvents } from '../webhooks/webhook-events.js';

export type ObservationRow = Selectable<ObservationsTable>;

/** A stored observation as the stages after it (case grouping) need it. */
export interface NewObservation {
  id: string;
  tenantId: number;
  /** The device's host name (not merely the event's host: see deviceHostOf). */
  deviceHost: string | null;
  source: string;
  ruleId: string;
  ruleTitle: string;
  level: string;
  techniques: readonly string[];
  tactics: readonly string[];
  firstTime: number;
  lastTime: number;
  /** What its evidence names; not stored with it: its case keeps them (case_observables). */
  observables: readonly ObservableDraft[];
}

/** Rows per INSERT statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 200;

/** Inserts observations, skipping any whose dedupe key the tenant already has; returns the new ones. */
export async function insertObservations(
  db: Kysely<Tables> | Transaction<Tables>,
  observations: readonly ObservationDraft[],
  now: number,
  createdBy: string | null,
): Promise<NewObservation[]> {
  const created: NewObservation[] = [];
  for (let i = 0; i < observations.length; i += ROWS_PER_STATEMENT) {
    const chunk = observations.slice(i, i + ROWS_PER_STATEMENT);
    const rows = await db
      .insertInto('observations')
      .values(
        chunk.map((draft) => ({
          id: newId('obs'),
          tenant_id: draft.tenantId,
          dedupe_key: draft.dedupeKey,
          source: draft.source,
          rule_id: draft.ruleId,
          rule_title: draft.ruleTitle,
          rule_author: draft.ruleAuthor,
          rule_type: draft.ruleType,
          level: draft.level,
          techniques: JSON.stringify(draft.techniques),
          tactics: JSON.stringify(draft.tactics),
          tags: JSON.stringify(draft.tags),
          host: draft.host,
          first_time: draft.firstTime,
          last_time: draft.lastTime,
          record_seqs: JSON.stringify(draft.recordSeqs),
          evidence: JSON.stringify({
            records: draft.evidence,
            ...(draft.correlation ? { correlation: draft.correlation } : {}),
          }),
          created_at: now,
          created_by: createdBy,
        })),
      )
      .onConflict((oc) => oc.columns(['tenant_id', 'dedupe_key']).doNothing())
      .returning(['id', 'tenant_id', 'dedupe_key'])
      .execute();
    const drafts = new Map(chunk.map((draft) => [`${draft.tenantId}\u0000${draft.dedupeKey}`, draft]));
    for (const row of rows) {
      const draft = drafts.get(`${row.tenant_id}\u0000${row.dedupe_key}`);
      if (!draft) throw new Error(`observation ${row.dedupe_key} came back from the insert without its draft`);
      created.push({
        id: row.id,
        tenantId: draft.tenantId,
        deviceHost: draft.deviceHost,
        source: draft.source,
        ruleId: draft.ruleId,
        ruleTitle: draft.ruleTitle,
        level: draft.level,
        techniques: draft.techniques,
        tactics: draft.tactics,
        firstTime: draft.firstTime,
        lastTime: draft.lastTime,
        observables: draft.observables,
      });
    }
  }
  await emitObservationEvents(db, created, now);
  return created;
}

/** Each new observation is an `observation.created` webhook event, in the same transaction. */
async function emitObservationEvents(db: Kysely<Tables>, created: readonly NewObservation[], now: number) {
  const byTenant = new Map<number, NewObservation[]>();
  for (const item of created) byTenant.set(item.tenantId, [...(byTenant.get(item.tenantId) ?? []), item]);
  for (const [tenantId, items] of byTenant) {
    await emitEvents(
      db,
      tenantId,
      items.map((item) => ({
        type: 'observation.created' as const,
        subject: item.id,
        data: {
          observation: {
            id: item.id,
            source: item.source,
            rule_id: item.ruleId,
            rule_title: item.ruleTitle,
            level: item.level,
            techniques: item.techniques,
            tactics: item.tactics,
            host: item.deviceHost,
            first_time: new Date(item.firstTime).toISOString(),
            last_time: new Date(item.lastTime).toISOString(),
            href: `/v1/observations/${item.id}`,
          },
        },
      })),
      now,
    );
  }
}

export interface ObservationFilter {
  since?: number;
  until?: number;
  levels?: string[];
  ruleId?: string;
  /** A technique id; a parent (`T1059`) also finds its sub-techniques (`T1059.004`). */
  technique?: string;
  host?: string;
  source?: string;
}

/** Newest first (by sequence); `before` is the last sequence of the previous page. */
export async function listObservations(
  db: Kysely<Tables>,
  tenantId: number,
  filter: ObservationFilter,
  page: { limit: number; before?: number },
): Promise<ObservationRow[]> {
  let query = db.selectFrom('observations').selectAll().where('tenant_id', '=', tenantId);
  if (filter.since !== undefined) query = query.where('last_time', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('first_time', '<', filter.until);
  if (filter.levels && filter.levels.length > 0) query = query.where('level', 'in', filter.levels);
  if (filter.ruleId !== undefined) query = query.where('rule_id', '=', filter.ruleId);
  if (filter.host !== undefined) query = query.where('host', '=', filter.host);
  if (filter.source !== undefined) query = query.where('source', '=', filter.source);
  const technique = filter.technique;
  if (technique !== undefined) {
    // techniques is a JSON array of ids such as ["T1059.004"]; ids hold no LIKE wildcards (validated).
    query = query.where((eb) =>
      eb.or([eb('techniques', 'like', `%"${technique}"%`), eb('techniques', 'like', `%"${technique}.%`)]),
    );
  }
  if (page.before !== undefined) query = query.where('seq', '<', page.before);
  return query.orderBy('seq', 'desc').limit(page.limit).execute();
}

export function findObservation(db: Kysely<Tables>, tenantId: number, id: string): Promise<ObservationRow | undefined> {
  return db
    .selectFrom('observations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findObservationByKey(
  db: Kysely<Tables>,
  tenantId: number,
  dedupeKey: string,
): Promise<ObservationRow | undefined> {
  return db
    .selectFrom('observations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('dedupe_key', '=', dedupeKey)
    .executeTakeFirst();
}

/** External observations the tenant created since `since` (for the approved hourly volume). */
export async function countExternalSince(db: Kysely<Tables>, tenantId: number, since: number): Promise<number> {
  const row = await db
    .selectFrom('observations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('source', '=', 'external')
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  // count(*) is int8 on PostgreSQL, which storage/database.ts parses to a number.
  return row.n;
}

/** The stored records with these sequences that belong to the tenant. */
export function findRecords(
  db: Kysely<Tables>,
  tenantId: number,
  seqs: readonly number[],
): Promise<{ seq: number; received_at: number; event_time: number; record: string }[]> {
  if (seqs.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('telemetry_records')
    .select(['seq', 'received_at', 'event_time', 'record'])
    .where('tenant_id', '=', tenantId)
    .where('seq', 'in', [...seqs])
    .orderBy('seq')
    .execute();
}

/** The case each of these observations is in (an observation is in one case at a time). */
export function findObservationCases(
  db: Kysely<Tables>,
  tenantId: number,
  observationIds: readonly string[],
): Promise<
  {
    observation_id: string;
    id: string;
    number: number;
    title: string;
    status: string;
    severity: string;
    score: number;
  }[]
> {
  if (observationIds.length === 0) return Promise.resolve([]);
  // The observations drive, through a CROSS JOIN, which SQLite never reorders: without
  // statistics it took `cases.tenant_id = ?` for the narrower side, walked every case of the
  // tenant and probed each one's observations, a thousand times slower on a large tenant.
  return db
    .selectFrom('case_observations')
    .crossJoin('cases')
    .select([
      'case_observations.observation_id',
      'cases.id',
      'cases.number',
      'cases.title',
      'cases.status',
      'cases.severity',
      'cases.score',
    ])
    .where('case_observations.tenant_id', '=', tenantId)
    .where('case_observations.observation_id', 'in', [...observationIds])
    .whereRef('cases.id', '=', 'case_observations.case_id')
    .whereRef('cases.tenant_id', '=', 'case_observations.tenant_id')
    .execute();
}
