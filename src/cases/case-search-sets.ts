// The filters of case search that name a set of cases held elsewhere: a device, a tag and a
// technique (their join tables) and free text (the trigram index of migration 0006). A set can
// drive a search (its few cases are read and sorted), or be checked per case while the search
// walks a sort index; case-search.ts decides which from the set's size.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { DatabaseKind } from '../storage/database.js';
import type { Db } from './case-store.js';
import { likeContains } from '../storage/like.js';

export interface CaseSet {
  /** Distinct cases of the tenant in the set, counted up to `limit` (all of them: null). */
  size(limit: number | null): Promise<number>;
  /** One row per case of the set, its id or seq in `key`: a query can be driven from them (as `d`). */
  members: RawBuilder<unknown>;
  /** The condition joining `d` to `c`. */
  joinsOn: RawBuilder<SqlBool>;
  /** True for the cases of `c` in the set. */
  contains: Expression<SqlBool>;
}

/** Text shorter than this has no trigram: it is matched by reading each case's search text. */
const MIN_INDEXED_TEXT = 3;

/** The free-text filter as a case search matches it: trimmed and lower-cased, like search_text. */
export function normaliseText(text: string): string {
  return text.trim().toLowerCase();
}

/** `search_text LIKE '%text%'`: the text filter read from each case's search text. */
export function textLike(text: string): RawBuilder<SqlBool> {
  return likeContains('c.search_text', text);
}

/** Rows of a query, counted up to `limit` (all of them: null). */
export async function countUpTo(db: Db, query: RawBuilder<unknown>, limit: number | null): Promise<number> {
  const row = await sql<{
    n: number;
  }>`SELECT count(*) AS n FROM (${query}${limit === null ? sql`` : sql` LIMIT ${limit}`}) m`.execute(db);
  return row.rows[0]?.n ?? 0;
}

/** A join table (case_id, value, tenant_id) whose (tenant_id, value, case_id) index lists a value's cases. */
function joinTableSet(
  db: Db,
  tenantId: number,
  table: 'case_devices' | 'case_tags' | 'case_techniques',
  column: 'device_id' | 'tag' | 'technique',
  value: string,
): CaseSet {
  const members = sql`SELECT m.case_id AS key FROM ${sql.table(table)} m WHERE m.tenant_id = ${tenantId} AND ${sql.ref(`m.${column}`)} = ${value}`;
  return {
    size: (limit) => countUpTo(db, members, limit),
    members,
    joinsOn: sql<SqlBool>`c.id = d.key`,
    // A probe of the table's primary key (case_id, value) per case; c is the tenant's already,
    // and case ids are unique across tenants.
    contains: sql<SqlBool>`EXISTS (SELECT 1 FROM ${sql.table(table)} p WHERE p.case_id = c.id AND ${sql.ref(`p.${column}`)} = ${value})`,
  };
}

export function deviceSet(db: Db, tenantId: number, deviceId: string): CaseSet {
  return joinTableSet(db, tenantId, 'case_devices', 'device_id', deviceId);
}

export function tagSet(db: Db, tenantId: number, tag: string): CaseSet {
  return joinTableSet(db, tenantId, 'case_tags', 'tag', tag);
}

/** A technique id; a parent (`T1059`) also finds its sub-techniques: cases are filed under both (filedTechniques). */
export function techniqueSet(db: Db, tenantId: number, technique: string): CaseSet {
  return joinTableSet(db, tenantId, 'case_techniques', 'technique', technique);
}

/** The FTS5 rowid is (tenant_id << 40) + seq, as migration 0006 writes it. */
const TENANT_SHIFT = sql.raw('40');

/**
 * SQLite: the FTS5 trigram index answers a phrase query (the text, quoted) with exactly the cases
 * whose search text contains it, from the index alone, inside the tenant's rowid range. Its
 * rowid must be compared with integer expressions: the driver binds numbers as REAL, and FTS5
 * does not honour `rowid = <real>`.
 */
function sqliteTextSet(db: Db, tenantId: number, text: string): CaseSet {
  const phrase = `"${text.replace(/"/g, '""')}"`;
  const members = sql`SELECT rowid - (${tenantId} << ${TENANT_SHIFT}) AS key FROM case_text
    WHERE case_text MATCH ${phrase} AND rowid >= (${tenantId} << ${TENANT_SHIFT}) AND rowid < ((${tenantId} + 1) << ${TENANT_SHIFT})`;
  return {
    size: (limit) => countUpTo(db, members, limit),
    members,
    joinsOn: sql<SqlBool>`c.seq = d.key`,
    // FTS5 answers a whole query far faster than one probe per case: the set is built once.
    contains: sql<SqlBool>`c.seq IN (${members})`,
  };
}

/** PostgreSQL: LIKE, answered from the pg_trgm GIN index; the planner has statistics to choose its own plan. */
function postgresTextSet(db: Db, tenantId: number, text: string): CaseSet {
  const members = sql`SELECT c.seq AS key FROM cases c WHERE c.tenant_id = ${tenantId} AND ${textLike(text)}`;
  return {
    size: (limit) => countUpTo(db, members, limit),
    members,
    joinsOn: sql<SqlBool>`c.seq = d.key`,
    contains: textLike(text),
  };
}

/** The text filter as a set; undefined when the text is too short for the trigram index. */
export function textSet(db: Db, kind: DatabaseKind, tenantId: number, text: string): CaseSet | undefined {
  // Trigrams are of characters (code points), not UTF-16 units.
  if (Array.from(text).length < MIN_INDEXED_TEXT) return undefined;
  return kind === 'sqlite' ? sqliteTextSet(db, tenantId, text) : postgresTextSet(db, tenantId, text);
}
