// The review a tenant passes before it may write observations of its own: a tenant admin files a
// request stating the impact on managed services, how the data correlates with other observations
// and the expected volume; a platform operator approves (setting the hourly volume the writes are
// held to) or rejects it. Every step is audited.
import type { Kysely, Selectable } from 'kysely';
import type { ObservationWriteRequestsTable, Tables } from '../storage/schema.js';
import { AppError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { recordAudit } from '../identity/audit/audit-service.js';
import type { AuditActor } from '../identity/principal.js';

export type WriteRequestRow = Selectable<ObservationWriteRequestsTable>;
export type WriteRequestStatus = 'pending' | 'approved' | 'rejected';

export const MAX_STATEMENT_LENGTH = 4_000;
export const MAX_VOLUME_PER_HOUR = 1_000_000;

export interface WriteRequestView {
  id: string;
  tenant: string;
  status: string;
  service_impact: string;
  correlation: string;
  expected_volume_per_hour: number;
  requested_by: string;
  requested_at: string;
  decided_by: string | null;
  decided_at: string | null;
  decision_note: string | null;
}

export function presentWriteRequest(row: WriteRequestRow, tenantCodeName: string): WriteRequestView {
  return {
    id: row.id,
    tenant: tenantCodeName,
    status: row.status,
    service_impact: row.service_impact,
    correlation: row.correlation,
    expected_volume_per_hour: row.expected_volume_per_hour,
    requested_by: row.requested_by,
    requested_at: new Date(row.requested_at).toISOString(),
    decided_by: row.decided_by,
    decided_at: row.decided_at === null ? null : new Date(row.decided_at).toISOString(),
    decision_note: row.decision_note,
  };
}

export interface FileRequestInput {
  serviceImpact: string;
  correlation: string;
  expectedVolumePerHour: number;
}

export async function fileWriteRequest(
  db: Kysely<Tables>,
  tenant: { id: number; code_name: string },
  input: FileRequestInput,
  actor: AuditActor,
  ip: string | null,
): Promise<WriteRequestView> {
  return db.transaction().execute(async (trx) => {
    const pending = await trx
      .selectFrom('observation_write_requests')
      .select('id')
      .where('tenant_id', '=', tenant.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (pending)
      throw new AppError(
        'review_request_pending',
        `request ${pending.id} is still waiting for the platform's decision`,
        { extensions: { request_id: pending.id } },
      );
    const row: WriteRequestRow = {
      id: newId('owr'),
      tenant_id: tenant.id,
      status: 'pending',
      service_impact: input.serviceImpact,
      correlation: input.correlation,
      expected_volume_per_hour: input.expectedVolumePerHour,
      requested_by: actor.label,
      requested_at: Date.now(),
      decided_by: null,
      decided_at: null,
      decision_note: null,
    };
    await trx.insertInto('observation_write_requests').values(row).execute();
    await recordAudit(trx, {
      tenantId: tenant.id,
      action: 'observation_write.requested',
      outcome: 'success',
      actor,
      ip,
      target: { type: 'observation_write_request', id: row.id },
      details: { expected_volume_per_hour: input.expectedVolumePerHour },
    });
    return presentWriteRequest(row, tenant.code_name);
  });
}

export async function listWriteRequests(
  db: Kysely<Tables>,
  scope: { tenantId?: number; status?: WriteRequestStatus },
): Promise<WriteRequestView[]> {
  let query = db
    .selectFrom('observation_write_requests as r')
    .innerJoin('tenants as t', 't.id', 'r.tenant_id')
    .selectAll('r')
    .select('t.code_name');
  if (scope.tenantId !== undefined) query = query.where('r.tenant_id', '=', scope.tenantId);
  if (scope.status !== undefined) query = query.where('r.status', '=', scope.status);
  const rows = await query.orderBy('r.requested_at', 'desc').orderBy('r.id', 'desc').limit(500).execute();
  return rows.map((row) => presentWriteRequest(row, row.code_name));
}

export interface Decision {
  approve: boolean;
  note: string | null;
  /** Approvals: the hourly volume writes are held to; default: the volume the tenant asked for. */
  limitPerHour?: number;
}

/** An operator's decision. Approval also marks the tenant approved with the hourly limit. */
export async function decideWriteRequest(
  db: Kysely<Tables>,
  id: string,
  decision: Decision,
  actor: AuditActor,
  ip: string | null,
): Promise<WriteRequestView> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('observation_write_requests').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('not_found', `review request ${id} not found`);
    if (row.status !== 'pending')
      throw new AppError('review_request_decided', `request ${id} was already ${row.status}`);
    const now = Date.now();
    const status: WriteRequestStatus = decision.approve ? 'approved' : 'rejected';
    // The pending condition decides a race between two operators: only one update lands.
    const updated = await trx
      .updateTable('observation_write_requests')
      .set({ status, decided_by: actor.label, decided_at: now, decision_note: decision.note })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1)
      throw new AppError('review_request_decided', `request ${id} was decided meanwhile`);
    const limit = decision.limitPerHour ?? row.expected_volume_per_hour;
    if (decision.approve) {
      await trx
        .updateTable('tenants')
        .set({ observation_write_approved_at: now, observation_write_limit_per_hour: limit })
        .where('id', '=', row.tenant_id)
        .execute();
    }
    await recordAudit(trx, {
      tenantId: row.tenant_id,
      action: decision.approve ? 'observation_write.approved' : 'observation_write.rejected',
      outcome: 'success',
      actor,
      ip,
      target: { type: 'observation_write_request', id },
      details: decision.approve ? { limit_per_hour: limit } : {},
    });
    const tenant = await trx
      .selectFrom('tenants')
      .select('code_name')
      .where('id', '=', row.tenant_id)
      .executeTakeFirstOrThrow();
    return presentWriteRequest(
      { ...row, status, decided_by: actor.label, decided_at: now, decision_note: decision.note },
      tenant.code_name,
    );
  });
}
