// Setting, reading and clearing a tenant's ingest limits (operator API and CLI): validated,
// stored, and recorded in the tenant's audit log as a settings change. Off by default: a tenant
// without limits is never throttled by the collector.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import type { AuditActor } from '../../identity/principal.js';
import { recordAudit } from '../../identity/audit/audit-service.js';
import type { IngestLimits } from './ingest-limiter.js';
import { deleteIngestLimits, findIngestLimits, saveIngestLimits, type IngestLimitRow } from './ingest-limit-store.js';

/** Far above any collector's throughput; keeps the numbers exact in JSON and in both databases. */
export const MAX_LIMIT = 1_000_000_000_000;

/** As the API shows them: null is "no limit". */
export interface IngestLimitsResource {
  records_per_second: number | null;
  records_burst: number | null;
  bytes_per_second: number | null;
  bytes_burst: number | null;
  updated_at: string | null;
  updated_by: string | null;
}

export const NO_LIMITS: IngestLimits = {
  recordsPerSecond: null,
  recordsBurst: null,
  bytesPerSecond: null,
  bytesBurst: null,
};

export function limitsOfRow(row: IngestLimitRow | undefined): IngestLimits {
  if (!row) return NO_LIMITS;
  return {
    recordsPerSecond: row.records_per_second,
    recordsBurst: row.records_burst,
    bytesPerSecond: row.bytes_per_second,
    bytesBurst: row.bytes_burst,
  };
}

export function presentIngestLimits(row: IngestLimitRow | undefined): IngestLimitsResource {
  const limits = limitsOfRow(row);
  return {
    records_per_second: limits.recordsPerSecond,
    records_burst: limits.recordsBurst,
    bytes_per_second: limits.bytesPerSecond,
    bytes_burst: limits.bytesBurst,
    updated_at: row ? new Date(row.updated_at).toISOString() : null,
    updated_by: row?.updated_by ?? null,
  };
}

export function isOff(limits: IngestLimits): boolean {
  return limits.recordsPerSecond === null && limits.bytesPerSecond === null;
}

/**
 * The limits as given, checked: each rate is a whole number from 1; a burst needs its rate and
 * defaults to it (one second's worth).
 */
export function checkIngestLimits(given: Partial<IngestLimits>): IngestLimits {
  const pair = (rateField: string, burstField: string, rate?: number | null, burst?: number | null) => {
    for (const [field, value] of [
      [rateField, rate],
      [burstField, burst],
    ] as const) {
      if (value !== undefined && value !== null && (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT))
        throw new AppError('invalid_request', `${field} must be a whole number from 1 to ${MAX_LIMIT}`, {
          extensions: { field },
        });
    }
    if ((rate === undefined || rate === null) && burst !== undefined && burst !== null)
      throw new AppError('invalid_request', `${burstField} needs ${rateField}: a burst of what rate?`, {
        extensions: { field: burstField },
      });
    const set = rate ?? null;
    return [set, set === null ? null : (burst ?? set)] as const;
  };
  const [recordsPerSecond, recordsBurst] = pair(
    'records_per_second',
    'records_burst',
    given.recordsPerSecond,
    given.recordsBurst,
  );
  const [bytesPerSecond, bytesBurst] = pair('bytes_per_second', 'bytes_burst', given.bytesPerSecond, given.bytesBurst);
  return { recordsPerSecond, recordsBurst, bytesPerSecond, bytesBurst };
}

export interface LimitChange {
  db: Kysely<Tables>;
  tenantId: number;
  actor: AuditActor;
  ip: string | null;
}

/** Replaces the tenant's limits (all off: removes them); audited when they changed. */
export async function setIngestLimits(
  change: LimitChange,
  given: Partial<IngestLimits>,
): Promise<IngestLimitRow | undefined> {
  const limits = checkIngestLimits(given);
  const { db, tenantId } = change;
  const before = await findIngestLimits(db, tenantId);
  const row: IngestLimitRow | undefined = isOff(limits)
    ? undefined
    : {
        tenant_id: tenantId,
        records_per_second: limits.recordsPerSecond,
        records_burst: limits.recordsBurst,
        bytes_per_second: limits.bytesPerSecond,
        bytes_burst: limits.bytesBurst,
        updated_at: Date.now(),
        updated_by: change.actor.label,
      };
  const from = limitsOfRow(before);
  if (JSON.stringify(from) === JSON.stringify(limits)) return before;
  await db.transaction().execute(async (trx) => {
    if (row) await saveIngestLimits(trx, row);
    else await deleteIngestLimits(trx, tenantId);
    await recordAudit(trx, {
      tenantId,
      action: 'tenant.settings_changed',
      actor: change.actor,
      ip: change.ip,
      details: { changes: { ingest_limits: { from: presentLimits(from), to: presentLimits(limits) } } },
    });
  });
  return row;
}

/** For the audit log: the limits in the API's field names. */
function presentLimits(limits: IngestLimits) {
  if (isOff(limits)) return 'off';
  return {
    records_per_second: limits.recordsPerSecond,
    records_burst: limits.recordsBurst,
    bytes_per_second: limits.bytesPerSecond,
    bytes_burst: limits.bytesBurst,
  };
}
