// API tokens (docs/api.md, API tokens): created with a name, permissions and an expiry (30 days unless
// given; never beyond the maximum lifetime); the value is returned once and only its hash is kept.
// A token can mint tokens no broader and no longer-lived than itself, and deleting a token revokes
// every token it minted, theirs too, each saying why. A deleted token stays listed and never
// authenticates again. Authentication by token records its last use.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { recordAudit } from '../audit/audit-service.js';
import { isPermission, type Permission } from '../permissions.js';
import type { AuditActor, Principal } from '../principal.js';
import { newId } from '../../core/ids.js';
import { sameSecret, sha256 } from '../../core/secrets.js';
import { generateToken, isWellFormedToken } from './token-format.js';
import { DAY_MS, iso, MAX_TOKEN_NAME_LENGTH, tokenExpiry, tokenName, type TokenLifetimePolicy } from './token-rules.js';
import {
  findToken,
  findTokenByHash,
  insertToken,
  listTokens,
  liveChildTokens,
  livePersonTokens,
  markTokenDeleted,
  markTokenRevoked,
  recordTokenUse,
  type TokenRow,
  type TokenStatus,
} from './token-store.js';

export { DAY_MS, MAX_TOKEN_NAME_LENGTH, type TokenLifetimePolicy };
/** Last-use time and address are written at most this often per token, not on every call. */
const LAST_USE_RESOLUTION_MS = 60_000;

export type { TokenStatus };

export interface ApiToken {
  id: string;
  name: string;
  /** The value's last four characters, so people can tell tokens apart; never the value. */
  hint: string;
  permissions: Permission[];
  status: TokenStatus;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  deleted_at: string | null;
  deleted_by: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  /** The token that minted this one; null when a person or the CLI did. */
  parent_token_id: string | null;
  /** Why it was revoked along with another token, when it was. */
  revoked_reason: string | null;
}

export function tokenStatus(row: Pick<TokenRow, 'deleted_at' | 'expires_at'>, now = Date.now()): TokenStatus {
  if (row.deleted_at !== null) return 'deleted';
  if (row.expires_at !== null && row.expires_at <= now) return 'expired';
  return 'active';
}

/** A token as the lists show it; a partner's token has no tenant and no creating person. */
export function presentToken(
  row: Omit<TokenRow, 'tenant_id' | 'token_hash' | 'created_by_user_id'>,
  now = Date.now(),
): ApiToken {
  return {
    id: row.id,
    name: row.name,
    hint: `slt_…${row.token_hint}`,
    permissions: (JSON.parse(row.permissions) as string[]).filter(isPermission),
    status: tokenStatus(row, now),
    created_by: row.created_by,
    created_at: new Date(row.created_at).toISOString(),
    expires_at: iso(row.expires_at),
    deleted_at: iso(row.deleted_at),
    deleted_by: row.deleted_by,
    last_used_at: iso(row.last_used_at),
    last_used_ip: row.last_used_ip,
    parent_token_id: row.parent_token_id,
    revoked_reason: row.revoked_reason,
  };
}

export interface CreateTokenInput {
  tenantId: number;
  name: string;
  permissions: Permission[];
  /** Epoch ms; null for a token that does not expire (only without a maximum); undefined: the default. */
  expiresAt: number | null | undefined;
  /** Who creates it; a token may not grant what its creator lacks, nor outlive a creating token. */
  creator: {
    actor: AuditActor;
    userId: string | null;
    /** Set when a token creates it: the new token is that token's child. */
    tokenId?: string | null;
    permissions: ReadonlySet<Permission>;
    expiresAt: number | null;
  };
  lifetime: TokenLifetimePolicy;
  ip?: string | null;
}

/** Creates a token; the returned value is the only time it exists outside the caller. */
export async function createToken(
  db: Kysely<Tables>,
  input: CreateTokenInput,
): Promise<{ token: ApiToken; value: string }> {
  const name = tokenName(input.name);
  const now = Date.now();
  const expiresAt = tokenExpiry(input.expiresAt, input.lifetime, input.creator.expiresAt, now);
  const beyond = input.permissions.filter((permission) => !input.creator.permissions.has(permission));
  if (beyond.length > 0) {
    throw new AppError(
      'permission_denied',
      `a token cannot grant permissions its creator lacks: ${beyond.join(', ')}`,
      {
        extensions: { missing_permissions: beyond },
      },
    );
  }
  const value = generateToken();
  const row: TokenRow = {
    id: newId('tok'),
    tenant_id: input.tenantId,
    name,
    token_hash: sha256(value),
    token_hint: value.slice(-4),
    permissions: JSON.stringify(input.permissions),
    created_by_user_id: input.creator.userId,
    created_by: input.creator.actor.label,
    created_at: now,
    expires_at: expiresAt,
    deleted_at: null,
    deleted_by: null,
    last_used_at: null,
    last_used_ip: null,
    parent_token_id: input.creator.tokenId ?? null,
    revoked_reason: null,
  };
  await db.transaction().execute(async (trx) => {
    await insertToken(trx, row);
    await recordAudit(trx, {
      tenantId: input.tenantId,
      action: 'token.created',
      actor: input.creator.actor,
      ip: input.ip ?? null,
      target: { type: 'token', id: row.id },
      details: {
        name,
        permissions: input.permissions,
        expires_at: iso(expiresAt),
        ...(row.parent_token_id ? { parent_token_id: row.parent_token_id } : {}),
      },
    });
  });
  return { token: presentToken(row, now), value };
}

export async function getToken(db: Kysely<Tables>, tenantId: number, id: string): Promise<ApiToken> {
  const row = await findToken(db, tenantId, id);
  if (!row) throw new AppError('not_found', `no token ${JSON.stringify(id)}`);
  return presentToken(row);
}

export async function listTenantTokens(
  db: Kysely<Tables>,
  tenantId: number,
  filter: { statuses?: readonly TokenStatus[]; text?: string; createdByUserId?: string },
  page: { limit: number; before?: { createdAt: number; id: string } },
): Promise<{ tokens: ApiToken[]; next?: { createdAt: number; id: string } }> {
  // One clock for the filter and the statuses shown, so a token never shows a status it was not filtered by.
  const now = Date.now();
  const text = filter.text?.trim().toLowerCase();
  const rows = await listTokens(
    db,
    tenantId,
    {
      ...(filter.statuses ? { statuses: filter.statuses } : {}),
      ...(text ? { text } : {}),
      ...(filter.createdByUserId !== undefined ? { createdByUserId: filter.createdByUserId } : {}),
      now,
    },
    { ...page, limit: page.limit + 1 },
  );
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return {
    tokens: shown.map((row) => presentToken(row, now)),
    ...(rows.length > page.limit && last ? { next: { createdAt: last.created_at, id: last.id } } : {}),
  };
}

/**
 * Marks a token deleted, and revokes every token it minted (and theirs) in the same transaction,
 * each with the reason. Deleting an already deleted token is harmless and changes nothing.
 */
export async function deleteToken(
  db: Kysely<Tables>,
  tenantId: number,
  id: string,
  actor: AuditActor,
  ip: string | null,
): Promise<ApiToken> {
  const row = await findToken(db, tenantId, id);
  if (!row) throw new AppError('not_found', `no token ${JSON.stringify(id)}`);
  await db.transaction().execute(async (trx) => {
    const at = Date.now();
    if (!(await markTokenDeleted(trx, tenantId, id, actor.label, at))) return;
    await recordAudit(trx, {
      tenantId,
      action: 'token.deleted',
      actor,
      ip,
      target: { type: 'token', id },
      details: { name: row.name },
    });
    await revokeDescendants(trx, tenantId, row, actor, ip, at);
  });
  return getToken(db, tenantId, id);
}

/** Revokes, generation by generation, what `root` minted; each says which deletion revoked it. */
async function revokeDescendants(
  trx: Kysely<Tables>,
  tenantId: number,
  root: Pick<TokenRow, 'id' | 'name'>,
  actor: AuditActor,
  ip: string | null,
  at: number,
  why = 'was deleted',
): Promise<void> {
  const reason = `revoked because the token ${JSON.stringify(root.name)} (${root.id}) that minted it, directly or through another token, ${why}`;
  let generation = [root.id];
  // Lineage is a tree (a parent exists before its child), so this ends; the bound is a guard.
  for (let depth = 0; generation.length > 0 && depth < 1_000; depth++) {
    const children = await liveChildTokens(trx, tenantId, generation);
    for (const child of children) await revokeOne(trx, tenantId, child, { actor, ip, at, reason });
    generation = children.map((child) => child.id);
  }
}

async function revokeOne(
  trx: Kysely<Tables>,
  tenantId: number,
  token: Pick<TokenRow, 'id' | 'name' | 'parent_token_id'>,
  revoke: { actor: AuditActor; ip: string | null; at: number; reason: string },
): Promise<void> {
  const { actor, ip, at, reason } = revoke;
  await markTokenRevoked(trx, tenantId, token.id, { by: actor.label, at, reason });
  await recordAudit(trx, {
    tenantId,
    action: 'token.revoked',
    actor,
    ip,
    target: { type: 'token', id: token.id },
    details: { name: token.name, reason, parent_token_id: token.parent_token_id },
  });
}

/**
 * Revokes the live tokens a person created, and everything those minted, inside the caller's
 * transaction: all of them (the person was disabled or deleted), or with `keep`, only those
 * holding a permission outside it (the person's role shrank). Returns how many were revoked directly.
 */
export async function revokePersonTokens(
  trx: Kysely<Tables>,
  tenantId: number,
  userId: string,
  change: { actor: AuditActor; ip: string | null; reason: string; keep?: readonly Permission[] },
): Promise<number> {
  const at = Date.now();
  const keep = change.keep;
  const tokens = (await livePersonTokens(trx, tenantId, userId)).filter(
    (token) =>
      keep === undefined || (JSON.parse(token.permissions) as string[]).some((p) => !keep.includes(p as Permission)),
  );
  const listed = new Set(tokens.map((token) => token.id));
  // A listed token minted by another listed one goes with its parent, saying so.
  for (const token of tokens.filter((t) => t.parent_token_id === null || !listed.has(t.parent_token_id))) {
    await revokeOne(trx, tenantId, token, { actor: change.actor, ip: change.ip, at, reason: change.reason });
    await revokeDescendants(trx, tenantId, token, change.actor, change.ip, at, 'was revoked');
  }
  return tokens.length;
}

export type TokenCheck =
  | { ok: true; token: TokenRow }
  | { ok: false; code: 'invalid_credentials' | 'token_expired' | 'token_revoked'; token?: TokenRow };

/**
 * Checks a presented token value. A malformed value or bad checksum is rejected before any
 * lookup; the stored hash is compared in constant time.
 */
export async function checkToken(db: Kysely<Tables>, value: string, ip: string, now = Date.now()): Promise<TokenCheck> {
  if (!isWellFormedToken(value)) return { ok: false, code: 'invalid_credentials' };
  const hash = sha256(value);
  const found = await findTokenByHash(db, hash);
  if (!found || !sameSecret(found.token_hash, hash)) return { ok: false, code: 'invalid_credentials' };
  const { creatorActive, ...row } = found;
  const status = tokenStatus(row, now);
  if (status === 'deleted' || !creatorActive) return { ok: false, code: 'token_revoked', token: row };
  if (status === 'expired') return { ok: false, code: 'token_expired', token: row };
  if (row.last_used_at === null || row.last_used_ip !== ip || now - row.last_used_at >= LAST_USE_RESOLUTION_MS) {
    await recordTokenUse(db, row.tenant_id, row.id, now, ip);
  }
  return { ok: true, token: row };
}

export function tokenPrincipal(row: TokenRow): Principal {
  return {
    kind: 'token',
    id: row.id,
    label: row.name,
    userId: row.created_by_user_id,
    role: null,
    tenantId: row.tenant_id,
    operator: false,
    permissions: new Set((JSON.parse(row.permissions) as string[]).filter(isPermission)),
    expiresAt: row.expires_at,
  };
}
