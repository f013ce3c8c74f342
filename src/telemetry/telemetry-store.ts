// Reads of the record log: time-range, full-text and field-equality search for one tenant, in
// log order, with keyset pagination on the sequence. Full text: SQLite FTS5 or PostgreSQL's
// tsvector table, both filled by the search indexer behind the log (see search-index.ts).
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

export interface RecordQuery {
  /** Receive time lower bound, inclusive (epoch ms). */
  since?: number;
  /** Receive time upper bound, exclusive (epoch ms). */
  until?: number;
  /** Words that must all occur in the record. */
  text?: string;
  /** Field equalities that must all hold. Path segments never contain `"` or `\`. */
  fields?: FieldFilter[];
  /** Only records after this sequence (pagination). */
  afterSeq?: number;
  limit: number;
}

export async function searchRecords(db: Kysely<Tables>, kind: DatabaseKind, tenantId: number, query: RecordQuery): Promise<StoredRecordRow[]> {
  let select = db
    .selectFrom('telemetry_records as r')
    .select(['r.seq', 'r.received_at', 'r.event_time', 'r.record', 'r.meta'])
    .where('r.tenant_id', '=', tenantId);
  if (query.since !== undefined) select = select.where('r.received_at', '>=', query.since);
  if (query.until !== undefined) select = select.where('r.received_at', '<', query.until);
  if (query.afterSeq !== undefined) select = select.where('r.seq', '>', query.afterSeq);
  const words = searchWords(query.text);
  if (words.length > 0) {
    if (kind === 'sqlite') {
      const match = words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' AND ');
      select = select.where(sql<boolean>`r.seq IN (SELECT rowid FROM telemetry_fts WHERE telemetry_fts MATCH ${match})`);
    } else {
      select = select.where(
        sql<boolean>`r.seq IN (SELECT f.seq FROM telemetry_fts f WHERE f.tenant_id = ${tenantId} AND f.tsv @@ plainto_tsquery('simple'::regconfig, ${words.join(' ')}))`,
      );
    }
  }
  if (query.fields && query.fields.length > 0) {
    select = select.where(kind === 'sqlite' ? sqliteFieldsMatch(query.fields) : postgresFieldsMatch(query.fields));
  }
  return select.orderBy('r.seq').limit(query.limit).execute();
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

type ContainmentNode = { [key: string]: ContainmentNode | FieldValue };

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
  const row = await db.selectFrom('telemetry_records').select((eb) => eb.fn.max('seq').as('end')).executeTakeFirst();
  return Number(row?.end ?? 0);
}

/** How many records the search indexer has still to index. */
export async function searchIndexLag(db: Kysely<Tables>): Promise<number> {
  const cursor = await db.selectFrom('log_cursors').select('seq').where('name', '=', SEARCH_INDEX_CURSOR).executeTakeFirst();
  return Math.max(0, (await logEnd(db)) - Number(cursor?.seq ?? 0));
}
