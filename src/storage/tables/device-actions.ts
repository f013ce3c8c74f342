// Device response actions (migration 0032; devices/device-action-store.ts).

export type DeviceActionKind = 'isolate' | 'release';
export type DeviceActionStatus = 'requested' | 'succeeded' | 'failed';

export interface DeviceActionsTable {
  /** `dact_…` */
  id: string;
  tenant_id: number;
  device_id: string;
  /** The case it was requested from, if any. */
  case_id: string | null;
  action: DeviceActionKind;
  status: DeviceActionStatus;
  reason: string;
  requested_at: number;
  /** Who asked: an email, a token name, or `cli`. */
  requested_by: string;
  completed_at: number | null;
  /** Who confirmed the outcome (usually the EDR integration's token). */
  completed_by: string | null;
  outcome_detail: string | null;
}
