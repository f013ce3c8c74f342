// Operator › Retention: every tenant's raw telemetry retention, legal hold and the bytes its raw
// records use, and the range of days tenants may choose (docs/operations.md, Retention).
import { useState } from 'react';
import { errorMessage } from '../../api/client';
import { QueryView } from '../../components/QueryView';
import { Badge, Button, Field, Notice, PageHeader, Panel, Time } from '../../components/ui';
import { formatBytes, formatNumber } from '../../lib/format';
import { useLimitsChange, useRetentionOverview, type RetentionLimits } from './retention-queries';

export default function RetentionOverviewPage() {
  const overview = useRetentionOverview();
  return (
    <>
      <PageHeader
        trail={['Operator']}
        title="Retention"
        subtitle="Raw telemetry kept per tenant, and the storage it uses."
      />
      <QueryView query={overview} loading="Loading retention" error="Could not load retention">
        {(data) => (
          <>
            <LimitsPanel limits={data.limits} />
            <Panel title="Tenants">
              <table className="table" data-testid="retention-tenants">
                <thead>
                  <tr>
                    <th>Tenant</th>
                    <th>Kept for</th>
                    <th>Legal hold</th>
                    <th>Records</th>
                    <th>Storage</th>
                    <th>Oldest record</th>
                    <th>Purged</th>
                  </tr>
                </thead>
                <tbody>
                  {data.tenants.map((t) => (
                    <tr key={t.code_name}>
                      <td>
                        {t.name} <code>{t.code_name}</code>
                      </td>
                      <td>{t.effective_days} days</td>
                      <td>{t.legal_hold ? <Badge tone="warning">{t.legal_hold_reason ?? 'On hold'}</Badge> : '—'}</td>
                      <td>{t.usage.records === null ? '—' : formatNumber(t.usage.records)}</td>
                      <td>{t.usage.bytes === null ? '—' : formatBytes(t.usage.bytes)}</td>
                      <td>
                        <Time iso={t.usage.oldest_record_at} />
                      </td>
                      <td>{formatNumber(t.purged_records)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Panel>
          </>
        )}
      </QueryView>
    </>
  );
}

function LimitsPanel({ limits }: { limits: RetentionLimits }) {
  const change = useLimitsChange();
  const [draft, setDraft] = useState(limits);
  const field = (key: keyof RetentionLimits, label: string) => (
    <Field label={label}>
      <input
        type="number"
        min={1}
        value={draft[key]}
        onChange={(event) => setDraft({ ...draft, [key]: Number(event.target.value) })}
      />
    </Field>
  );
  return (
    <Panel title="Allowed range">
      <form
        className="toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          change.mutate(draft);
        }}
      >
        {field('min_days', 'Fewest days')}
        {field('max_days', 'Most days')}
        {field('default_days', 'Default days')}
        <Button type="submit" variant="primary" disabled={change.isPending}>
          Save
        </Button>
      </form>
      {change.error && <Notice tone="danger">{errorMessage(change.error)}</Notice>}
    </Panel>
  );
}
