// Reads of the record log: time-range, full-text and field-equality search for one tenant, in
// log order (or newest first), with keyset pagination, and match counts per time bucket (the
// search histogram, and with no criteria the collector's records per hour).
// Full text: SQLite FTS5 or PostgreSQL's tsvector table, both filled by the search indexer
// behind the log (see search-index.ts).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { DatabaseKind } from '../storage/database.js';

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
  /** Words that must all occur in the record. */
  text?: string;
  /** Field equalities that must all hold. Path segments never contain `"` or `\`. */
  fields?: FieldFilter[];
}

export interface RecordQuery extends RecordMatch {
  /** `asc` (default): log order, oldest first. `desc`: newest receive time first. */
  order?: 'asc' | 'desc';
  /** asc: only records after this sequence (pagination). */
  afterSeq?: number;
  /** desc: only records before this (receive time, sequence) (pagination). */
  before?: { receivedAt: number; seq: number };
  limit: number;
}

export const recordColumns = ['r.seq', 'r.received_at', 'r.event_time', 'r.record', 'r.meta'] as const;

/**
 * Newest first runs along the (tenant_id, received_at, seq) index, so the newest page costs the
 * same however many records the tenant has; oldest first keeps the log order it always had.
 */
export async function searchRecords(
  db: Kysely<Tables>,
  kind: DatabaseKind,
  tenantId: number,
  query: RecordQuery,
): Promise<StoredRecordRow[]> {
  let select = db.selectFrom('telemetry_records as r').select(recordColumns).where('r.tenant_id', '=', tenantId);
  for (const condition of matchConditions(kind, tenantId, query)) select = select.where(condition);
  if (query.order === 'desc') {
    if (query.before)
      select = select.where(sql<boolean>`(r.received_at, r.seq) < (${query.before.receivedAt}, ${query.before.seq})`);
    return select.orderBy('r.received_at', 'desc').orderBy('r.seq', 'desc').limit(query.limit).execute();
  }
  if (query.afterSeq !== undefined) select = select.where('r.seq', '>', query.afterSeq);
  return select.orderBy('r.seq').limit(query.limit).execute();
}

/**
 * How the text condition finds its records. `all`: the set of every record holding the words
 * (one index lookup; right for searches over a time range). `window` (SQLite): only the index
 * entries within a sequence range, for reads of a few new records (the tail). `each`
 * (PostgreSQL): a lookup per candidate record, for the same reason.
 */
export type TextScope = { kind: 'all' } | { kind: 'window'; afterSeq: number; upToSeq: number } | { kind: 'each' };

/** The conditions on `r` (telemetry_records) a record must meet; the tenant is filtered by the caller. */
export function matchConditions(
  kind: DatabaseKind,
  tenantId: number,
  match: RecordMatch,
  scope: TextScope = { kind: 'all' },
): RawBuilder<boolean>[] {
  const conditions: RawBuilder<boolean>[] = [];
  if (match.since !== undefined) conditions.push(sql<boolean>`r.received_at >= ${match.since}`);
  if (match.until !== undefined) conditions.push(sql<boolean>`r.received_at < ${match.until}`);
  const words = searchWords(match.text);
  if (words.length > 0)
    conditions.push(kind === 'sqlite' ? sqliteTextMatch(words, scope) : postgresTextMatch(tenantId, words, scope));
  if (match.fields && match.fields.length > 0)
    conditions.push(kind === 'sqlite' ? sqliteFieldsMatch(match.fields) : postgresFieldsMatch(match.fields));
  return conditions;
}

function sqliteTextMatch(words: string[], scope: TextScope): RawBuilder<boolean> {
  const match = words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' AND ');
  // FTS5 seeks its lists by rowid, so a window costs what the window holds, not every match;
  // it only seeks with integer bounds, and better-sqlite3 binds JS numbers as reals (hence CAST).
  const window =
    scope.kind === 'window'
      ? sql` AND rowid > CAST(${scope.afterSeq} AS INTEGER) AND rowid <= CAST(${scope.upToSeq} AS INTEGER)`
      : sql``;
  return sql<boolean>`r.seq IN (SELECT rowid FROM telemetry_fts WHERE telemetry_fts MATCH ${match}${window})`;
}

function postgresTextMatch(tenantId: number, words: string[], scope: TextScope): RawBuilder<boolean> {
  const query = sql`plainto_tsquery('simple'::regconfig, ${words.join(' ')})`;
  if (scope.kind === 'each')
    return sql<boolean>`EXISTS (SELECT 1 FROM telemetry_fts f WHERE f.seq = r.seq AND f.tsv @@ ${query})`;
  return sql<boolean>`r.seq IN (SELECT f.seq FROM telemetry_fts f WHERE f.tenant_id = ${tenantId} AND f.tsv @@ ${query})`;
}

export function hasText(match: RecordMatch): boolean {
  return searchWords(match.text).length > 0;
}

/** Start of each bucket of a histogram: `origin + i * width` for i in [0, count). */
export interface BucketGrid {
  origin: number;
  width: number;
  count: number;
}

/**
 * Matching records per bucket in one grouped query (buckets without matches are left out).
 * Grid values are literals: PostgreSQL only sees the SELECT and GROUP BY expressions as the same
 * when they are written identically; receive times are integer ms in both dialects.
 */
export async function countPerBucket(
  db: Kysely<Tables>,
  kind: DatabaseKind,
  tenantId: number,
  match: RecordMatch,
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
  for (const condition of matchConditions(kind, tenantId, match)) select = select.where(condition);
  const rows = await select.groupBy(bucket).execute();
  return new Map(rows.map((row) => [row.bucket, Number(row.n)]));
}

/** Matching records in the match's time range; `scope` narrows the text lookup (see TextScope). */
export async function countMatching(
  db: Kysely<Tables>,
  kind: DatabaseKind,
  tenantId: number,
  match: RecordMatch,
  scope?: TextScope,
): Promise<number> {
  let select = db
    .selectFrom('telemetry_records as r')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('r.tenant_id', '=', tenantId);
  for (const condition of matchConditions(kind, tenantId, match, scope)) select = select.where(condition);
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

function searchWords(text: string | undefined): string[] {
  return (text ?? '').split(/\s+/).filter((word) => word !== '');
}

/**
 * SQLite: json_type checks the JSON type (so "500" never equals 500), json_extract the value.
 * Quoted path labels (`$."a"."b"`) look up object keys only, as the PostgreSQL side does.
 */
function sqliteFieldsMatch(fields: FieldFilter[]): RawBuilder<boolean> {
  const conditions = fields.map(({ path, value }) => {
    const jsonPath = `$${path.map((segment) => `."${segment}"`).join('')}`;
    const type = sql`json_type(r.record, ${jsonPath})`;
    if (value === null) return sql`${type} = 'null'`;
    if (typeof value === 'boolean') return sql`${type} = ${value ? 'true' : 'false'}`;
    const types = typeof value === 'number' ? sql`('integer', 'real')` : sql`('text')`;
    return sql`(${type} IN ${types} AND json_extract(r.record, ${jsonPath}) = ${value})`;
  });
  return sql<boolean>`(${sql.join(conditions, sql` AND `)})`;
}

/**
 * PostgreSQL: one jsonb containment test for all the filters, so each record is parsed once
 * however many there are. With scalar leaves containment is exactly typed equality at each path
 * (numbers compare as numbers; a nested array does not contain a key), matching SQLite.
 */
function postgresFieldsMatch(fields: FieldFilter[]): RawBuilder<boolean> {
  const wanted = containmentDocument(fields);
  if (!wanted) return sql<boolean>`false`;
  return sql<boolean>`(CASE WHEN ${notJsonbCastable()} THEN NULL ELSE r.record::jsonb END) @> ${JSON.stringify(wanted)}::jsonb`;
}

interface ContainmentNode {
  [key: string]: ContainmentNode | FieldValue;
}

/** The filters as one nested object; undefined when two contradict ("a" = 1 and "a.b" = 2). */
function containmentDocument(fields: FieldFilter[]): ContainmentNode | undefined {
  // Null-prototype objects, so that a key such as "__proto__" is just a key.
  const root: ContainmentNode = Object.create(null) as ContainmentNode;
  for (const { path, value } of fields) {
    let node = root;
    for (const [i, segment] of path.entries()) {
      const existing = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (i === path.length - 1) {
        if (existing !== undefined) return undefined;
        node[segment] = value;
      } else if (existing === undefined) {
        const child = Object.create(null) as ContainmentNode;
        node[segment] = child;
        node = child;
      } else if (typeof existing === 'object' && existing !== null) {
        node = existing;
      } else {
        return undefined;
      }
    }
  }
  return root;
}

/**
 * Valid JSON that PostgreSQL refuses as jsonb: a `\u0000` escape, an unpaired surrogate escape,
 * a number beyond `numeric` (exponent of 5+ digits, 16k+ digits in a row; the test is coarser
 * than the limit). Casting one such record would fail the whole query, so such records are
 * left out of field-filtered results on PostgreSQL; time and text search still find them.
 */
const UNSAFE_ESCAPE = String.raw`(^|[^\\])(\\\\)*\\u(0000|[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2}\\u)[dD][c-fC-F])`;
// Only after `:`, `,` or `[`, where a number can start: hex ids are full of "e12345".
const HUGE_EXPONENT = String.raw`(:|,|\[)[[:space:]]*-?[0-9]+(\.[0-9]+)?[eE][+-]?0*[1-9][0-9]{4}`;
// Counted repetition is capped at 255 in PostgreSQL's regex engine, hence the nesting; it is
// slow, so it only runs on records long enough to hold such a number.
const LONG_DIGIT_RUN = '([0-9]{128}){128}';

function notJsonbCastable(): RawBuilder<boolean> {
  return sql<boolean>`((strpos(r.record, ${'\\u'}) > 0 AND r.record ~ ${UNSAFE_ESCAPE}) OR r.record ~ ${HUGE_EXPONENT} OR (octet_length(r.record) > 16384 AND r.record ~ ${LONG_DIGIT_RUN}))`;
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
