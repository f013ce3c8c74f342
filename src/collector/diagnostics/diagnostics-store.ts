// SQL for the collector's per-tenant diagnostics: hourly counters added to with upserts (several
// processes may add to the same hour), read back for the last 24 hours, and purged past two days.
import { sql } from 'kysely';
import type { Db } from '../../storage/database.js';
import type { CollectorRejectionsTable } from '../../storage/schema.js';

export interface ActivityDelta {
  tenantId: number;
  hour: number;
  protocol: string;
  userAgent: string;
  sourceAddress: string;
  requests: number;
  records: number;
  lastSeenAt: number;
}

export interface RejectionDelta {
  tenantId: number;
  hour: number;
  code: string;
  count: number;
  lastAt: number;
  lastSourceAddress: string;
  lastUserAgent: string;
  lastDetail: string;
}

/** Rows per INSERT statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 100;

export async function addActivity(db: Db, deltas: readonly ActivityDelta[]): Promise<void> {
  for (let i = 0; i < deltas.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('collector_activity')
      .values(
        deltas.slice(i, i + ROWS_PER_STATEMENT).map((delta) => ({
          tenant_id: delta.tenantId,
          hour: delta.hour,
          protocol: delta.protocol,
          user_agent: delta.userAgent,
          source_address: delta.sourceAddress,
          requests: delta.requests,
          records: delta.records,
          last_seen_at: delta.lastSeenAt,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'hour', 'protocol', 'user_agent', 'source_address']).doUpdateSet({
          requests: sql`collector_activity.requests + excluded.requests`,
          records: sql`collector_activity.records + excluded.records`,
          last_seen_at: sql`CASE WHEN excluded.last_seen_at > collector_activity.last_seen_at THEN excluded.last_seen_at ELSE collector_activity.last_seen_at END`,
        }),
      )
      .execute();
  }
}

/** The column's value from whichever example is newer: the row's or the one being added. */
const newerExample = <Column extends 'last_at' | 'last_source_address' | 'last_user_agent' | 'last_detail'>(
  column: Column,
) =>
  sql<
    CollectorRejectionsTable[Column]
  >`CASE WHEN excluded.last_at >= collector_rejections.last_at THEN ${sql.ref(`excluded.${column}`)} ELSE ${sql.ref(`collector_rejections.${column}`)} END`;

export async function addRejections(db: Db, deltas: readonly RejectionDelta[]): Promise<void> {
  for (let i = 0; i < deltas.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('collector_rejections')
      .values(
        deltas.slice(i, i + ROWS_PER_STATEMENT).map((delta) => ({
          tenant_id: delta.tenantId,
          hour: delta.hour,
          code: delta.code,
          count: delta.count,
          last_at: delta.lastAt,
          last_source_address: delta.lastSourceAddress,
          last_user_agent: delta.lastUserAgent,
          last_detail: delta.lastDetail,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'hour', 'code']).doUpdateSet({
          count: sql`collector_rejections.count + excluded.count`,
          // The newer example wins; an older delta (a slower process) leaves it as it is.
          last_at: newerExample('last_at'),
          last_source_address: newerExample('last_source_address'),
          last_user_agent: newerExample('last_user_agent'),
          last_detail: newerExample('last_detail'),
        }),
      )
      .execute();
  }
}

export interface SenderRow {
  protocol: string;
  user_agent: string;
  source_address: string;
  requests: number;
  records: number;
  last_seen_at: number;
}

/** Senders since `since`, busiest first. */
export async function senders(db: Db, tenantId: number, since: number, limit: number): Promise<SenderRow[]> {
  const rows = await db
    .selectFrom('collector_activity')
    .select((eb) => [
      'protocol',
      'user_agent',
      'source_address',
      eb.fn.sum<number | string>('requests').as('requests'),
      eb.fn.sum<number | string>('records').as('records'),
      eb.fn.max('last_seen_at').as('last_seen_at'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('hour', '>=', since)
    .groupBy(['protocol', 'user_agent', 'source_address'])
    .orderBy('records', 'desc')
    .orderBy('last_seen_at', 'desc')
    .limit(limit)
    .execute();
  // sum() of a BIGINT is NUMERIC on PostgreSQL, which the driver returns as text.
  return rows.map((row) => ({ ...row, requests: Number(row.requests), records: Number(row.records) }));
}

export interface RejectionRow {
  code: string;
  count: number;
  last_at: number;
  last_source_address: string;
  last_user_agent: string;
  last_detail: string;
}

/** Refusals since `since` by code, with the latest example of each, most frequent first. */
export async function rejections(db: Db, tenantId: number, since: number): Promise<RejectionRow[]> {
  const rows = await db
    .selectFrom('collector_rejections')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('hour', '>=', since)
    .orderBy('last_at', 'desc')
    .execute();
  const byCode = new Map<string, RejectionRow>();
  for (const row of rows) {
    const known = byCode.get(row.code);
    // Rows come newest first: the first of a code is its latest example.
    if (known) known.count += row.count;
    else byCode.set(row.code, { ...row });
  }
  return [...byCode.values()].sort((a, b) => b.count - a.count || b.last_at - a.last_at);
}

/** Removes hours before `before` (the diagnostics keep two days). */
export async function purgeDiagnostics(db: Db, before: number): Promise<void> {
  await db.deleteFrom('collector_activity').where('hour', '<', before).execute();
  await db.deleteFrom('collector_rejections').where('hour', '<', before).execute();
}
