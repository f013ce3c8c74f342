// The case query behind `POST /v1/cases`: filters as index lookups where they can be (status,
// assignee, device, technique and tag tables), keyset pagination on (sort value, seq), and the
// total count of the filtered set.
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { CasesTable, Tables } from '../storage/schema.js';
import type { CaseRow, Db } from './case-store.js';

export interface CaseFilter {
  statuses?: string[];
  severities?: string[];
  scoreMin?: number;
  scoreMax?: number;
  /** A user id; null: unassigned cases. */
  assignee?: string | null;
  /** Every tag given must be on the case. */
  tags?: string[];
  deviceId?: string;
  /** A technique id; a parent (`T1059`) also finds its sub-techniques. */
  technique?: string;
  /** Case-insensitive substring of the number (`#42`), title, description, hosts or tags. */
  text?: string;
  createdAfter?: number;
  createdBefore?: number;
  updatedAfter?: number;
  updatedBefore?: number;
}

export type CaseSort = 'created' | 'updated' | 'score';
const sortColumn = { created: 'c.created_at', updated: 'c.updated_at', score: 'c.score' } as const;

export interface CasePage {
  sort: CaseSort;
  order: 'asc' | 'desc';
  limit: number;
  /** The previous page's last (sort value, seq). */
  after?: { value: number; seq: number };
}

type CaseScope = ExpressionBuilder<Tables & { c: CasesTable }, 'c'>;

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function conditions(eb: CaseScope, tenantId: number, filter: CaseFilter): Expression<SqlBool> {
  const all: Expression<SqlBool>[] = [eb('c.tenant_id', '=', tenantId)];
  if (filter.statuses?.length) all.push(eb('c.status', 'in', filter.statuses));
  if (filter.severities?.length) all.push(eb('c.severity', 'in', filter.severities));
  if (filter.scoreMin !== undefined) all.push(eb('c.score', '>=', filter.scoreMin));
  if (filter.scoreMax !== undefined) all.push(eb('c.score', '<=', filter.scoreMax));
  if (filter.assignee !== undefined) all.push(filter.assignee === null ? eb('c.assignee_id', 'is', null) : eb('c.assignee_id', '=', filter.assignee));
  if (filter.createdAfter !== undefined) all.push(eb('c.created_at', '>=', filter.createdAfter));
  if (filter.createdBefore !== undefined) all.push(eb('c.created_at', '<', filter.createdBefore));
  if (filter.updatedAfter !== undefined) all.push(eb('c.updated_at', '>', filter.updatedAfter));
  if (filter.updatedBefore !== undefined) all.push(eb('c.updated_at', '<', filter.updatedBefore));
  // Each join-table filter is an IN over that table's own index (tenant, value), so SQLite
  // starts from the few matching rows instead of probing per case.
  if (filter.deviceId !== undefined) {
    all.push(eb('c.id', 'in', eb.selectFrom('case_devices as cd').select('cd.case_id').where('cd.tenant_id', '=', tenantId).where('cd.device_id', '=', filter.deviceId)));
  }
  const technique = filter.technique;
  if (technique !== undefined) {
    all.push(
      eb(
        'c.id',
        'in',
        eb
          .selectFrom('case_techniques as ct')
          .select('ct.case_id')
          .where('ct.tenant_id', '=', tenantId)
          // One index range: ids match ^T\d{4}(\.\d{3})?$, so [T1059, T1059/) is T1059 and its sub-techniques.
          .where('ct.technique', '>=', technique)
          .where('ct.technique', '<', `${technique}/`),
      ),
    );
  }
  for (const tag of filter.tags ?? []) {
    all.push(eb('c.id', 'in', eb.selectFrom('case_tags as tg').select('tg.case_id').where('tg.tenant_id', '=', tenantId).where('tg.tag', '=', tag)));
  }
  if (filter.text !== undefined && filter.text.trim() !== '') {
    all.push(sql<SqlBool>`c.search_text LIKE ${`%${escapeLike(filter.text.trim().toLowerCase())}%`} ESCAPE '\\'`);
  }
  return eb.and(all);
}

export async function searchCases(db: Db, tenantId: number, filter: CaseFilter, page: CasePage): Promise<{ rows: CaseRow[]; total: number }> {
  const column = sortColumn[page.sort];
  const after = page.after;
  let query = db
    .selectFrom('cases as c')
    .selectAll('c')
    .where((eb) => conditions(eb, tenantId, filter));
  if (after) {
    const beyond = page.order === 'desc' ? '<' : '>';
    query = query.where((eb) => eb.or([eb(column, beyond, after.value), eb.and([eb(column, '=', after.value), eb('c.seq', beyond, after.seq)])]));
  }
  const rows = await query.orderBy(column, page.order).orderBy('c.seq', page.order).limit(page.limit).execute();
  const counted = await db
    .selectFrom('cases as c')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => conditions(eb, tenantId, filter))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(counted.n) };
}

export function sortValue(row: CaseRow, sort: CaseSort): number {
  return sort === 'created' ? row.created_at : sort === 'updated' ? row.updated_at : row.score;
}
