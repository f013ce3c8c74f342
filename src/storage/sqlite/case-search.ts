// SQLite's answers for case search: free text from the FTS5 trigram table (migration 0006), and
// the sort index named outright, as SQLite plans without statistics (the server never runs
// ANALYZE): it takes an equality or range filter for a selective one and sorts what it finds,
// while walking the sort index finds a page sooner when many cases match.
import { sql, type SqlBool } from 'kysely';
import { countUpTo, type CaseSearchStorage, type CaseSet } from '../../cases/case-search-sets.js';
import type { Db } from '../../cases/case-store.js';

export const sqliteCaseSearch: CaseSearchStorage = {
  textSet: sqliteTextSet,
  walkingIndex: (index) => sql`cases AS c INDEXED BY ${sql.id(index)}`,
};

/** The FTS5 rowid is (tenant_id << 40) + seq, as migration 0006 writes it. */
const TENANT_SHIFT = sql.raw('40');

/**
 * The FTS5 trigram index answers a phrase query (the text, quoted) with exactly the cases
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
