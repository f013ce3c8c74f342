// A case's history: one row per change (who, when, what moved), written in the transaction of the
// change, each entry also a webhook event (case-events.ts); and reading it a page at a time.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { CaseHistoryTable, Tables } from '../storage/schema.js';
import { emitCaseEvents } from './case-events.js';

export type HistoryRow = Selectable<CaseHistoryTable>;
type Db = Kysely<Tables> | Transaction<Tables>;

export interface HistoryEntry {
  caseId: string;
  tenantId: number;
  at: number;
  actor: { type: string; id: string | null; label: string };
  action: string;
  changes: Record<string, unknown>;
}

export async function addHistory(db: Db, entries: readonly HistoryEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('case_history')
    .values(
      entries.map((entry) => ({
        case_id: entry.caseId,
        tenant_id: entry.tenantId,
        at: entry.at,
        actor_type: entry.actor.type,
        actor_id: entry.actor.id,
        actor_label: entry.actor.label,
        action: entry.action,
        changes: JSON.stringify(entry.changes),
      })),
    )
    .execute();
  // Every history entry is a webhook event (case-events.ts), written in the same transaction.
  await emitCaseEvents(db, entries);
}

export function listHistory(
  db: Db,
  tenantId: number,
  caseId: string,
  page: { limit: number; after?: number; order?: 'asc' | 'desc' },
): Promise<HistoryRow[]> {
  const order = page.order ?? 'asc';
  let query = db.selectFrom('case_history').selectAll().where('tenant_id', '=', tenantId).where('case_id', '=', caseId);
  if (page.after !== undefined) query = query.where('seq', order === 'asc' ? '>' : '<', page.after);
  return query.orderBy('seq', order).limit(page.limit).execute();
}
