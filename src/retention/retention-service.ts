// Telemetry retention as tenants and operators see it (docs/operations.md, Retention). A tenant's raw
// records are kept for its number of days (the operator's default unless it chose one, always
// within the operator's range) and then purged in the background; observations, cases, the
// audit log and summaries are kept until deleted. A legal hold suspends purging for the tenant.
// Every change is audited.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { AppError } from '../core/errors.js';
import { hasControlCharacter } from '../core/control-characters.js';
import { recordAudit } from '../identity/audit/audit-service.js';
import type { AuditActor } from '../identity/principal.js';
import {
  listTenantsWithRetention,
  readLimits,
  readTenantRetention,
  saveLimits,
  saveTenantPolicy,
  type RetentionLimitsRow,
  type TenantRetentionRow,
} from './retention-store.js';
import { checkDays, checkLimits, effectiveDays, MAX_HOLD_REASON_LENGTH } from './retention-rules.js';

export interface RetentionContext {
  db: Kysely<Tables>;
  tenantId: number;
  actor: AuditActor;
  ip: string | null;
}

export interface RetentionLimits {
  min_days: number;
  max_days: number;
  default_days: number;
}

export interface RetentionUsage {
  records: number | null;
  bytes: number | null;
  oldest_record_at: string | null;
  measured_at: string | null;
}

export interface TenantRetention {
  telemetry_days: number | null;
  effective_days: number;
  legal_hold: boolean;
  legal_hold_reason: string | null;
  limits: RetentionLimits;
  usage: RetentionUsage;
  purged_records: number;
  last_purge_at: string | null;
}

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

type RetentionColumn =
  | 'telemetry_days'
  | 'legal_hold'
  | 'legal_hold_reason'
  | 'purged_records'
  | 'last_purge_at'
  | 'stored_records'
  | 'stored_bytes'
  | 'oldest_received_at'
  | 'measured_at';
/** A tenant's row, or the columns of an outer join (null where the tenant has no row). */
type RetentionColumns = { [K in RetentionColumn]?: TenantRetentionRow[K] | null };

function presentLimits(row: RetentionLimitsRow): RetentionLimits {
  return { min_days: row.min_days, max_days: row.max_days, default_days: row.default_days };
}

export function presentRetention(row: RetentionColumns | undefined, limits: RetentionLimitsRow): TenantRetention {
  const days = row?.telemetry_days ?? null;
  return {
    telemetry_days: days,
    effective_days: effectiveDays(days, limits),
    legal_hold: row?.legal_hold === 1,
    legal_hold_reason: row?.legal_hold_reason ?? null,
    limits: presentLimits(limits),
    usage: {
      records: row?.stored_records ?? null,
      bytes: row?.stored_bytes ?? null,
      oldest_record_at: iso(row?.oldest_received_at),
      measured_at: iso(row?.measured_at),
    },
    purged_records: row?.purged_records ?? 0,
    last_purge_at: iso(row?.last_purge_at),
  };
}

export async function getRetention(db: Kysely<Tables>, tenantId: number): Promise<TenantRetention> {
  return presentRetention(await readTenantRetention(db, tenantId), await readLimits(db));
}

export interface RetentionChange {
  /** Days to keep raw telemetry; null: the operator's default. */
  telemetry_days?: number | null;
  legal_hold?: boolean;
  legal_hold_reason?: string | null;
}

export async function changeRetention(ctx: RetentionContext, change: RetentionChange): Promise<TenantRetention> {
  const { db, tenantId } = ctx;
  const limits = await readLimits(db);
  if (change.telemetry_days !== undefined && change.telemetry_days !== null) checkDays(change.telemetry_days, limits);
  const reason = change.legal_hold_reason?.trim();
  if (reason !== undefined && (reason.length > MAX_HOLD_REASON_LENGTH || hasControlCharacter(reason)))
    throw new AppError(
      'invalid_request',
      `legal_hold_reason must be at most ${MAX_HOLD_REASON_LENGTH} characters, without control characters`,
      { extensions: { field: 'legal_hold_reason' } },
    );
  if (change.legal_hold === true && !reason && !(await readTenantRetention(db, tenantId))?.legal_hold_reason)
    throw new AppError(
      'invalid_request',
      'a legal hold needs a legal_hold_reason (the matter it preserves records for)',
      {
        extensions: { field: 'legal_hold_reason' },
      },
    );
  const before = await getRetention(db, tenantId);
  await saveTenantPolicy(
    db,
    tenantId,
    {
      ...(change.telemetry_days !== undefined ? { telemetryDays: change.telemetry_days } : {}),
      ...(change.legal_hold !== undefined ? { legalHold: change.legal_hold } : {}),
      // Lifting a hold clears its reason; a reason given alone updates the current hold's.
      ...(change.legal_hold === false
        ? { legalHoldReason: null }
        : reason !== undefined
          ? { legalHoldReason: reason === '' ? null : reason }
          : {}),
    },
    ctx.actor.label,
    Date.now(),
  );
  const after = await getRetention(db, tenantId);
  await recordAudit(db, {
    tenantId,
    action: 'retention.changed',
    actor: ctx.actor,
    ip: ctx.ip,
    details: {
      telemetry_days: { from: before.telemetry_days, to: after.telemetry_days },
      legal_hold: { from: before.legal_hold, to: after.legal_hold },
      ...(after.legal_hold_reason !== before.legal_hold_reason ? { legal_hold_reason: after.legal_hold_reason } : {}),
    },
  });
  return after;
}

export async function getLimits(db: Kysely<Tables>): Promise<RetentionLimits> {
  return presentLimits(await readLimits(db));
}

export async function changeLimits(
  db: Kysely<Tables>,
  change: Partial<RetentionLimits>,
  actor: AuditActor,
  ip: string | null,
): Promise<RetentionLimits> {
  const before = await getLimits(db);
  const next = { ...before, ...change };
  checkLimits(next);
  await saveLimits(
    db,
    { minDays: next.min_days, maxDays: next.max_days, defaultDays: next.default_days },
    actor.label,
    Date.now(),
  );
  await recordAudit(db, {
    tenantId: null,
    action: 'retention.limits_changed',
    actor,
    ip,
    details: { from: before, to: next },
  });
  return next;
}

export interface TenantRetentionSummary extends TenantRetention {
  code_name: string;
  name: string;
}

/** Every tenant's retention and storage use, for the operator console. */
export async function listRetention(db: Kysely<Tables>): Promise<TenantRetentionSummary[]> {
  const limits = await readLimits(db);
  return (await listTenantsWithRetention(db)).map((row) => ({
    code_name: row.code_name,
    name: row.name,
    ...presentRetention(row, limits),
  }));
}
