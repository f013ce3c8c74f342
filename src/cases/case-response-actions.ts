// A device response action requested from a case, and later its outcome, in the case's history
// (devices/device-action-service.ts asks through DeviceReactions; the composition root wires
// this in). The history entry is also the case's webhook event (case.updated).
import type { Db } from '../storage/database.js';
import type { AuditActor } from '../identity/principal.js';
import type { DeviceRow } from '../devices/device-store.js';
import type { DeviceActionRow } from '../devices/device-action-store.js';
import { addHistory } from './case-store.js';
import { requireCase } from './case-service.js';

export async function recordResponseAction(
  trx: Db,
  change: {
    tenantId: number;
    caseId: string;
    device: DeviceRow;
    action: DeviceActionRow;
    actor: AuditActor;
    now: number;
  },
): Promise<void> {
  const { tenantId, device, action, actor, now } = change;
  const row = await requireCase(trx, tenantId, change.caseId);
  await addHistory(trx, [
    {
      caseId: row.id,
      tenantId,
      at: now,
      actor,
      action: action.status === 'requested' ? 'response_action_requested' : 'response_action_completed',
      changes: {
        device: { id: device.id, host_name: device.host_name },
        action_id: action.id,
        action: action.action,
        status: action.status,
        reason: action.reason,
        ...(action.outcome_detail !== null ? { outcome_detail: action.outcome_detail } : {}),
      },
    },
  ]);
}
