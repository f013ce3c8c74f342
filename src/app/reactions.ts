// Cross-feature reactions, wired here so that lower features never import higher ones: a
// tenant opting out of AI summaries drops its summary cache; a device's criticality change
// rescores its open cases; an external observation is filed into a case. Each runs inside the
// transaction of the change that caused it.
import type { TenantReactions } from '../identity/tenants/tenant-service.js';
import type { DeviceReactions } from '../devices/device-service.js';
import { openCasesByDevice } from '../devices/device-store.js';
import type { AttackCatalogue } from '../detection/attack.js';
import type { ObservationWriting } from '../observations/observation-service.js';
import type { RowLocks } from '../storage/row-locks.js';
import { groupObservations, type GroupingPolicy } from '../cases/case-grouping.js';
import { rescoreCases } from '../cases/case-rescore.js';
import { recordResponseAction } from '../cases/case-response-actions.js';
import { deleteTenantCache } from '../summaries/summary-store.js';
import type { Config } from '../config/config.js';
import type { OutboundPolicy } from '../http/outbound-address.js';

export const tenantReactions: TenantReactions = {
  aiSummariesTurnedOff: (trx, tenantId) => deleteTenantCache(trx, tenantId),
};

export const deviceReactions: DeviceReactions = {
  async criticalityChanged(trx, { tenantId, device, from, actor, now }) {
    const open = (await openCasesByDevice(trx, tenantId, [device.id])).get(device.id) ?? [];
    await rescoreCases(trx, tenantId, open, actor, now, {
      device: { id: device.id, host_name: device.host_name, criticality: { from, to: device.criticality } },
    });
  },
  responseActionRecorded: recordResponseAction,
};

/** External observations join cases under the same policy as detected ones. */
export function observationWriting(
  locks: RowLocks,
  policy: GroupingPolicy,
  catalogue: AttackCatalogue,
): ObservationWriting {
  return {
    placeInCases: async (trx, observations, now) => {
      await groupObservations({ db: trx, locks, policy, catalogue, now }, observations);
    },
  };
}

/** Where webhook deliveries and single sign-on requests may go, from the operator's settings. */
export function webhookPolicy(config: Config): OutboundPolicy {
  return { allowLoopback: config.webhookAllowLoopback, allowedNetworks: config.webhookAllowedNetworks };
}
