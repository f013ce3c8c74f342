// Saved telemetry searches: the only SQL for saved_searches. Every function takes the tenant
// and the owner first; a search is only ever read or changed by the person who saved it.
import type { Kysely, Selectable } from 'kysely';
import type { SavedSearchesTable, Tables } from '../storage/schema.js';

export type SavedSearchRow = Selectable<SavedSearchesTable>;

export interface Owner {
  tenantId: number;
  userId: string;
}

export async function listSavedSearches(db: Kysely<Tables>, owner: Owner): Promise<SavedSearchRow[]> {
  return db
    .selectFrom('saved_searches')
    .selectAll()
    .where('tenant_id', '=', owner.tenantId)
    .where('user_id', '=', owner.userId)
    .orderBy('name')
    .execute();
}

/** Saves under the name: a new row, or the owner's search of that name replaced (keeping its id). */
export async function upsertSavedSearch(
  db: Kysely<Tables>,
  owner: Owner,
  search: { id: string; name: string; query: string; view: string; now: number },
): Promise<SavedSearchRow> {
  return db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('saved_searches')
      .select('id')
      .where('tenant_id', '=', owner.tenantId)
      .where('user_id', '=', owner.userId)
      .where('name', '=', search.name)
      .executeTakeFirst();
    if (existing) {
      await trx
        .updateTable('saved_searches')
        .set({ query: search.query, view: search.view, updated_at: search.now })
        .where('id', '=', existing.id)
        .where('tenant_id', '=', owner.tenantId)
        .execute();
    } else {
      await trx
        .insertInto('saved_searches')
        .values({
          id: search.id,
          tenant_id: owner.tenantId,
          user_id: owner.userId,
          name: search.name,
          query: search.query,
          view: search.view,
          created_at: search.now,
          updated_at: search.now,
        })
        .execute();
    }
    return trx
      .selectFrom('saved_searches')
      .selectAll()
      .where('tenant_id', '=', owner.tenantId)
      .where('user_id', '=', owner.userId)
      .where('name', '=', search.name)
      .executeTakeFirstOrThrow();
  });
}

/** Whether the owner had a search with this id (and now has not). */
export async function deleteSavedSearch(db: Kysely<Tables>, owner: Owner, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('saved_searches')
    .where('tenant_id', '=', owner.tenantId)
    .where('user_id', '=', owner.userId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
