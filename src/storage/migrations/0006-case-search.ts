// Case search at scale (100k+ cases per tenant): tenant-first indexes that hold every column a
// filter or sort looks at, so a page, a capped total and the status counts are found from index
// entries alone; cases filed under their sub-techniques' parents; and a trigram index over the
// search text, so a free-text filter reads the matching cases instead of every case's text.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

/** What a search checks: with these in every index it may walk, it never reads a case row to decide. */
const filterColumns = ['id', 'status', 'severity', 'score', 'assignee_id', 'created_at', 'updated_at'] as const;

/** Each index, by the columns it is ordered by (tenant first, seq last: the keyset tie-break). */
const caseIndexes: [name: string, ordered: readonly (typeof filterColumns)[number][]][] = [
  // The sort keys.
  ['cases_tenant_created', ['created_at']],
  ['cases_tenant_updated', ['updated_at']],
  ['cases_tenant_score', ['score']],
  // The equality filters; status with severity also answers GET /v1/cases/counts.
  ['cases_tenant_status', ['status', 'severity', 'created_at']],
  ['cases_tenant_assignee', ['assignee_id', 'created_at']],
  ['cases_tenant_severity', ['severity', 'score']],
];

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  // Every index a search can use covers every filter column. SQLite keeps no statistics unless
  // ANALYZE is run, and then takes any index whose columns are constrained to be selective;
  // when each one covers the filters, a poor pick costs index entries, never case rows.
  for (const [name, ordered] of caseIndexes) {
    const key = ['tenant_id', ...ordered, 'seq'].map((column) => sql.ref(column));
    const carried = filterColumns.filter((column) => !ordered.includes(column)).map((column) => sql.ref(column));
    await sql`DROP INDEX ${sql.id(name)}`.execute(db);
    // PostgreSQL keeps the carried columns out of the inner pages (INCLUDE); SQLite has no
    // INCLUDE, and trailing key columns cost little more.
    await (
      kind === 'postgres'
        ? sql`CREATE INDEX ${sql.id(name)} ON cases (${sql.join(key)}) INCLUDE (${sql.join(carried)})`
        : sql`CREATE INDEX ${sql.id(name)} ON cases (${sql.join([...key, ...carried])})`
    ).execute(db);
  }

  // A case is filed under the parent of each of its sub-techniques too (case-store.ts,
  // filedTechniques): a search for the parent is one exact lookup, each case once.
  await sql`INSERT INTO case_techniques (case_id, technique, tenant_id)
    SELECT DISTINCT case_id, substr(technique, 1, 5), tenant_id FROM case_techniques WHERE length(technique) > 5
    ON CONFLICT DO NOTHING`.execute(db);

  if (kind === 'sqlite') await sqliteTextIndex(db);
  else await postgresTextIndex(db);
}

/** The FTS5 table's rowid is (tenant_id << 40) + seq: one tenant's cases are one rowid range (case-search-sets.ts reads it so). */
const CASE_TEXT_TENANT_SHIFT = 40;

/**
 * An FTS5 trigram index of cases.search_text: a phrase query for the filter text finds exactly the
 * cases containing it (case-insensitively), as `LIKE '%text%'` did, without reading their text.
 * It stores no copy of the text (contentless); triggers keep it in step with every writer of
 * cases, as an index would be, and the tenant in the rowid lets a search and its count stay
 * inside the FTS index.
 */
async function sqliteTextIndex(db: Kysely<unknown>): Promise<void> {
  const rowid = (row: 'new' | 'old') => sql.raw(`(${row}.tenant_id << ${CASE_TEXT_TENANT_SHIFT}) + ${row}.seq`);
  await sql`CREATE VIRTUAL TABLE case_text USING fts5(search_text, content='', contentless_delete=1, tokenize='trigram')`.execute(
    db,
  );
  await sql`INSERT INTO case_text (rowid, search_text) SELECT (tenant_id << ${sql.lit(CASE_TEXT_TENANT_SHIFT)}) + seq, search_text FROM cases`.execute(
    db,
  );
  await sql`CREATE TRIGGER case_text_insert AFTER INSERT ON cases BEGIN
    INSERT INTO case_text (rowid, search_text) VALUES (${rowid('new')}, new.search_text);
  END`.execute(db);
  // Grouping rewrites search_text with every observation; most of the time it is unchanged.
  await sql`CREATE TRIGGER case_text_update AFTER UPDATE OF search_text ON cases WHEN old.search_text IS NOT new.search_text BEGIN
    DELETE FROM case_text WHERE rowid = ${rowid('old')};
    INSERT INTO case_text (rowid, search_text) VALUES (${rowid('new')}, new.search_text);
  END`.execute(db);
  await sql`CREATE TRIGGER case_text_delete AFTER DELETE ON cases BEGIN
    DELETE FROM case_text WHERE rowid = ${rowid('old')};
  END`.execute(db);
}

/**
 * A pg_trgm GIN index on cases.search_text: PostgreSQL answers `LIKE '%text%'` (3 characters or
 * more) from it. The extension is database-wide, so it goes into `public`, not into Sightline's
 * schema: dropping one install's schema must not take the extension (and every other install's
 * index) with it. Kysely's migration lock is database-wide, so two installs cannot race here.
 */
async function postgresTextIndex(db: Kysely<unknown>): Promise<void> {
  const installed = async () =>
    (
      await sql<{
        schema: string;
      }>`SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`.execute(
        db,
      )
    ).rows[0]?.schema;
  let schema = await installed();
  if (schema === undefined) {
    try {
      await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`.execute(db);
    } catch (error) {
      throw new Error(
        'case text search needs the PostgreSQL extension pg_trgm (in the contrib package, available on the managed services), ' +
          `and this database user could not create it (${error instanceof Error ? error.message : String(error)}); ` +
          'have an administrator run CREATE EXTENSION pg_trgm WITH SCHEMA public in this database, then start Sightline again',
        { cause: error },
      );
    }
    schema = (await installed()) ?? 'public';
  }
  await sql`CREATE INDEX cases_search_text_trgm ON cases USING GIN (search_text ${sql.id(schema, 'gin_trgm_ops')})`.execute(
    db,
  );
}
