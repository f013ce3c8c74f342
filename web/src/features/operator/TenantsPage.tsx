// Operator › Tenants: every customer organisation with its collector address, AI summaries and
// observation-write approval (each switchable, with confirmation), creation and renaming.
import { useMemo, useState, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { codeNameRule, isValidCodeName } from '../../../../src/core/code-name.js';
import { api, errorMessage } from '../../api/client';
import type { Page, Tenant } from '../../api/types';
import { useSession } from '../../app/session';
import { CopyButton } from '../../components/CopyButton';
import { Dialog, DialogActions } from '../../components/Dialog';
import { Pager, useCursorPager } from '../../components/paging';
import { useRowNavigation } from '../../components/row-navigation';
import { QueryView } from '../../components/QueryView';
import { Button, Field, Notice, PageHeader, Panel, Switch, Time } from '../../components/ui';
import { matchesText } from '../../lib/text-filter';
import { useUrlFilters } from '../../lib/url-state';
import { useTenantChange } from '../settings/tenant-queries';
import { IngestLimitsDialog } from './IngestLimitsDialog';

const PAGE_SIZE = 50;

interface Change {
  tenant: Tenant;
  field: 'ai_summaries' | 'observation_write_approved';
  on: boolean;
}

function CreateTenantDialog({ onClose }: { onClose: (created?: Tenant) => void }) {
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () =>
      api.post<Tenant>(
        '/v1/tenants',
        { code_name: code, ...(name.trim() ? { name: name.trim() } : {}) },
        { noTenant: true },
      ),
    onSuccess: async (tenant) => {
      await queryClient.invalidateQueries({ queryKey: ['operator'] });
      onClose(tenant);
    },
  });
  const valid = isValidCodeName(code);
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (valid && !create.isPending) create.mutate();
  };
  return (
    <Dialog
      title="Create tenant"
      onClose={() => onClose()}
      footer={
        <DialogActions
          onCancel={() => onClose()}
          label={create.isPending ? 'Creating…' : 'Create tenant'}
          form="create-tenant-form"
          disabled={!valid || create.isPending}
        />
      }
    >
      <form id="create-tenant-form" onSubmit={submit} aria-label="Create tenant">
        <Field
          label="Code name"
          hint={`The anonymised identifier and the first label of the collector address; it ${codeNameRule}. It cannot be changed later.`}
          error={code && !valid ? `The code name ${codeNameRule}` : undefined}
        >
          <input
            type="text"
            value={code}
            onChange={(event) => setCode(event.target.value.toLowerCase())}
            autoFocus
            maxLength={63}
            spellCheck={false}
            placeholder="acme"
          />
        </Field>
        <Field label="Display name" hint="Shown to people; never given to AI models. Default: the code name.">
          <input
            type="text"
            value={name}
            onChange={(event) => setName(event.target.value)}
            maxLength={200}
            placeholder="Acme Corp"
          />
        </Field>
        {create.error && <Notice tone="danger">{errorMessage(create.error)}</Notice>}
      </form>
    </Dialog>
  );
}

function RenameDialog({ tenant, onClose }: { tenant: Tenant; onClose: () => void }) {
  const change = useTenantChange(tenant.code_name);
  const [name, setName] = useState(tenant.name);
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (name.trim()) change.mutate({ name: name.trim() }, { onSuccess: onClose });
  };
  return (
    <Dialog
      title={`Rename ${tenant.code_name}`}
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          label="Rename"
          form="rename-tenant-form"
          disabled={!name.trim() || change.isPending}
        />
      }
    >
      <form id="rename-tenant-form" onSubmit={submit} aria-label="Rename tenant">
        <Field label="Display name">
          <input type="text" value={name} onChange={(event) => setName(event.target.value)} maxLength={200} autoFocus />
        </Field>
        {change.error && <Notice tone="danger">{errorMessage(change.error)}</Notice>}
      </form>
    </Dialog>
  );
}

const consequences = {
  ai_summaries: {
    on: 'Analysts of the tenant can generate AI case summaries again.',
    off: 'Summaries become unavailable to the tenant and the model input and output cached for it are deleted. Other case data is processed as normal.',
  },
  observation_write_approved: {
    on: 'The tenant may write observations through the API (observations:write). Prefer approving a review request, which also sets the hourly volume.',
    off: 'Observation writes of the tenant are refused (403 observation_write_not_approved) until it is approved again.',
  },
} as const;

function ConfirmChange({ change, onClose }: { change: Change; onClose: () => void }) {
  const mutation = useTenantChange(change.tenant.code_name);
  const what = change.field === 'ai_summaries' ? 'AI summaries' : 'observation writing';
  const verb =
    change.field === 'ai_summaries'
      ? change.on
        ? 'Turn on'
        : 'Turn off'
      : change.on
        ? 'Approve'
        : 'Withdraw approval of';
  return (
    <Dialog
      title={`${verb} ${what}`}
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          label="Confirm"
          variant={change.on ? 'primary' : 'danger'}
          disabled={mutation.isPending}
          onConfirm={() =>
            mutation.mutate(
              change.field === 'ai_summaries'
                ? { ai_summaries: change.on ? 'on' : 'off' }
                : { observation_write_approved: change.on },
              { onSuccess: onClose },
            )
          }
        />
      }
    >
      <p>
        {verb} {what} for <strong>{change.tenant.name}</strong> (<code>{change.tenant.code_name}</code>)?
      </p>
      <p className="muted">{consequences[change.field][change.on ? 'on' : 'off']}</p>
      {mutation.error && <Notice tone="danger">{errorMessage(mutation.error)}</Notice>}
    </Dialog>
  );
}

export default function TenantsPage() {
  const { switchTenant, tenant: current } = useSession();
  const navigate = useNavigate();
  const [filters, setFilters] = useUrlFilters(['q'] as const);
  const pager = useCursorPager('tenants');
  const tenants = useQuery({
    queryKey: ['operator', 'tenants', 'page', pager.cursor ?? null],
    queryFn: () =>
      api.get<Page<'tenants', Tenant>>('/v1/tenants', {
        query: { limit: PAGE_SIZE, cursor: pager.cursor },
        noTenant: true,
      }),
    placeholderData: (previous) => previous,
  });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Tenant | null>(null);
  const [renaming, setRenaming] = useState<Tenant | null>(null);
  const [confirming, setConfirming] = useState<Change | null>(null);
  const [limiting, setLimiting] = useState<Tenant | null>(null);
  const shown = useMemo(
    () => (tenants.data?.tenants ?? []).filter((t) => matchesText(filters.q, t.code_name, t.name)),
    [tenants.data, filters.q],
  );
  const workIn = (t: Tenant) => {
    switchTenant(t.code_name);
    void navigate('/');
  };
  const { selected, setSelected } = useRowNavigation(shown.length, (i) => shown[i] && workIn(shown[i]));

  return (
    <>
      <PageHeader
        trail={['Operator']}
        title="Tenants"
        subtitle="Customer organisations of this platform. Press Enter on a row to work in that tenant."
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create tenant
          </Button>
        }
      />
      {created && (
        <Notice tone="success">
          Tenant <strong>{created.name}</strong> created. Its collector address is <code>{created.collector_url}</code>.{' '}
          <Button small onClick={() => workIn(created)}>
            Switch to {created.code_name}
          </Button>
        </Notice>
      )}
      <Panel className="flush">
        <div className="filters">
          <Field label="Search">
            <input
              type="search"
              data-search
              placeholder="Code name or name"
              value={filters.q ?? ''}
              onChange={(event) => setFilters({ q: event.target.value })}
            />
          </Field>
        </div>
        <QueryView
          query={tenants}
          loading="Loading tenants"
          error="Could not load tenants"
          empty={(data) => shown.length === 0 && (data.tenants.length === 0 ? 'No tenants yet.' : 'No tenant matches.')}
        >
          {() => (
            <div className="table-wrap">
              <table className="table" aria-label="Tenants">
                <thead>
                  <tr>
                    <th>Tenant</th>
                    <th>Collector URL</th>
                    <th>Created</th>
                    <th>AI summaries</th>
                    <th>Observation writing</th>
                    <th>
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((t, i) => (
                    <tr
                      key={t.code_name}
                      data-row-index={i}
                      aria-selected={selected === i}
                      onClick={() => setSelected(i)}
                    >
                      <td className="nowrap">
                        <strong>{t.name}</strong>
                        <span className="subline mono">
                          {t.code_name}
                          {current?.code_name === t.code_name && ' · current'}
                        </span>
                      </td>
                      <td className="nowrap">
                        <span className="mono">{t.collector_url}</span>{' '}
                        <CopyButton value={t.collector_url} label="Copy" />
                      </td>
                      <td className="nowrap">
                        <Time iso={t.created_at} />
                      </td>
                      <td>
                        <Switch
                          label={`AI summaries for ${t.code_name}`}
                          checked={t.ai_summaries === 'on'}
                          onChange={(on) => setConfirming({ tenant: t, field: 'ai_summaries', on })}
                        >
                          {t.ai_summaries === 'on' ? 'On' : 'Off'}
                        </Switch>
                      </td>
                      <td className="nowrap">
                        <Switch
                          label={`Observation writing for ${t.code_name}`}
                          checked={t.observation_write_approved}
                          onChange={(on) => setConfirming({ tenant: t, field: 'observation_write_approved', on })}
                        >
                          {t.observation_write_approved ? 'Approved' : 'Not approved'}
                        </Switch>
                        {t.observation_write_approved_at && (
                          <span className="subline mono">
                            since <Time iso={t.observation_write_approved_at} />
                          </span>
                        )}
                      </td>
                      <td className="nowrap">
                        <Button
                          small
                          variant="ghost"
                          onClick={() => setRenaming(t)}
                          aria-label={`Rename ${t.code_name}`}
                        >
                          Rename
                        </Button>
                        <Button
                          small
                          variant="ghost"
                          onClick={() => setLimiting(t)}
                          aria-label={`Ingest limits of ${t.code_name}`}
                        >
                          Limits
                        </Button>
                        <Button small variant="ghost" onClick={() => workIn(t)} aria-label={`Work in ${t.code_name}`}>
                          Work in
                        </Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </QueryView>
        <Pager
          pager={pager}
          nextCursor={tenants.data?.next_cursor}
          shown={tenants.data?.tenants.length ?? 0}
          pageSize={PAGE_SIZE}
        />
      </Panel>
      {creating && (
        <CreateTenantDialog
          onClose={(tenant) => {
            setCreating(false);
            if (tenant) setCreated(tenant);
          }}
        />
      )}
      {renaming && <RenameDialog tenant={renaming} onClose={() => setRenaming(null)} />}
      {confirming && <ConfirmChange change={confirming} onClose={() => setConfirming(null)} />}
      {limiting && <IngestLimitsDialog tenant={limiting} onClose={() => setLimiting(null)} />}
    </>
  );
}
