// Observation writing: writing observations through the API needs the platform's
// prior approval after a review of three points. Shows the tenant's approval and its requests;
// tenant admins file a request here.
import { useState, type SubmitEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { Badge, Button, ErrorState, Field, Loading, Notice, Panel, Time } from '../../components/ui';
import { formatNumber } from '../../lib/format';
import { tenantQueryKey, useTenant } from './tenant-queries';
import type { WriteRequest } from './types';

const requestsKey = ['observation-write-requests'] as const;

export function reviewTone(status: string) {
  return status === 'approved' ? 'success' : status === 'rejected' ? 'danger' : 'warning';
}

function RequestForm() {
  const queryClient = useQueryClient();
  const [impact, setImpact] = useState('');
  const [correlation, setCorrelation] = useState('');
  const [volume, setVolume] = useState('');
  const file = useMutation({
    mutationFn: () =>
      api.post<WriteRequest>('/v1/observation-write-requests', {
        service_impact: impact.trim(),
        correlation: correlation.trim(),
        expected_volume_per_hour: Number(volume),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: requestsKey }),
  });
  const ready =
    impact.trim().length >= 10 &&
    correlation.trim().length >= 10 &&
    Number.isInteger(Number(volume)) &&
    Number(volume) >= 1;
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (ready) file.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Request observation-write approval">
      <Field label="Impact on managed services" hint="At least 10 characters.">
        <textarea rows={2} value={impact} onChange={(event) => setImpact(event.target.value)} maxLength={4000} />
      </Field>
      <Field label="How the data correlates with other observations" hint="At least 10 characters.">
        <textarea
          rows={2}
          value={correlation}
          onChange={(event) => setCorrelation(event.target.value)}
          maxLength={4000}
        />
      </Field>
      <Field label="Expected volume (observations per hour)">
        <input
          type="number"
          min={1}
          max={1_000_000}
          step={1}
          value={volume}
          onChange={(event) => setVolume(event.target.value)}
        />
      </Field>
      {file.error && <Notice tone="danger">{errorMessage(file.error)}</Notice>}
      <Button type="submit" variant="primary" disabled={!ready || file.isPending}>
        {file.isPending ? 'Sending…' : 'Request approval'}
      </Button>
    </form>
  );
}

export function ObservationWritingPanel() {
  const { me } = useSession();
  const tenant = useTenant();
  const requests = useQuery({
    queryKey: requestsKey,
    queryFn: () => api.get<{ requests: WriteRequest[] }>('/v1/observation-write-requests'),
  });
  const queryClient = useQueryClient();
  const isAdmin = me.role === 'admin' || me.operator;

  let body;
  if (tenant.isPending || requests.isPending) body = <Loading />;
  else if (tenant.error || requests.error) {
    body = (
      <ErrorState
        error={tenant.error ?? requests.error}
        retry={() => {
          void queryClient.invalidateQueries({ queryKey: tenantQueryKey });
          void requests.refetch();
        }}
      />
    );
  } else {
    const pending = requests.data.requests.find((r) => r.status === 'pending');
    const latest = requests.data.requests[0];
    body = (
      <>
        <div className="status-big">
          {tenant.data.observation_write_approved ? (
            <Badge tone="success">Approved</Badge>
          ) : (
            <Badge tone="neutral">Not approved</Badge>
          )}
          {tenant.data.observation_write_approved_at && (
            <span className="muted">
              since <Time iso={tenant.data.observation_write_approved_at} exact />
            </span>
          )}
        </div>
        <p className="muted">
          Writing observations (<code>POST /v1/observations</code>, permission <code>observations:write</code>) needs
          the platform's prior approval, after a review of the impact on managed services, the correlation with other
          observations and the expected volume.
        </p>
        {pending ? (
          <Notice tone="info">
            Review requested by {pending.requested_by} <Time iso={pending.requested_at} />, expecting{' '}
            {formatNumber(pending.expected_volume_per_hour)} an hour: waiting for the platform's decision.
          </Notice>
        ) : (
          latest?.status === 'rejected' && (
            <Notice tone="warning">
              The last request was rejected <Time iso={latest.decided_at} />
              {latest.decision_note ? `: ${latest.decision_note}` : '.'}
            </Notice>
          )
        )}
        {!tenant.data.observation_write_approved &&
          !pending &&
          (isAdmin ? <RequestForm /> : <p className="muted">A tenant admin can request the approval here.</p>)}
        {requests.data.requests.length > 0 && (
          <details>
            <summary>Requests ({requests.data.requests.length})</summary>
            <ul className="plain-list">
              {requests.data.requests.map((r) => (
                <li key={r.id}>
                  <Badge tone={reviewTone(r.status)}>{r.status}</Badge> <Time iso={r.requested_at} /> by{' '}
                  {r.requested_by}
                  {r.decided_by && (
                    <>
                      {' '}
                      · decided by {r.decided_by}
                      {r.decision_note ? `: ${r.decision_note}` : ''}
                    </>
                  )}
                </li>
              ))}
            </ul>
          </details>
        )}
      </>
    );
  }
  return <Panel title="Observation writing">{body}</Panel>;
}
