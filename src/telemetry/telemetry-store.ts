// Reads of the record log: time-range, full-text and field-equality search for one tenant, in
// log order (or newest first), with keyset pagination, and match counts per time bucket (the
// search histogram, and with no criteria the collector's records per hour).
// Full text: SQLite FTS5 or PostgreSQL's tsvector table, both filled by the search indexer
// behind the log (see search-index.ts); each database's SQL comes from its RecordDialect.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { usesFullText, type QueryNode } from './telemetry-query.js';
import type { TextScope } from './telemetry-query-sql.js';
import { equalityClause, queryClauses, type Clause, type Wanted } from './telemetry-prefilter.js';

export type { TextScope } from './telemetry-query-sql.js';

export interface StoredRecordRow {
  seq: number;
  received_at: number;
  event_time: number;
  record: string;
  meta: string | null;
}

/** A JSON scalar a record field must equal, with its JSON type. */
export type FieldValue = string | number | boolean | null;

/** `path` names nested object keys (never array elements); the value there must equal `value`. */
export interface FieldFilter {
  path: string[];
  value: FieldValue;
}

/** What a record must match, whatever the order and paging. */
export interface RecordMatch {
  /** Receive time lower bound, inclusive (epoch ms). */
  since?: number;
  /** Receive time upper bound, exclusive (epoch ms). */
  until?: number;
  /** A parsed query of the telemetry query language (telemetry-query.ts). */
  query?: QueryNode;
  /** Field equalities that must all hold. Path segments never contain `"` or `\`. */
  fields?: FieldFilter[];
}

/** The conditions on `r` (telemetry_records) a search compiles to, in the database's SQL. */
export interface RecordDialect {
  /** A cheap substring test every matching record passes (telemetry-prefilter.ts), or none. */
  prefilter(clauses: Clause[]): RawBuilder<boolean> | undefined;
  /** A parsed query of the telemetry query language as one condition. */
  query(tenantId: number, node: QueryNode, scope: TextScope): RawBuilder<boolean>;
  /** Field equalities (at least one) that must all hold, typed as JSON types them. */
  fields(fields: FieldFilter[]): RawBuilder<boolean>;
}

/** A record's place in receive-time order: ties (the same millisecond) in log order. */
export interface RecordKey {
  receivedAt: number;
  seq: number;
}

export interface RecordQuery extends RecordMatch {
  /** `asc` (default): oldest receive time first. `desc`: newest first. */
  order?: 'asc' | 'desc';
  /** asc: only records after this key; desc: only records before it (pagination). */
  from?: RecordKey;
  limit: number;
}

export const recordColumns = ['r.seq', 'r.received_at', 'r.event_time', 'r.record', 'r.meta'] as const;

/**
 * Both orders run along the (tenant_id, received_at, seq) index from the page's key, so a page
 * costs the same wherever it lies and however many records the tenant has: nothing is sorted.
 */
export async function searchRecords(
  db: Kysely<Tables>,
  dialect: RecordDialect,
  tenantId: number,
  query: RecordQuery,
): Promise<StoredRecordRow[]> {
  let select = db.selectFrom('telemetry_records as r').select(recordColumns).where('r.tenant_id', '=', tenantId);
  for (const condition of matchConditions(dialect, tenantId, query)) select = select.where(condition);
  const desc = query.order === 'desc';
  if (query.from) {
    const { receivedAt, seq } = query.from;
    // Spelled out rather than a row comparison, which older SQLite plans as a scan.
    select = select.where(
      desc
        ? sql<boolean>`(r.received_at < ${receivedAt} OR (r.received_at = ${receivedAt} AND r.seq < ${seq}))`
        : sql<boolean>`(r.received_at > ${receivedAt} OR (r.received_at = ${receivedAt} AND r.seq > ${seq}))`,
    );
    select = select.where('r.received_at', desc ? '<=' : '>=', receivedAt);
  }
  const direction = desc ? 'desc' : 'asc';
  return select.orderBy('r.received_at', direction).orderBy('r.seq', direction).limit(query.limit).execute();
}

/** The tenant's newest records as stored (JSON text), newest first; reads the time index backwards. */
export async function newestRecordTexts(db: Kysely<Tables>, tenantId: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('telemetry_records')
    .select('record')
    .where('tenant_id', '=', tenantId)
    .orderBy('received_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.record);
}

/** The receive time of one of the tenant's records, by sequence (a page cursor's key). */
export async function recordKeyOf(db: Kysely<Tables>, tenantId: number, seq: number): Promise<RecordKey | undefined> {
  const row = await db
    .selectFrom('telemetry_records')
    .select(['received_at', 'seq'])
    .where('tenant_id', '=', tenantId)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row ? { receivedAt: row.received_at, seq: row.seq } : undefined;
}

/** The conditions on `r` (telemetry_records) a record must meet; the tenant is filtered by the caller. */
export function matchConditions(
  dialect: RecordDialect,
  tenantId: number,
  match: RecordMatch,
  scope: TextScope = { kind: 'all' },
): RawBuilder<boolean>[] {
  const conditions = timeConditions(match);
  // Before the conditions that parse the record, so that most records are turned away unparsed.
  const prefilter = dialect.prefilter([
    ...(match.query ? queryClauses(match.query) : []),
    ...(match.fields ?? []).flatMap(({ value }) => {
      const clause = equalityClause(wantedOf(value));
      return clause ? [clause] : [];
    }),
  ]);
  if (prefilter) conditions.push(prefilter);
  if (match.query) conditions.push(dialect.query(tenantId, match.query, scope));
  if (match.fields && match.fields.length > 0) conditions.push(dialect.fields(match.fields));
  return conditions;
}

/** The receive-time bounds alone: what a count with no other criteria needs (no dialect). */
export function timeConditions(range: { since?: number; until?: number }): RawBuilder<boolean>[] {
  const conditions: RawBuilder<boolean>[] = [];
  if (range.since !== undefined) conditions.push(sql<boolean>`r.received_at >= ${range.since}`);
  if (range.until !== undefined) conditions.push(sql<boolean>`r.received_at < ${range.until}`);
  return conditions;
}

/** A filter value as an equality wants it: strings as strings only. */
export function wantedOf(value: FieldValue): Wanted {
  if (value === null) return { json: 'null' };
  if (typeof value === 'boolean') return { json: value ? 'true' : 'false' };
  return typeof value === 'number' ? { number: value } : { text: value };
}

/** Whether the match needs the full-text index. */
export function hasText(match: RecordMatch): boolean {
  return usesFullText(match.query);
}

/** Start of each bucket of a histogram: `origin + i * width` for i in [0, count). */
export interface BucketGrid {
  origin: number;
  width: number;
  count: number;
}

/**
 * Records meeting `conditions` (matchConditions, or timeConditions alone) per bucket in one
 * grouped query (buckets without matches are left out).
 * Grid values are literals: PostgreSQL only sees the SELECT and GROUP BY expressions as the same
 * when they are written identically; receive times are integer ms in both dialects.
 */
export async function countPerBucket(
  db: Kysely<Tables>,
  tenantId: number,
  conditions: RawBuilder<boolean>[],
  grid: BucketGrid,
): Promise<Map<number, number>> {
  for (const value of [grid.origin, grid.width])
    if (!Number.isSafeInteger(value)) throw new Error(`countPerBucket: grid values must be integers (got ${value})`);
  // An int4 after the cast: a number from both drivers.
  const bucket = sql<number>`CAST((r.received_at - ${sql.lit(grid.origin)}) / ${sql.lit(grid.width)} AS INTEGER)`;
  let select = db
    .selectFrom('telemetry_records as r')
    .select([bucket.as('bucket'), (eb) => eb.fn.countAll<number | string | bigint>().as('n')])
    .where('r.tenant_id', '=', tenantId);
  for (const condition of conditions) select = select.where(condition);
  const rows = await select.groupBy(bucket).execute();
  return new Map(rows.map((row) => [row.bucket, Number(row.n)]));
}

/** Matching records in the match's time range; `scope` narrows the text lookup (see TextScope). */
export async function countMatching(
  db: Kysely<Tables>,
  dialect: RecordDialect,
  tenantId: number,
  match: RecordMatch,
  scope?: TextScope,
): Promise<number> {
  let select = db
    .selectFrom('telemetry_records as r')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('r.tenant_id', '=', tenantId);
  for (const condition of matchConditions(dialect, tenantId, match, scope)) select = select.where(condition);
  const row = await select.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The receive time of the tenant's newest record (epoch ms), or null when it has none. Reads only the time index. */
export async function lastReceivedAt(db: Kysely<Tables>, tenantId: number): Promise<number | null> {
  const row = await db
    .selectFrom('telemetry_records')
    .select('received_at')
    .where('tenant_id', '=', tenantId)
    .orderBy('received_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? row.received_at : null;
}

/** The tenant's records received in [since, until): how many, and their lowest and highest sequence. Reads only the time index. */
export async function receivedSpan(
  db: Kysely<Tables>,
  tenantId: number,
  since: number,
  until: number,
): Promise<{ count: number; firstSeq: number; lastSeq: number }> {
  const row = await db
    .selectFrom('telemetry_records')
    .select((eb) => [
      eb.fn.countAll<number | string | bigint>().as('n'),
      // Over no rows, min and max are null.
      eb.fn.min<number | null>('seq').as('first'),
      eb.fn.max<number | null>('seq').as('last'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('received_at', '>=', since)
    .where('received_at', '<', until)
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), firstSeq: row?.first ?? 0, lastSeq: row?.last ?? 0 };
}

/** The log_cursors row of the full-text search indexer. */
export const SEARCH_INDEX_CURSOR = 'search_index';

/** Sequence of the last record in the log (0 when empty). */
export async function logEnd(db: Kysely<Tables>): Promise<number> {
  const row = await db
    .selectFrom('telemetry_records')
    .select((eb) => eb.fn.max<number | null>('seq').as('end'))
    .executeTakeFirst();
  return row?.end ?? 0;
}

/** The newest of the tenant's records after `afterSeq` stored exactly as `text`, if any. */
export async function findStoredText(
  db: Kysely<Tables>,
  tenantId: number,
  afterSeq: number,
  text: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('telemetry_records')
    .select('seq')
    .where('tenant_id', '=', tenantId)
    .where('seq', '>', afterSeq)
    .where('record', '=', text)
    .orderBy('seq', 'desc')
    .executeTakeFirst();
  return row?.seq;
}

/** Sequence of the last record the search indexer has indexed (0 when none). */
export async function indexedUpTo(db: Kysely<Tables>): Promise<number> {
  const cursor = await db
    .selectFrom('log_cursors')
    .select('seq')
    .where('name', '=', SEARCH_INDEX_CURSOR)
    .executeTakeFirst();
  return cursor?.seq ?? 0;
}

/** How many records the search indexer has still to index. */
export async function searchIndexLag(db: Kysely<Tables>): Promise<number> {
  const indexed = await indexedUpTo(db);
  return Math.max(0, (await logEnd(db)) - indexed);
}
