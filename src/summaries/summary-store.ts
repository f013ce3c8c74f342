// SQL for summaries, the model cache and feedback. Every query names the tenant, except cache
// reads, which are keyed by a fingerprint of the exact model input (that input holds the case id
// and the tenant's code name, so two tenants never share an entry).
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { CaseSummariesTable, SummaryCacheTable, Tables } from '../storage/schema.js';
import { emitEvents } from '../webhooks/webhook-events.js';

export type SummaryRow = Selectable<CaseSummariesTable>;
export type CacheRow = Selectable<SummaryCacheTable>;
type Db = Kysely<Tables> | Transaction<Tables>;

export function findCachedOutput(db: Db, fingerprint: string, now: number): Promise<CacheRow | undefined> {
  return db
    .selectFrom('summary_cache')
    .selectAll()
    .where('fingerprint', '=', fingerprint)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function storeCachedOutput(db: Db, row: CacheRow): Promise<void> {
  await db
    .insertInto('summary_cache')
    .values(row)
    .onConflict((oc) =>
      oc.column('fingerprint').doUpdateSet({
        output: row.output,
        input_tokens: row.input_tokens,
        output_tokens: row.output_tokens,
        latency_ms: row.latency_ms,
        created_at: row.created_at,
        expires_at: row.expires_at,
      }),
    )
    .execute();
}

/** Removes everything cached for a tenant (it opted out of AI summaries). */
export async function deleteTenantCache(db: Db, tenantId: number): Promise<void> {
  await db.deleteFrom('summary_cache').where('tenant_id', '=', tenantId).execute();
}

/** Deletes cache entries past their expiry; returns how many. */
export async function purgeExpired(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('summary_cache').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * The case's summary is replaced by each generation; feedback stays with the summary it rated.
 * The `summary.generated` webhook event is written in the same transaction.
 */
export async function saveSummary(db: Db, row: SummaryRow): Promise<void> {
  const { case_id: _caseId, ...rest } = row;
  const save = async (trx: Db) => {
    await trx
      .insertInto('case_summaries')
      .values(row)
      .onConflict((oc) => oc.column('case_id').doUpdateSet(rest))
      .execute();
    await emitEvents(trx, row.tenant_id, [summaryEvent(row)], row.generated_at);
  };
  if (db.isTransaction) await save(db);
  else await db.transaction().execute(save);
}

function summaryEvent(row: SummaryRow) {
  return {
    type: 'summary.generated' as const,
    subject: row.id,
    data: {
      summary: {
        id: row.id,
        case_id: row.case_id,
        provider: row.provider,
        model: row.model,
        generated_at: new Date(row.generated_at).toISOString(),
        href: `/v1/cases/${row.case_id}/summary`,
      },
    },
  };
}

export function findSummary(db: Db, tenantId: number, caseId: string): Promise<SummaryRow | undefined> {
  return db
    .selectFrom('case_summaries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('case_id', '=', caseId)
    .executeTakeFirst();
}

export function findSummaries(db: Db, tenantId: number, caseIds: readonly string[]): Promise<SummaryRow[]> {
  if (caseIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('case_summaries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('case_id', 'in', [...caseIds])
    .execute();
}

export async function saveFeedback(
  db: Db,
  row: { summary_id: string; user_id: string; tenant_id: number; rating: string; comment: string | null; now: number },
): Promise<void> {
  await db
    .insertInto('summary_feedback')
    .values({
      summary_id: row.summary_id,
      user_id: row.user_id,
      tenant_id: row.tenant_id,
      rating: row.rating,
      comment: row.comment,
      created_at: row.now,
      updated_at: row.now,
    })
    .onConflict((oc) =>
      oc
        .columns(['summary_id', 'user_id'])
        .doUpdateSet({ rating: row.rating, comment: row.comment, updated_at: row.now }),
    )
    .execute();
}

export function findFeedback(db: Db, tenantId: number, summaryId: string, userId: string) {
  return db
    .selectFrom('summary_feedback')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('summary_id', '=', summaryId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}
