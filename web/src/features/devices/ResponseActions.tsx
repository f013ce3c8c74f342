// Response actions on a device (docs/cases.md, Response actions): its isolation state, Isolate or
// Release with a reason (devices:respond), and the recent actions with their outcomes. Shown on
// the device page and, per device, on a case page, where a request is recorded in the case's
// history too. The EDR integration confirms outcomes through the API.
import { useState, type SubmitEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { Dialog, DialogActions } from '../../components/Dialog';
import { Badge, Button, Field, Notice, Panel, Time } from '../../components/ui';
import type { Device } from './types';
import type { DeviceActionView } from '../../../../src/devices/device-action-service.js';

type Action = 'isolate' | 'release';
type State = Device['isolation_state'];

const stateLabel: Record<NonNullable<State>, string> = {
  isolation_requested: 'Isolation requested',
  isolated: 'Isolated',
  isolation_failed: 'Isolation failed',
  release_requested: 'Release requested',
  released: 'Released',
  release_failed: 'Release failed',
};
const stateTone = (state: State) =>
  state === 'isolated' || state === 'release_failed'
    ? 'danger'
    : state === 'isolation_requested' || state === 'release_requested'
      ? 'warning'
      : 'neutral';

/** What the device's state allows: the same rule the server applies. */
function allowed(state: State): Action | null {
  if (state === 'isolation_requested' || state === 'release_requested') return null;
  return state === 'isolated' || state === 'release_failed' ? 'release' : 'isolate';
}

function RequestDialog(props: {
  action: Action;
  hostName: string;
  onSubmit: (reason: string) => void;
  pending: boolean;
  error: unknown;
  onClose: () => void;
}) {
  const [reason, setReason] = useState('');
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (reason.trim() !== '') props.onSubmit(reason.trim());
  };
  const verb = props.action === 'isolate' ? 'Isolate' : 'Release';
  return (
    <Dialog
      title={`${verb} ${props.hostName}`}
      onClose={props.onClose}
      footer={
        <DialogActions
          onCancel={props.onClose}
          label={props.pending ? 'Requesting…' : `Request ${props.action}`}
          disabled={props.pending || reason.trim() === ''}
          form="device-action"
        />
      }
    >
      <form id="device-action" onSubmit={submit}>
        <Field label="Reason" hint="Kept with the action, in the audit log and sent to your EDR integration.">
          <textarea value={reason} maxLength={1000} rows={3} onChange={(event) => setReason(event.target.value)} />
        </Field>
      </form>
      {Boolean(props.error) && <Notice tone="danger">{errorMessage(props.error)}</Notice>}
    </Dialog>
  );
}

export function ResponseActions({
  deviceId,
  hostName,
  caseId,
}: {
  deviceId: string;
  hostName: string;
  caseId?: string;
}) {
  const { can } = useSession();
  const client = useQueryClient();
  const path = `/v1/devices/${encodeURIComponent(deviceId)}`;
  const device = useQuery({ queryKey: ['devices', 'detail', deviceId], queryFn: () => api.get<Device>(path) });
  const actions = useQuery({
    queryKey: ['devices', 'actions', deviceId],
    queryFn: () => api.get<{ actions: DeviceActionView[] }>(`${path}/actions`),
  });
  const [asking, setAsking] = useState<Action | null>(null);
  const request = useMutation({
    mutationFn: (input: { action: Action; reason: string }) =>
      api.post<DeviceActionView>(`${path}/actions`, { ...input, ...(caseId ? { case_id: caseId } : {}) }),
    onSuccess: async () => {
      setAsking(null);
      await Promise.all([
        client.invalidateQueries({ queryKey: ['devices'] }),
        client.invalidateQueries({ queryKey: ['cases'] }),
      ]);
    },
  });
  const state = device.data?.isolation_state ?? null;
  const next = allowed(state);
  return (
    <Panel title={caseId ? `Response: ${hostName}` : 'Response actions'} className="response-actions">
      <p>
        <Badge tone={stateTone(state)}>{state ? stateLabel[state] : 'Not isolated'}</Badge>
      </p>
      {can('devices:respond') && device.data && (
        <Button
          small
          variant={next === 'isolate' ? 'danger' : 'secondary'}
          disabled={next === null}
          title={next === null ? 'Waiting for the integration to confirm the pending action' : undefined}
          onClick={() => next && setAsking(next)}
        >
          {next === 'release' ? 'Release' : 'Isolate'}
        </Button>
      )}
      {request.isSuccess && <Notice tone="success">Requested; your EDR integration confirms the outcome.</Notice>}
      <ul className="plain-list">
        {(actions.data?.actions ?? []).slice(0, 5).map((action) => (
          <li key={action.id}>
            {action.action} · {action.status} · <Time iso={action.requested_at} /> by {action.requested_by}
            <span className="subline">{action.reason}</span>
          </li>
        ))}
      </ul>
      {asking && (
        <RequestDialog
          action={asking}
          hostName={hostName}
          pending={request.isPending}
          error={request.error}
          onClose={() => setAsking(null)}
          onSubmit={(reason) => request.mutate({ action: asking, reason })}
        />
      )}
    </Panel>
  );
}

/** One panel per device of a case: requests made here are recorded in the case's history. */
export function CaseResponseActions({
  caseId,
  devices,
}: {
  caseId: string;
  devices: readonly { id: string; host_name: string }[];
}) {
  return (
    <>
      {devices.map((device) => (
        <ResponseActions key={device.id} deviceId={device.id} hostName={device.host_name} caseId={caseId} />
      ))}
    </>
  );
}
