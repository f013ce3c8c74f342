// Collector ingest keys (docs/collector.md): per-tenant credentials that forwarders send to
// POST /log_sink, separate from API tokens. A key is shown once at creation and stored only as
// its SHA-256; deleting it revokes it. The tenant's policy says whether its collector requires
// a key; it cannot be turned on while the tenant has none, so one click cannot lock every
// forwarder out. Every change is audited; the collector's cache is told by the caller.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { hasControlCharacter } from '../../core/control-characters.js';
import { newId } from '../../core/ids.js';
import { sha256 } from '../../core/secrets.js';
import { secretFormat } from '../../identity/tokens/token-format.js';
import { recordAudit } from '../../identity/audit/audit-service.js';
import type { AuditActor } from '../../identity/principal.js';
import {
  countIngestKeys,
  deleteIngestKeyRow,
  findIngestKey,
  insertIngestKey,
  listIngestKeys,
  readIngestPolicy,
  saveIngestPolicy,
  type IngestKeyRow,
} from './ingest-key-store.js';

export const ingestKeyFormat = secretFormat('sli_');
export const MAX_INGEST_KEY_NAME_LENGTH = 100;
/** Keys per tenant: the collector holds every key's hash in memory. */
export const MAX_INGEST_KEYS_PER_TENANT = 100;
const SHOWN_PREFIX_LENGTH = ingestKeyFormat.prefix.length + 4;

/** Who changes a tenant's keys, and where from. */
export interface IngestKeyContext {
  db: Kysely<Tables>;
  tenantId: number;
  actor: AuditActor;
  ip: string | null;
}

export interface IngestKey {
  id: string;
  name: string;
  /** The key's first characters (`sli_AbCd…`), never the key. */
  prefix: string;
  created_at: string;
  created_by: string;
  expires_at: string | null;
  last_used_at: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentIngestKey(row: IngestKeyRow): IngestKey {
  return {
    id: row.id,
    name: row.name,
    prefix: `${row.key_prefix}…`,
    created_at: new Date(row.created_at).toISOString(),
    created_by: row.created_by,
    expires_at: iso(row.expires_at),
    last_used_at: iso(row.last_used_at),
  };
}

/** Creates a key; the returned value is the only time it exists outside the caller. */
export async function createIngestKey(
  ctx: IngestKeyContext,
  input: { name: string; expiresAt?: number | null },
  now = Date.now(),
): Promise<{ ingest_key: IngestKey; value: string }> {
  const name = input.name.trim();
  if (name === '' || name.length > MAX_INGEST_KEY_NAME_LENGTH || hasControlCharacter(name)) {
    throw new AppError(
      'invalid_request',
      `name must be 1 to ${MAX_INGEST_KEY_NAME_LENGTH} characters, without control characters`,
      { extensions: { field: 'name' } },
    );
  }
  const expiresAt = input.expiresAt ?? null;
  if (expiresAt !== null && expiresAt <= now) {
    throw new AppError('invalid_request', 'expires_at must be in the future', { extensions: { field: 'expires_at' } });
  }
  if ((await countIngestKeys(ctx.db, ctx.tenantId)) >= MAX_INGEST_KEYS_PER_TENANT) {
    throw new AppError(
      'invalid_request',
      `a tenant has at most ${MAX_INGEST_KEYS_PER_TENANT} ingest keys; delete one it no longer uses first`,
      { extensions: { limit: MAX_INGEST_KEYS_PER_TENANT } },
    );
  }
  const value = ingestKeyFormat.generate();
  const row: IngestKeyRow = {
    id: newId('ikey'),
    tenant_id: ctx.tenantId,
    name,
    key_hash: sha256(value),
    key_prefix: value.slice(0, SHOWN_PREFIX_LENGTH),
    created_at: now,
    created_by: ctx.actor.label,
    expires_at: expiresAt,
    last_used_at: null,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await insertIngestKey(trx, row);
    await recordAudit(trx, {
      tenantId: ctx.tenantId,
      action: 'ingest_key.created',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'ingest_key', id: row.id },
      details: { name, expires_at: iso(expiresAt) },
    });
  });
  return { ingest_key: presentIngestKey(row), value };
}

export async function listTenantIngestKeys(
  db: Kysely<Tables>,
  tenantId: number,
  page: { limit: number; before?: { createdAt: number; id: string } },
): Promise<{ keys: IngestKey[]; next?: { createdAt: number; id: string } }> {
  const rows = await listIngestKeys(db, tenantId, { ...page, limit: page.limit + 1 });
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    keys: shown.map(presentIngestKey),
    ...(rows.length > page.limit && last ? { next: { createdAt: last.created_at, id: last.id } } : {}),
  };
}

/**
 * Deletes (revokes) a key. Deleting the last key while keys are required is allowed: a leaked
 * key must be revocable at once, even if the tenant's forwarders then need a new one.
 */
export async function deleteIngestKey(ctx: IngestKeyContext, id: string): Promise<IngestKey> {
  const row = await findIngestKey(ctx.db, ctx.tenantId, id);
  if (!row) throw new AppError('not_found', `no ingest key ${JSON.stringify(id)}`);
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await deleteIngestKeyRow(trx, ctx.tenantId, id))) return;
    await recordAudit(trx, {
      tenantId: ctx.tenantId,
      action: 'ingest_key.deleted',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'ingest_key', id },
      details: { name: row.name },
    });
  });
  return presentIngestKey(row);
}

export interface IngestKeyPolicy {
  require_ingest_key: boolean;
}

export async function getIngestKeyPolicy(db: Kysely<Tables>, tenantId: number): Promise<IngestKeyPolicy> {
  return { require_ingest_key: (await readIngestPolicy(db, tenantId)).requireKey };
}

/** Turns the requirement on or off; on needs at least one key, so forwarders have one to use. */
export async function setIngestKeyPolicy(ctx: IngestKeyContext, requireKey: boolean): Promise<IngestKeyPolicy> {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await readIngestPolicy(trx, ctx.tenantId);
    if (before.requireKey === requireKey) return;
    if (requireKey && (await countIngestKeys(trx, ctx.tenantId)) === 0) {
      throw new AppError(
        'no_ingest_key',
        'the tenant has no ingest key: create one and configure your forwarders with it before requiring keys, or every forwarder is refused',
      );
    }
    await saveIngestPolicy(trx, ctx.tenantId, { requireKey, at: Date.now(), by: ctx.actor.label });
    await recordAudit(trx, {
      tenantId: ctx.tenantId,
      action: 'collector.ingest_key_policy_changed',
      actor: ctx.actor,
      ip: ctx.ip,
      details: { require_ingest_key: { from: before.requireKey, to: requireKey } },
    });
  });
  return { require_ingest_key: requireKey };
}
