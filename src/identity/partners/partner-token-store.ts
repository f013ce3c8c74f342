// SQL for partner API tokens. Every read and write names the partner, except the lookup by hash
// that authentication starts from (the hash is what identifies the partner).
import type { Kysely, Selectable } from 'kysely';
import type { PartnerTokensTable, Tables } from '../../storage/schema.js';

export type PartnerTokenRow = Selectable<PartnerTokensTable>;

export function insertPartnerToken(db: Kysely<Tables>, row: PartnerTokenRow): Promise<unknown> {
  return db.insertInto('partner_tokens').values(row).execute();
}

export function findPartnerTokenByHash(db: Kysely<Tables>, tokenHash: string): Promise<PartnerTokenRow | undefined> {
  return db.selectFrom('partner_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export function findPartnerToken(
  db: Kysely<Tables>,
  partnerId: string,
  id: string,
): Promise<PartnerTokenRow | undefined> {
  return db
    .selectFrom('partner_tokens')
    .selectAll()
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Newest first; `before` is the (created_at, id) of the last row of the previous page. */
export function listPartnerTokenRows(
  db: Kysely<Tables>,
  partnerId: string,
  page: { limit: number; before?: { createdAt: number; id: string } },
): Promise<PartnerTokenRow[]> {
  let query = db.selectFrom('partner_tokens').selectAll().where('partner_id', '=', partnerId);
  const before = page.before;
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', before.createdAt),
        eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
      ]),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
}

/** Marks the token deleted; false when it was already deleted (or is not the partner's). */
export async function markPartnerTokenDeleted(
  db: Kysely<Tables>,
  partnerId: string,
  id: string,
  deletedBy: string,
  at: number,
): Promise<boolean> {
  const result = await db
    .updateTable('partner_tokens')
    .set({ deleted_at: at, deleted_by: deletedBy })
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export function recordPartnerTokenUse(
  db: Kysely<Tables>,
  partnerId: string,
  id: string,
  at: number,
  ip: string,
): Promise<unknown> {
  return db
    .updateTable('partner_tokens')
    .set({ last_used_at: at, last_used_ip: ip })
    .where('partner_id', '=', partnerId)
    .where('id', '=', id)
    .execute();
}
