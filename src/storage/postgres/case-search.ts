// PostgreSQL's answers for case search: free text from the pg_trgm GIN index (migration 0006),
// and no index hint: PostgreSQL has statistics and chooses its own plan.
import { sql, type SqlBool } from 'kysely';
import { countUpTo, textLike, type CaseSearchStorage, type CaseSet } from '../../cases/case-search-sets.js';
import type { Db } from '../../cases/case-store.js';

export const postgresCaseSearch: CaseSearchStorage = {
  textSet: postgresTextSet,
  walkingIndex: () => sql`cases AS c`,
};

/** LIKE, answered from the pg_trgm GIN index; the planner has statistics to choose its own plan. */
function postgresTextSet(db: Db, tenantId: number, text: string): CaseSet {
  const members = sql`SELECT c.seq AS key FROM cases c WHERE c.tenant_id = ${tenantId} AND ${textLike(text)}`;
  return {
    size: (limit) => countUpTo(db, members, limit),
    members,
    joinsOn: sql<SqlBool>`c.seq = d.key`,
    contains: textLike(text),
  };
}
