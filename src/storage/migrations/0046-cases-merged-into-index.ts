// cases.merged_into gets an index: every case's detail (GET /v1/cases/{id}) lists the cases merged
// into it, and without one that list read every case of the tenant. Case ids are unique across
// tenants, so the id alone finds them (the query still filters on the tenant). Partial, as only
// merged cases carry the column: the index holds those alone, and a lookup of `merged_into = ?`
// implies the condition on both databases.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX cases_merged_into ON cases (merged_into) WHERE merged_into IS NOT NULL`.execute(db);
}
