// The audit log of security-relevant events: sign-ins (and failures), tokens created and
// deleted, permissions denied, settings changed. Appended by the services, read by admins.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { insertAuditEvent, listAuditEvents, type AuditQuery, type AuditRow } from './audit-store.js';
import type { AuditActor } from '../principal.js';
import { newId } from '../../core/ids.js';

export const auditActions = [
  'auth.login',
  'auth.login_failed',
  'auth.logout',
  'auth.credentials_rejected',
  'auth.permission_denied',
  'token.created',
  'token.deleted',
  'token.revoked',
  'user.created',
  'user.role_changed',
  'user.renamed',
  'user.disabled',
  'user.enabled',
  'user.deleted',
  'user.password_reset_issued',
  'user.password_reset',
  'user.invitation_accepted',
  'session.revoked',
  'second_factor.enabled',
  'second_factor.disabled',
  'second_factor.recovery_codes_regenerated',
  'second_factor.recovery_code_used',
  'sso.configured',
  'sso.deleted',
  'sso.linked',
  'sso.unlinked',
  'sso.domain_verified',
  'sso.domain_unverified',
  'tenant.created',
  'tenant.settings_changed',
  'partner.created',
  'partner.tenant_added',
  'partner.tenant_removed',
  'partner_token.created',
  'partner_token.deleted',
  'ingest_key.created',
  'ingest_key.deleted',
  'collector.ingest_key_policy_changed',
  'collector.test_record_sent',
  'observation_write.requested',
  'observation_write.approved',
  'observation_write.rejected',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.disabled',
  'webhook.redelivered',
  'device.updated',
  'device.action_requested',
  'device.action_completed',
  'retention.changed',
  'case_template.created',
  'case_template.updated',
  'case_template.deleted',
  'sla_policy.changed',
  'retention.limits_changed',
  'mcp.tool_called',
] as const;
export type AuditAction = (typeof auditActions)[number];

export interface AuditEventInput {
  tenantId: number | null;
  action: AuditAction;
  outcome?: 'success' | 'failure';
  actor: AuditActor;
  ip?: string | null;
  target?: { type: string; id: string };
  details?: Record<string, unknown>;
}

export async function recordAudit(db: Kysely<Tables>, event: AuditEventInput): Promise<void> {
  await insertAuditEvent(db, {
    id: newId('evt'),
    tenant_id: event.tenantId,
    occurred_at: Date.now(),
    action: event.action,
    outcome: event.outcome ?? 'success',
    actor_type: event.actor.type,
    actor_id: event.actor.id,
    actor_label: event.actor.label,
    ip: event.ip ?? null,
    target_type: event.target?.type ?? null,
    target_id: event.target?.id ?? null,
    details: JSON.stringify(event.details ?? {}),
  });
}

export interface AuditEvent {
  id: string;
  occurred_at: string;
  action: string;
  outcome: 'success' | 'failure';
  actor: { type: string; id: string | null; label: string };
  ip: string | null;
  target: { type: string; id: string } | null;
  details: Record<string, unknown>;
}

export function presentAuditEvent(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    occurred_at: new Date(row.occurred_at).toISOString(),
    action: row.action,
    outcome: row.outcome,
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    ip: row.ip,
    target: row.target_type && row.target_id ? { type: row.target_type, id: row.target_id } : null,
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}

export async function listAudit(
  db: Kysely<Tables>,
  tenantId: number,
  query: AuditQuery,
): Promise<{ events: AuditEvent[]; lastSeq?: number; more: boolean }> {
  const rows = await listAuditEvents(db, tenantId, { ...query, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    events: page.map(presentAuditEvent),
    more: rows.length > query.limit,
    ...(last ? { lastSeq: last.seq } : {}),
  };
}
