// Operator › Tenants › Ingest limits: a tenant's collector limits (records and decoded bytes per
// second, each with a burst). Empty fields are no limit; removing them all returns the tenant to
// the default, unlimited (docs/collector.md, "Per-tenant ingest limits").
import { useState, type SubmitEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import type { Tenant } from '../../api/types';
import { Dialog, DialogActions } from '../../components/Dialog';
import { QueryView } from '../../components/QueryView';
import { Button, Field, Notice } from '../../components/ui';
import { limitFields, type IngestLimits, type LimitField } from '../settings/IngestLimitsPanel';

type Draft = Record<LimitField, string>;

const draftOf = (limits: IngestLimits): Draft =>
  Object.fromEntries(limitFields.map(({ field }) => [field, limits[field]?.toString() ?? ''])) as Draft;

const bodyOf = (draft: Draft) =>
  Object.fromEntries(limitFields.map(({ field }) => [field, draft[field].trim() ? Number(draft[field]) : null]));

/** A whole number from 1, or empty (no limit). */
const valid = (value: string) => value.trim() === '' || /^[1-9]\d*$/.test(value.trim());

export function IngestLimitsDialog({ tenant, onClose }: { tenant: Tenant; onClose: () => void }) {
  const path = `/v1/tenants/${encodeURIComponent(tenant.code_name)}/ingest-limits`;
  const key = ['operator', 'ingest-limits', tenant.code_name];
  const limits = useQuery({ queryKey: key, queryFn: () => api.get<IngestLimits>(path, { noTenant: true }) });
  return (
    <Dialog title={`Ingest limits of ${tenant.code_name}`} onClose={onClose}>
      <QueryView query={limits} loading="Loading the limits" error="Could not load the limits">
        {(data) => <LimitsForm path={path} queryKey={key} initial={data} onClose={onClose} />}
      </QueryView>
    </Dialog>
  );
}

function LimitsForm(props: { path: string; queryKey: string[]; initial: IngestLimits; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(props.initial));
  const save = useMutation({
    mutationFn: (body: Record<string, number | null> | null) =>
      body
        ? api.put<IngestLimits>(props.path, body, { noTenant: true })
        : api.delete<IngestLimits>(props.path, { noTenant: true }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: props.queryKey });
      props.onClose();
    },
  });
  const ok = limitFields.every(({ field }) => valid(draft[field]));
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (ok && !save.isPending) save.mutate(bodyOf(draft));
  };
  return (
    <form id="ingest-limits-form" onSubmit={submit} aria-label="Ingest limits">
      <p className="muted">
        Over a limit the collector answers 429 with Retry-After and stores nothing of the request. A burst (the largest
        request) defaults to its rate. Empty: no limit. Each of the {props.initial.collector_nodes ?? 1} collector
        node(s) running takes the rates divided by their number.
      </p>
      {limitFields.map(({ field, label }) => (
        <Field key={field} label={label} error={valid(draft[field]) ? undefined : 'A whole number from 1, or empty'}>
          <input
            type="text"
            inputMode="numeric"
            placeholder="No limit"
            value={draft[field]}
            onChange={(event) => setDraft({ ...draft, [field]: event.target.value })}
          />
        </Field>
      ))}
      {save.error && <Notice tone="danger">{errorMessage(save.error)}</Notice>}
      <DialogActions
        onCancel={props.onClose}
        label="Save limits"
        form="ingest-limits-form"
        disabled={!ok || save.isPending}
      />
      <Button variant="ghost" disabled={save.isPending} onClick={() => save.mutate(null)}>
        Remove limits
      </Button>
    </form>
  );
}
