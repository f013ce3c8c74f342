// A partner's API tokens: created by a platform operator (API or CLI) with a name, permissions
// and an expiry, under the same rules and in the same format as tenant tokens (`slt_…`, only the
// SHA-256 kept, the value shown once). A partner token acts in every tenant of its partner with
// the permissions it was given; it mints no tokens. Deleting it stops it at once.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { sameSecret, sha256 } from '../../core/secrets.js';
import { recordAudit } from '../audit/audit-service.js';
import { isPermission, type Permission } from '../permissions.js';
import type { AuditActor, PartnerAccess, Principal } from '../principal.js';
import { generateToken, isWellFormedToken } from '../tokens/token-format.js';
import { iso, tokenExpiry, tokenName, type TokenLifetimePolicy } from '../tokens/token-rules.js';
import { presentToken, tokenStatus, type ApiToken } from '../tokens/token-service.js';
import type { PartnerRow } from './partner-store.js';
import { findPartnerById, partnerTenantRows } from './partner-store.js';
import {
  findPartnerToken,
  findPartnerTokenByHash,
  insertPartnerToken,
  listPartnerTokenRows,
  markPartnerTokenDeleted,
  recordPartnerTokenUse,
  type PartnerTokenRow,
} from './partner-token-store.js';

/** Last-use time and address are written at most this often per token, as for tenant tokens. */
const LAST_USE_RESOLUTION_MS = 60_000;

/** A partner token in the shape of a tenant's token list: no parent, never revoked with another. */
export function presentPartnerToken(row: PartnerTokenRow, now = Date.now()): ApiToken {
  return presentToken({ ...row, parent_token_id: null, revoked_reason: null }, now);
}

/** Creates a token of the partner; the returned value is the only time it exists outside the caller. */
export async function createPartnerToken(
  db: Kysely<Tables>,
  partner: PartnerRow,
  input: {
    name: string;
    permissions: readonly Permission[];
    /** Epoch ms; null: never expires (only without a maximum); undefined: the default lifetime. */
    expiresAt: number | null | undefined;
    lifetime: TokenLifetimePolicy;
    actor: AuditActor;
    ip: string | null;
  },
): Promise<{ token: ApiToken; value: string }> {
  const name = tokenName(input.name);
  const now = Date.now();
  const expiresAt = tokenExpiry(input.expiresAt, input.lifetime, null, now);
  const value = generateToken();
  const row: PartnerTokenRow = {
    id: newId('ptk'),
    partner_id: partner.id,
    name,
    token_hash: sha256(value),
    token_hint: value.slice(-4),
    permissions: JSON.stringify(input.permissions),
    created_by: input.actor.label,
    created_at: now,
    expires_at: expiresAt,
    deleted_at: null,
    deleted_by: null,
    last_used_at: null,
    last_used_ip: null,
  };
  await db.transaction().execute(async (trx) => {
    await insertPartnerToken(trx, row);
    await recordAudit(trx, {
      tenantId: null,
      action: 'partner_token.created',
      actor: input.actor,
      ip: input.ip,
      target: { type: 'partner_token', id: row.id },
      details: { partner: partner.code_name, name, permissions: input.permissions, expires_at: iso(expiresAt) },
    });
  });
  return { token: presentPartnerToken(row, now), value };
}

export async function listPartnerTokens(
  db: Kysely<Tables>,
  partner: PartnerRow,
  page: { limit: number; before?: { createdAt: number; id: string } },
): Promise<{ tokens: ApiToken[]; next?: { createdAt: number; id: string } }> {
  const now = Date.now();
  const rows = await listPartnerTokenRows(db, partner.id, { ...page, limit: page.limit + 1 });
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    tokens: shown.map((row) => presentPartnerToken(row, now)),
    ...(rows.length > page.limit && last ? { next: { createdAt: last.created_at, id: last.id } } : {}),
  };
}

/** Marks a partner token deleted: it never authenticates again and stays listed. Deleting twice changes nothing. */
export async function deletePartnerToken(
  db: Kysely<Tables>,
  partner: PartnerRow,
  id: string,
  change: { actor: AuditActor; ip: string | null },
): Promise<ApiToken> {
  const row = await findPartnerToken(db, partner.id, id);
  if (!row) throw new AppError('not_found', `partner ${partner.code_name} has no token ${JSON.stringify(id)}`);
  await db.transaction().execute(async (trx) => {
    if (!(await markPartnerTokenDeleted(trx, partner.id, id, change.actor.label, Date.now()))) return;
    await recordAudit(trx, {
      tenantId: null,
      action: 'partner_token.deleted',
      actor: change.actor,
      ip: change.ip,
      target: { type: 'partner_token', id },
      details: { partner: partner.code_name, name: row.name },
    });
  });
  const deleted = await findPartnerToken(db, partner.id, id);
  if (!deleted) throw new Error(`partner token ${id} vanished while it was deleted`);
  return presentPartnerToken(deleted);
}

export type PartnerTokenCheck =
  | { ok: true; principal: Principal }
  | {
      ok: false;
      code: 'invalid_credentials' | 'token_expired' | 'token_revoked';
      expiresAt: number | null;
      id?: string;
    };

/**
 * Checks a presented value against the partner tokens, as checkToken does against the tenants':
 * the shape and checksum first, the stored hash compared in constant time.
 */
export async function checkPartnerToken(
  db: Kysely<Tables>,
  value: string,
  ip: string,
  now = Date.now(),
): Promise<PartnerTokenCheck> {
  if (!isWellFormedToken(value)) return { ok: false, code: 'invalid_credentials', expiresAt: null };
  const hash = sha256(value);
  const row = await findPartnerTokenByHash(db, hash);
  if (!row || !sameSecret(row.token_hash, hash)) return { ok: false, code: 'invalid_credentials', expiresAt: null };
  const status = tokenStatus(row, now);
  if (status !== 'active') {
    const code = status === 'deleted' ? 'token_revoked' : 'token_expired';
    return { ok: false, code, expiresAt: row.expires_at, id: row.id };
  }
  const partner = await findPartnerById(db, row.partner_id);
  if (!partner) return { ok: false, code: 'token_revoked', expiresAt: row.expires_at, id: row.id };
  if (row.last_used_at === null || row.last_used_ip !== ip || now - row.last_used_at >= LAST_USE_RESOLUTION_MS) {
    await recordPartnerTokenUse(db, row.partner_id, row.id, now, ip);
  }
  return { ok: true, principal: await partnerTokenPrincipal(db, row, partner) };
}

async function partnerTokenPrincipal(
  db: Kysely<Tables>,
  row: PartnerTokenRow,
  partner: PartnerRow,
): Promise<Principal> {
  const permissions: ReadonlySet<Permission> = new Set((JSON.parse(row.permissions) as string[]).filter(isPermission));
  const access: PartnerAccess = {
    id: partner.id,
    codeName: partner.code_name,
    name: partner.name,
    tenants: (await partnerTenantRows(db, partner.id)).map((tenant) => ({ tenant, permissions })),
  };
  return {
    kind: 'token',
    id: row.id,
    label: `${row.name} (partner ${partner.code_name})`,
    userId: null,
    role: null,
    tenantId: null,
    operator: false,
    permissions,
    expiresAt: row.expires_at,
    partner: access,
  };
}
