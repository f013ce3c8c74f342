// SLAs: per tenant and severity, how long a case may stay new (acknowledge) and open (resolve).
// The resolve clock pauses while the case is on hold (waiting on the customer); closing stops it.
// Each case's clocks are worked out when it is read, from when it was created, acknowledged,
// held and closed.
import type { Selectable } from 'kysely';
import type { SlaPoliciesTable } from '../../storage/tables/case-work.js';
import type { CaseRow, Db } from '../case-store.js';

export type SlaPolicyRow = Selectable<SlaPoliciesTable>;
export const SLA_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type SlaPolicy = Partial<Record<(typeof SLA_SEVERITIES)[number], { acknowledge_s: number; resolve_s: number }>>;

export async function readSlaPolicy(db: Db, tenantId: number): Promise<SlaPolicy> {
  const rows = await db.selectFrom('sla_policies').selectAll().where('tenant_id', '=', tenantId).execute();
  const policy: SlaPolicy = {};
  for (const row of rows)
    policy[row.severity as keyof SlaPolicy] = {
      acknowledge_s: row.acknowledge_s,
      resolve_s: row.resolve_s,
    };
  return policy;
}

/** Replaces the tenant's policy: severities left out have no SLA. */
export async function replaceSlaPolicy(
  db: Db,
  tenantId: number,
  policy: SlaPolicy,
  by: string,
  now: number,
): Promise<void> {
  await db.deleteFrom('sla_policies').where('tenant_id', '=', tenantId).execute();
  const rows = SLA_SEVERITIES.flatMap((severity) => {
    const entry = policy[severity];
    return entry ? [{ tenant_id: tenantId, severity, ...entry, updated_at: now, updated_by: by }] : [];
  });
  if (rows.length > 0) await db.insertInto('sla_policies').values(rows).execute();
}

export interface SlaClock {
  target_s: number;
  due_at: string;
  /** Seconds left (negative once breached); null once the clock stopped. */
  remaining_s: number | null;
  breached: boolean;
  /** When the clock stopped: acknowledged, or closed. */
  stopped_at: string | null;
  /** The resolve clock while the case is on hold. */
  paused: boolean;
}

export interface CaseSla {
  acknowledge: SlaClock;
  resolve: SlaClock;
}

type SlaFields = Pick<
  CaseRow,
  'status' | 'severity' | 'created_at' | 'acknowledged_at' | 'closed_at' | 'held_ms' | 'held_since'
>;

function clock(
  targetMs: number,
  start: number,
  spent: number,
  stoppedAt: number | null,
  now: number,
  paused: boolean,
): SlaClock {
  const elapsed = (stoppedAt ?? now) - start - spent;
  return {
    target_s: Math.round(targetMs / 1000),
    due_at: new Date(start + targetMs + spent).toISOString(),
    remaining_s: stoppedAt === null ? Math.floor((targetMs - elapsed) / 1000) : null,
    breached: elapsed > targetMs,
    stopped_at: stoppedAt === null ? null : new Date(stoppedAt).toISOString(),
    paused,
  };
}

/** The case's clocks under the policy; null when its severity has no SLA. */
export function caseSla(row: SlaFields, policy: SlaPolicy, now: number): CaseSla | null {
  const target = policy[row.severity as keyof SlaPolicy];
  if (!target) return null;
  const holdStart = row.status === 'on_hold' ? row.held_since : null;
  const onHold = holdStart !== null;
  const held = row.held_ms + (holdStart === null ? 0 : now - holdStart);
  const closedAt = row.status === 'closed' ? row.closed_at : null;
  return {
    acknowledge: clock(target.acknowledge_s * 1000, row.created_at, 0, row.acknowledged_at, now, false),
    resolve: clock(target.resolve_s * 1000, row.created_at, held, closedAt, now, onHold),
  };
}

/**
 * What a status change does to the clocks: leaving `new` acknowledges; entering on hold or
 * closed starts a pause, leaving it adds the pause to the time held.
 */
export function slaOnStatusChange(row: CaseRow, to: string, now: number): Partial<CaseRow> {
  const set: Partial<CaseRow> = {};
  if (row.acknowledged_at === null && to !== 'new') set.acknowledged_at = now;
  if (to === row.status) return set;
  const paused = (status: string) => status === 'on_hold' || status === 'closed';
  if (paused(row.status) && row.held_since !== null) {
    set.held_ms = row.held_ms + (now - row.held_since);
    set.held_since = null;
  }
  if (paused(to)) set.held_since = now;
  return set;
}
