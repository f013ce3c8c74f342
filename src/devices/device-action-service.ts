// Response actions on a device (docs/cases.md, Response actions): a person or integration requests
// isolation or release with a reason, on the device or from a case; the request moves the
// device's isolation state, is audited, written to the case's history when it came from a case
// (the cases feature does that, through DeviceReactions), and goes out as a
// `device.action_requested` webhook event for the tenant's EDR integration, which confirms the
// outcome. All of it in one transaction.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { DeviceActionKind } from '../storage/tables/device-actions.js';
import { writeTransaction } from '../storage/write-transaction.js';
import { AppError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { hasControlCharacter } from '../core/control-characters.js';
import { recordAudit } from '../identity/audit/audit-service.js';
import type { AuditActor } from '../identity/principal.js';
import { emitEvents } from '../webhooks/webhook-events.js';
import { findDevice, type DeviceRow } from './device-store.js';
import {
  completeDeviceAction,
  findDeviceAction,
  insertDeviceAction,
  listDeviceActions,
  setIsolationState,
  type DeviceActionRow,
} from './device-action-store.js';
import { outcomeState, requestedState, type IsolationState } from './device-action-rules.js';
import type { DeviceReactions } from './device-service.js';

export const MAX_REASON_LENGTH = 1_000;

export interface DeviceActionContext {
  db: Kysely<Tables>;
  tenantId: number;
  actor: AuditActor;
  ip: string | null;
  reactions: DeviceReactions;
  /** Told when a webhook event was queued, so this process's dispatcher looks at once. */
  queued?: () => void;
  now?: number;
}

export interface DeviceActionView {
  id: string;
  device_id: string;
  case_id: string | null;
  action: DeviceActionKind;
  status: 'requested' | 'succeeded' | 'failed';
  reason: string;
  requested_at: string;
  requested_by: string;
  completed_at: string | null;
  completed_by: string | null;
  outcome_detail: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentDeviceAction(row: DeviceActionRow): DeviceActionView {
  return {
    id: row.id,
    device_id: row.device_id,
    case_id: row.case_id,
    action: row.action,
    status: row.status,
    reason: row.reason,
    requested_at: iso(row.requested_at) ?? '',
    requested_by: row.requested_by,
    completed_at: iso(row.completed_at),
    completed_by: row.completed_by,
    outcome_detail: row.outcome_detail,
  };
}

function checkText(field: string, value: string, required: boolean): string {
  const text = value.trim();
  if ((required && text === '') || text.length > MAX_REASON_LENGTH || hasControlCharacter(text.replace(/\n/g, ' ')))
    throw new AppError(
      'invalid_request',
      `${field} must be ${required ? '1' : '0'} to ${MAX_REASON_LENGTH} characters, without control characters`,
      { extensions: { field } },
    );
  return text;
}

async function requireDevice(db: Kysely<Tables>, tenantId: number, id: string): Promise<DeviceRow> {
  const device = await findDevice(db, tenantId, id);
  if (!device) throw new AppError('not_found', `device ${id} not found`);
  return device;
}

export async function listActions(db: Kysely<Tables>, tenantId: number, deviceId: string): Promise<DeviceActionView[]> {
  await requireDevice(db, tenantId, deviceId);
  return (await listDeviceActions(db, tenantId, deviceId, 100)).map(presentDeviceAction);
}

/** Requests isolation or release; answers the recorded action. */
export async function requestAction(
  ctx: DeviceActionContext,
  deviceId: string,
  input: { action: DeviceActionKind; reason: string; caseId?: string },
): Promise<DeviceActionView> {
  const reason = checkText('reason', input.reason, true);
  const now = ctx.now ?? Date.now();
  const row = await writeTransaction(ctx.db, async (trx) => {
    const device = await requireDevice(trx, ctx.tenantId, deviceId);
    const state = requestedState(device.isolation_state as IsolationState | null, input.action, device.host_name);
    const action: DeviceActionRow = {
      id: newId('dact'),
      tenant_id: ctx.tenantId,
      device_id: device.id,
      case_id: input.caseId ?? null,
      action: input.action,
      status: 'requested',
      reason,
      requested_at: now,
      requested_by: ctx.actor.label,
      completed_at: null,
      completed_by: null,
      outcome_detail: null,
    };
    await insertDeviceAction(trx, action);
    await setIsolationState(trx, ctx.tenantId, device.id, state, now);
    if (input.caseId !== undefined)
      await ctx.reactions.responseActionRecorded(trx, {
        tenantId: ctx.tenantId,
        caseId: input.caseId,
        device,
        action,
        actor: ctx.actor,
        now,
      });
    await recordAudit(trx, {
      tenantId: ctx.tenantId,
      action: 'device.action_requested',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'device', id: device.id },
      details: { action_id: action.id, action: action.action, reason, case_id: action.case_id },
    });
    await emitEvents(
      trx,
      ctx.tenantId,
      [
        {
          type: 'device.action_requested',
          subject: device.id,
          data: {
            action: {
              ...presentDeviceAction(action),
              confirm_href: `/v1/devices/${device.id}/actions/${action.id}`,
            },
            device: {
              id: device.id,
              host_name: device.host_name,
              endpoint_id: device.endpoint_id,
              os: device.os,
              last_user: device.last_user,
              href: `/v1/devices/${device.id}`,
            },
          },
        },
      ],
      now,
    );
    return action;
  });
  ctx.queued?.();
  return presentDeviceAction(row);
}

/** The integration's confirmation: the action succeeded or failed; the device's state follows. */
export async function confirmAction(
  ctx: DeviceActionContext,
  deviceId: string,
  actionId: string,
  input: { outcome: 'succeeded' | 'failed'; detail?: string },
): Promise<DeviceActionView> {
  const detail = input.detail === undefined ? null : checkText('detail', input.detail, false);
  const now = ctx.now ?? Date.now();
  const row = await writeTransaction(ctx.db, async (trx) => {
    const device = await requireDevice(trx, ctx.tenantId, deviceId);
    const action = await findDeviceAction(trx, ctx.tenantId, device.id, actionId);
    if (!action) throw new AppError('not_found', `action ${actionId} of device ${deviceId} not found`);
    const set = { status: input.outcome, completed_at: now, completed_by: ctx.actor.label, outcome_detail: detail };
    if (!(await completeDeviceAction(trx, ctx.tenantId, action.id, set)))
      throw new AppError('device_action_decided', `action ${action.id} already ${action.status}`, {
        extensions: { status: action.status },
      });
    const done = { ...action, ...set };
    await setIsolationState(trx, ctx.tenantId, device.id, outcomeState(action.action, input.outcome), now);
    if (action.case_id !== null)
      await ctx.reactions.responseActionRecorded(trx, {
        tenantId: ctx.tenantId,
        caseId: action.case_id,
        device,
        action: done,
        actor: ctx.actor,
        now,
      });
    await recordAudit(trx, {
      tenantId: ctx.tenantId,
      action: 'device.action_completed',
      actor: ctx.actor,
      ip: ctx.ip,
      target: { type: 'device', id: device.id },
      details: { action_id: action.id, action: action.action, outcome: input.outcome, detail },
    });
    return done;
  });
  ctx.queued?.();
  return presentDeviceAction(row);
}
