// SQL for API tokens. Every read and write names the tenant, except the lookup by hash that
// authentication starts from (the hash is what identifies the tenant).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ApiTokensTable, Tables } from '../../storage/schema.js';
import { likeContains } from '../../storage/like.js';

export type TokenRow = Selectable<ApiTokensTable>;

export function insertToken(db: Kysely<Tables>, token: TokenRow): Promise<unknown> {
  return db.insertInto('api_tokens').values(token).execute();
}

/**
 * The token with this hash, and whether the person who made it may still act (null for tokens
 * the CLI made): a disabled or deleted creator's tokens never authenticate, even one minted in the
 * instant the creator was being disabled.
 */
export async function findTokenByHash(
  db: Kysely<Tables>,
  tokenHash: string,
): Promise<(TokenRow & { creatorActive: boolean }) | undefined> {
  const row = await db
    .selectFrom('api_tokens as t')
    .leftJoin('users as u', 'u.id', 't.created_by_user_id')
    .selectAll('t')
    .select(['u.disabled_at as creator_disabled_at', 'u.deleted_at as creator_deleted_at'])
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { creator_disabled_at, creator_deleted_at, ...token } = row;
  return { ...token, creatorActive: creator_disabled_at === null && creator_deleted_at === null };
}

export function findToken(db: Kysely<Tables>, tenantId: number, id: string): Promise<TokenRow | undefined> {
  return db
    .selectFrom('api_tokens')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export type TokenStatus = 'active' | 'expired' | 'deleted';

export interface TokenFilter {
  /** Tokens in any of these states at `now`. */
  statuses?: readonly TokenStatus[];
  /** Lower-case text the name or the creator holds. */
  text?: string;
  /** Only the tokens this person made (with a session or with one of their tokens). */
  createdByUserId?: string;
  now: number;
}

/** Newest first; `before` is the (created_at, id) of the last row of the previous page. */
export function listTokens(
  db: Kysely<Tables>,
  tenantId: number,
  filter: TokenFilter,
  page: { limit: number; before?: { createdAt: number; id: string } },
): Promise<TokenRow[]> {
  let query = db.selectFrom('api_tokens').selectAll().where('tenant_id', '=', tenantId);
  const { statuses, text, now, createdByUserId } = filter;
  if (createdByUserId !== undefined) query = query.where('created_by_user_id', '=', createdByUserId);
  if (statuses?.length) {
    // The same rules as tokenStatus: deleted first, then expired at `now`, else active.
    query = query.where((eb) =>
      eb.or(
        statuses.map((status) =>
          status === 'deleted'
            ? eb('deleted_at', 'is not', null)
            : eb.and([
                eb('deleted_at', 'is', null),
                status === 'expired'
                  ? eb('expires_at', '<=', now)
                  : eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]),
              ]),
        ),
      ),
    );
  }
  if (text !== undefined)
    query = query.where((eb) =>
      eb.or([likeContains(sql`lower(name)`, text), likeContains(sql`lower(created_by)`, text)]),
    );
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

/** Marks the token deleted; returns false when it was already deleted (or is not the tenant's). */
export async function markTokenDeleted(
  db: Kysely<Tables>,
  tenantId: number,
  id: string,
  deletedBy: string,
  at: number,
): Promise<boolean> {
  const result = await db
    .updateTable('api_tokens')
    .set({ deleted_at: at, deleted_by: deletedBy })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The live (undeleted) tokens that any of `parentIds` minted. */
export function liveChildTokens(
  db: Kysely<Tables>,
  tenantId: number,
  parentIds: readonly string[],
): Promise<Pick<TokenRow, 'id' | 'name' | 'parent_token_id'>[]> {
  if (parentIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'parent_token_id'])
    .where('tenant_id', '=', tenantId)
    .where('parent_token_id', 'in', parentIds)
    .where('deleted_at', 'is', null)
    .execute();
}

/** Revokes a token along with another, saying why. */
export function markTokenRevoked(
  db: Kysely<Tables>,
  tenantId: number,
  id: string,
  revoke: { by: string; at: number; reason: string },
): Promise<unknown> {
  return db
    .updateTable('api_tokens')
    .set({ deleted_at: revoke.at, deleted_by: revoke.by, revoked_reason: revoke.reason })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .execute();
}

export function recordTokenUse(
  db: Kysely<Tables>,
  tenantId: number,
  id: string,
  at: number,
  ip: string,
): Promise<unknown> {
  return db
    .updateTable('api_tokens')
    .set({ last_used_at: at, last_used_ip: ip })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

/** The live (undeleted) tokens a person created, in the tenant. */
export function livePersonTokens(
  db: Kysely<Tables>,
  tenantId: number,
  userId: string,
): Promise<Pick<TokenRow, 'id' | 'name' | 'permissions' | 'parent_token_id'>[]> {
  return db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'permissions', 'parent_token_id'])
    .where('tenant_id', '=', tenantId)
    .where('created_by_user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .execute();
}
