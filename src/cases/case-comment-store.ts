// SQL for case comments. Every query filters on the tenant; writers run inside the caller's
// transaction.
import type { Selectable } from 'kysely';
import type { CaseCommentsTable } from '../storage/schema.js';
import type { Db } from './case-store.js';

export type CommentRow = Selectable<CaseCommentsTable>;

export async function insertComment(db: Db, row: Omit<CommentRow, 'seq'>): Promise<void> {
  await db.insertInto('case_comments').values(row).execute();
}

export function findComment(db: Db, tenantId: number, caseId: string, id: string): Promise<CommentRow | undefined> {
  return db
    .selectFrom('case_comments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', caseId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function updateComment(
  db: Db,
  tenantId: number,
  id: string,
  changes: { body?: string; updated_at?: number; deleted_at?: number },
): Promise<void> {
  await db.updateTable('case_comments').set(changes).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

export function listComments(
  db: Db,
  tenantId: number,
  caseId: string,
  page: { limit: number; after?: number },
): Promise<CommentRow[]> {
  let query = db
    .selectFrom('case_comments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', caseId)
    .where('deleted_at', 'is', null);
  if (page.after !== undefined) query = query.where('seq', '>', page.after);
  return query.orderBy('seq').limit(page.limit).execute();
}
