// The isolation state machine of response actions: which action a device's state allows, the
// state a request moves it to, and the state its confirmed outcome leaves. One action at a time:
// a new one waits until the integration confirms the pending one.
import { AppError } from '../core/errors.js';
import type { DeviceActionKind } from '../storage/tables/device-actions.js';

export const isolationStates = [
  'isolation_requested',
  'isolated',
  'isolation_failed',
  'release_requested',
  'released',
  'release_failed',
] as const;
export type IsolationState = (typeof isolationStates)[number];

export const deviceActionKinds = ['isolate', 'release'] as const satisfies readonly DeviceActionKind[];

/** The state after requesting `action`, or a 409 saying why it cannot be requested now. */
export function requestedState(current: IsolationState | null, action: DeviceActionKind, host: string): IsolationState {
  if (current === 'isolation_requested' || current === 'release_requested')
    throw new AppError(
      'invalid_device_action',
      `${host} has a response action waiting for its outcome (${current}); it must be confirmed before another is requested`,
      { extensions: { field: 'action', isolation_state: current } },
    );
  const isolated = current === 'isolated' || current === 'release_failed';
  if (action === 'isolate' && isolated)
    throw new AppError('invalid_device_action', `${host} is already isolated`, {
      extensions: { field: 'action', isolation_state: current },
    });
  if (action === 'release' && !isolated)
    throw new AppError('invalid_device_action', `${host} is not isolated, so there is nothing to release`, {
      extensions: { field: 'action', isolation_state: current },
    });
  return action === 'isolate' ? 'isolation_requested' : 'release_requested';
}

export function outcomeState(action: DeviceActionKind, outcome: 'succeeded' | 'failed'): IsolationState {
  if (action === 'isolate') return outcome === 'succeeded' ? 'isolated' : 'isolation_failed';
  return outcome === 'succeeded' ? 'released' : 'release_failed';
}
