// Operator › Observation-write reviews: each tenant's request to write observations,
// with the three points the review weighs (impact on managed services, correlation with other
// observations, expected volume); approve with an hourly limit, or reject with a reason.
import { useMemo, useState, type SubmitEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { Dialog, DialogActions } from '../../components/Dialog';
import { useRowNavigation } from '../../components/row-navigation';
import { QueryView } from '../../components/QueryView';
import { Badge, Button, Field, Notice, PageHeader, Time } from '../../components/ui';
import { formatNumber } from '../../lib/format';
import { matchesText } from '../../lib/text-filter';
import { useUrlFilters } from '../../lib/url-state';
import { reviewTone } from '../settings/ObservationWritingPanel';
import type { WriteRequest } from '../settings/types';
import './operator.css';

interface Decision {
  request: WriteRequest;
  approve: boolean;
}

function DecisionDialog({
  decision,
  tenantName,
  onClose,
}: {
  decision: Decision;
  tenantName: string;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const { request, approve } = decision;
  const [note, setNote] = useState('');
  const [limit, setLimit] = useState(String(request.expected_volume_per_hour));
  const decide = useMutation({
    mutationFn: () =>
      api.post<WriteRequest>(
        `/v1/operator/observation-write-requests/${encodeURIComponent(request.id)}/decision`,
        {
          decision: approve ? 'approve' : 'reject',
          ...(note.trim() ? { note: note.trim() } : {}),
          ...(approve ? { limit_per_hour: Number(limit) } : {}),
        },
        { noTenant: true },
      ),
    onSuccess: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['operator'] }),
        queryClient.invalidateQueries({ queryKey: ['tenant'] }),
      ]);
      onClose();
    },
  });
  const limitValid = Number.isInteger(Number(limit)) && Number(limit) >= 1 && Number(limit) <= 1_000_000;
  const ready = approve ? limitValid : note.trim().length > 0;
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (ready && !decide.isPending) decide.mutate();
  };
  return (
    <Dialog
      title={approve ? 'Approve observation writing' : 'Reject the request'}
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          label={approve ? 'Approve' : 'Reject'}
          variant={approve ? 'primary' : 'danger'}
          form="decision-form"
          disabled={!ready || decide.isPending}
        />
      }
    >
      <form id="decision-form" onSubmit={submit} aria-label="Decision">
        <p>
          {approve ? 'Approve' : 'Reject'} the request of <strong>{tenantName}</strong> (<code>{request.tenant}</code>)
          filed by {request.requested_by}?
        </p>
        {approve && (
          <Field
            label="Hourly limit"
            hint={`Observations per hour the tenant's writes are held to. Requested: ${formatNumber(request.expected_volume_per_hour)}.`}
          >
            <input
              type="number"
              min={1}
              max={1_000_000}
              step={1}
              value={limit}
              onChange={(event) => setLimit(event.target.value)}
            />
          </Field>
        )}
        <Field
          label={approve ? 'Note (optional)' : 'Reason'}
          hint={approve ? undefined : 'The tenant sees it with the decision.'}
        >
          <textarea
            rows={3}
            value={note}
            onChange={(event) => setNote(event.target.value)}
            maxLength={4000}
            autoFocus={!approve}
          />
        </Field>
        {decide.error && <Notice tone="danger">{errorMessage(decide.error)}</Notice>}
      </form>
    </Dialog>
  );
}

const statusOptions = [
  { value: '', label: 'Pending' },
  { value: 'decided', label: 'Decided' },
  { value: 'approved', label: 'Approved' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'all', label: 'All' },
];

export default function ReviewsPage() {
  const { tenants } = useSession();
  const [filters, setFilters] = useUrlFilters(['status', 'q'] as const);
  const status = filters.status ?? '';
  // The API filters one status; "decided" and "all" read every request (it returns at most 500).
  const apiStatus = status === '' ? 'pending' : status === 'approved' || status === 'rejected' ? status : undefined;
  const requests = useQuery({
    queryKey: ['operator', 'reviews', apiStatus ?? 'all'],
    queryFn: () =>
      api.get<{ requests: WriteRequest[] }>('/v1/operator/observation-write-requests', {
        query: { status: apiStatus },
        noTenant: true,
      }),
  });
  const [decision, setDecision] = useState<Decision | null>(null);
  const names = useMemo(() => new Map(tenants.map((t) => [t.code_name, t.name])), [tenants]);
  const shown = useMemo(
    () =>
      (requests.data?.requests ?? []).filter(
        (r) =>
          (status !== 'decided' || r.status !== 'pending') &&
          matchesText(filters.q, r.tenant, names.get(r.tenant), r.requested_by),
      ),
    [requests.data, status, filters.q, names],
  );
  const { selected, setSelected } = useRowNavigation(shown.length, (i) => {
    const request = shown[i];
    if (request?.status === 'pending') setDecision({ request, approve: true });
  });

  return (
    <>
      <PageHeader
        trail={['Operator']}
        title="Observation-write reviews"
        subtitle="Tenants ask to write observations through the API; the platform reviews each request before approving it."
      />
      <div className="filters">
        <Field label="Search">
          <input
            type="search"
            data-search
            placeholder="Tenant or requester"
            value={filters.q ?? ''}
            onChange={(event) => setFilters({ q: event.target.value })}
          />
        </Field>
        <Field label="Status">
          <select value={status} onChange={(event) => setFilters({ status: event.target.value })}>
            {statusOptions.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <QueryView
        query={requests}
        loading="Loading review requests"
        error="Could not load review requests"
        empty={() =>
          shown.length === 0 && (status === '' ? 'No request is waiting for a decision.' : 'No request matches.')
        }
      >
        {() => (
          <ol className="review-list" aria-label="Review requests">
            {shown.map((r, i) => (
              <li
                key={r.id}
                className="panel review"
                data-row-index={i}
                aria-selected={selected === i}
                onClick={() => setSelected(i)}
                aria-label={`Request of ${r.tenant}`}
              >
                <header className="panel-header">
                  <div>
                    <strong>{names.get(r.tenant) ?? r.tenant}</strong> <code className="muted">{r.tenant}</code>
                    <div className="muted">
                      Filed by {r.requested_by} <Time iso={r.requested_at} />
                    </div>
                  </div>
                  <div className="panel-actions">
                    <Badge tone={reviewTone(r.status)}>{r.status}</Badge>
                    {r.status === 'pending' && (
                      <>
                        <Button small variant="primary" onClick={() => setDecision({ request: r, approve: true })}>
                          Approve…
                        </Button>
                        <Button small variant="danger" onClick={() => setDecision({ request: r, approve: false })}>
                          Reject…
                        </Button>
                      </>
                    )}
                  </div>
                </header>
                <div className="panel-body">
                  <dl className="facts">
                    <dt>Impact on managed services</dt>
                    <dd>{r.service_impact}</dd>
                    <dt>Correlation with other observations</dt>
                    <dd>{r.correlation}</dd>
                    <dt>Expected volume</dt>
                    <dd>{formatNumber(r.expected_volume_per_hour)} observations per hour</dd>
                    {r.decided_at && (
                      <>
                        <dt>Decision</dt>
                        <dd>
                          {r.status === 'approved' ? 'Approved' : 'Rejected'} by {r.decided_by}{' '}
                          <Time iso={r.decided_at} />
                          {r.decision_note && <>: “{r.decision_note}”</>}
                        </dd>
                      </>
                    )}
                  </dl>
                </div>
              </li>
            ))}
          </ol>
        )}
      </QueryView>
      {decision && (
        <DecisionDialog
          decision={decision}
          tenantName={names.get(decision.request.tenant) ?? decision.request.tenant}
          onClose={() => setDecision(null)}
        />
      )}
    </>
  );
}
