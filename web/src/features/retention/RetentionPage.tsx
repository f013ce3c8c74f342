// Settings › Retention: how long the tenant's raw telemetry is kept, its legal hold, and the
// storage its raw records use (docs/operations.md, Retention). Changing them needs retention:write.
import { useState } from 'react';
import { errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { QueryView } from '../../components/QueryView';
import { Badge, Button, Field, Notice, PageHeader, Panel, Time } from '../../components/ui';
import { formatBytes, formatNumber } from '../../lib/format';
import { useRetention, useRetentionChange, type TenantRetention } from './retention-queries';

export default function RetentionPage() {
  const retention = useRetention();
  return (
    <>
      <PageHeader
        trail={['Settings']}
        title="Retention"
        subtitle="How long raw telemetry is kept. Observations, cases, the audit log and summaries are kept until deleted."
      />
      <QueryView query={retention} loading="Loading retention" error="Could not load retention">
        {(data) => <RetentionSettings retention={data} />}
      </QueryView>
    </>
  );
}

function RetentionSettings({ retention: r }: { retention: TenantRetention }) {
  const { can } = useSession();
  const writable = can('retention:write');
  const change = useRetentionChange();
  const [days, setDays] = useState(String(r.telemetry_days ?? ''));
  const [reason, setReason] = useState(r.legal_hold_reason ?? '');
  return (
    <div className="grid grid-2 settings-grid">
      <Panel title="Raw telemetry">
        <dl className="facts" data-testid="retention-facts">
          <dt>Kept for</dt>
          <dd>
            {r.effective_days} days{r.telemetry_days === null ? " (the platform's default)" : ''}
          </dd>
          <dt>Allowed</dt>
          <dd>
            {r.limits.min_days}–{r.limits.max_days} days
          </dd>
          <dt>Records kept</dt>
          <dd>{r.usage.records === null ? 'not measured yet' : formatNumber(r.usage.records)}</dd>
          <dt>Storage used</dt>
          <dd data-testid="retention-bytes">
            {r.usage.bytes === null ? 'not measured yet' : formatBytes(r.usage.bytes)}
          </dd>
          <dt>Oldest record</dt>
          <dd>
            <Time iso={r.usage.oldest_record_at} />
          </dd>
          <dt>Purged so far</dt>
          <dd>
            {formatNumber(r.purged_records)} records{r.last_purge_at ? ', last ' : ''}
            {r.last_purge_at && <Time iso={r.last_purge_at} />}
          </dd>
        </dl>
        {writable && (
          <form
            className="toolbar"
            onSubmit={(event) => {
              event.preventDefault();
              change.mutate({ telemetry_days: days.trim() === '' ? null : Number(days) });
            }}
          >
            <Field label="Days to keep" hint={`Empty: the default (${r.limits.default_days} days)`}>
              <input
                type="number"
                min={r.limits.min_days}
                max={r.limits.max_days}
                value={days}
                onChange={(event) => setDays(event.target.value)}
              />
            </Field>
            <Button type="submit" variant="primary" disabled={change.isPending}>
              Save
            </Button>
          </form>
        )}
      </Panel>
      <Panel title="Legal hold">
        <div className="status-big">
          <Badge tone={r.legal_hold ? 'warning' : 'neutral'}>{r.legal_hold ? 'On hold' : 'No hold'}</Badge>
          <strong data-testid="legal-hold">
            {r.legal_hold ? `Purging is suspended: ${r.legal_hold_reason ?? ''}` : 'Expired records are purged'}
          </strong>
        </div>
        <p className="muted">
          A legal hold keeps every raw record of the tenant, whatever its age, until it is lifted. Records an open case
          cites are always kept until the case closes.
        </p>
        {writable && (
          <div className="toolbar">
            {!r.legal_hold && (
              <Field label="Reason">
                <input value={reason} maxLength={500} onChange={(event) => setReason(event.target.value)} />
              </Field>
            )}
            <Button
              variant={r.legal_hold ? 'secondary' : 'danger'}
              disabled={change.isPending || (!r.legal_hold && reason.trim() === '')}
              onClick={() =>
                change.mutate(r.legal_hold ? { legal_hold: false } : { legal_hold: true, legal_hold_reason: reason })
              }
            >
              {r.legal_hold ? 'Lift the hold' : 'Place a legal hold'}
            </Button>
          </div>
        )}
        {change.error && <Notice tone="danger">{errorMessage(change.error)}</Notice>}
      </Panel>
    </div>
  );
}
