// The filters of case search that name a set of cases held elsewhere: a device, a tag and a
// technique (their join tables) and free text (the trigram index of migration 0006, read through
// the database's CaseSearchStorage). A set can drive a search (its few cases are read and
// sorted), or be checked per case while the search walks a sort index; case-search.ts decides
// which from the set's size.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
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

/**
 * Where case search differs between databases (storage/sqlite and storage/postgres answer it):
 * how free text finds its cases, each database having a trigram index of its own kind, and
 * whether the planner must be told which sort index to walk.
 */
export interface CaseSearchStorage {
  /** The free-text filter (normalised, at least MIN_INDEXED_TEXT characters) as a set of cases. */
  textSet(db: Db, tenantId: number, text: string): CaseSet;
  /**
   * `cases AS c`, walked along the named sort index when many cases match: a database without
   * statistics is told to, one with statistics chooses for itself.
   */
  walkingIndex(index: string): RawBuilder<unknown>;
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

/** The text filter as a set; undefined when the text is too short for the trigram index. */
export function textSet(db: Db, storage: CaseSearchStorage, tenantId: number, text: string): CaseSet | undefined {
  // Trigrams are of characters (code points), not UTF-16 units.
  if (Array.from(text).length < MIN_INDEXED_TEXT) return undefined;
  return storage.textSet(db, tenantId, text);
}
