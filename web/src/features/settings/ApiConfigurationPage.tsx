// Settings › Integrations › API Configuration: every token of the tenant, deleted ones
// included, with creator, permissions, status and last use; Create token (value shown once);
// delete with confirmation; how to use the API and its reference; observation-write approval.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { Page } from '../../api/types';
import { useSession } from '../../app/session';
import { DebouncedInput } from '../../components/DebouncedInput';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Dialog } from '../../components/Dialog';
import { Pager, useCursorPager } from '../../components/paging';
import { useRowNavigation } from '../../components/row-navigation';
import { QueryView } from '../../components/QueryView';
import { Button, Field, PageHeader, Panel, Time } from '../../components/ui';
import { formatDateTime, humanize } from '../../lib/format';
import { useUrlFilters } from '../../lib/url-state';
import { ApiUsagePanel } from './ApiUsagePanel';
import { CreateTokenDialog } from './CreateTokenDialog';
import { ObservationWritingPanel } from './ObservationWritingPanel';
import { PermissionChips, TokenStatusBadge } from './token-display';
import type { ApiToken } from './types';
import './settings.css';

const PAGE_SIZE = 100;
const statuses = ['active', 'expired', 'deleted'] as const;

function DeleteTokenDialog({ token, onClose }: { token: ApiToken; onClose: () => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.delete<ApiToken>(`/v1/tokens/${encodeURIComponent(token.id)}`),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['tokens'] });
      onClose();
    },
  });
  return (
    <ConfirmDialog
      title="Delete token"
      action="Delete token"
      pendingAction="Deleting…"
      run={{ isPending: remove.isPending, error: remove.error, start: () => remove.mutate() }}
      onClose={onClose}
      autoFocus
    >
      <p>
        Delete the token <strong>{token.name}</strong> (<code>{token.hint}</code>)?
      </p>
      <p className="muted">
        Anything using it stops working at once: its calls are answered 401. It stays in the list as deleted. This
        cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

function TokenDetails({ token, onClose }: { token: ApiToken; onClose: () => void }) {
  return (
    <Dialog title={`Token ${token.name}`} onClose={onClose}>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <TokenStatusBadge status={token.status} revoked={token.revoked_reason !== null} />
        </dd>
        <dt>Hint</dt>
        <dd className="mono">{token.hint}</dd>
        <dt>Id</dt>
        <dd className="mono">{token.id}</dd>
        <dt>Permissions</dt>
        <dd>
          <ul className="plain-list">
            {token.permissions.map((p) => (
              <li key={p}>
                <code>{p}</code>
              </li>
            ))}
          </ul>
        </dd>
        <dt>Created</dt>
        <dd>
          {formatDateTime(token.created_at)} by {token.created_by}
        </dd>
        <dt>Expires</dt>
        <dd>{token.expires_at ? formatDateTime(token.expires_at) : 'Never'}</dd>
        <dt>Last used</dt>
        <dd>
          {token.last_used_at
            ? `${formatDateTime(token.last_used_at)} from ${token.last_used_ip ?? 'an unknown address'}`
            : 'Never'}
        </dd>
        {token.deleted_at && (
          <>
            <dt>{token.revoked_reason ? 'Revoked' : 'Deleted'}</dt>
            <dd>
              {formatDateTime(token.deleted_at)} by {token.deleted_by}
              {token.revoked_reason && <span className="subline">{token.revoked_reason}</span>}
            </dd>
          </>
        )}
      </dl>
    </Dialog>
  );
}

function TokenTable() {
  const [filters, setFilters] = useUrlFilters(['status', 'q'] as const);
  const pager = useCursorPager(JSON.stringify(filters));
  const tokens = useQuery({
    queryKey: ['tokens', filters.status ?? null, filters.q ?? null, pager.cursor ?? null],
    queryFn: () =>
      api.get<Page<'tokens', ApiToken>>('/v1/tokens', {
        query: { limit: PAGE_SIZE, cursor: pager.cursor, status: filters.status, q: filters.q },
      }),
    placeholderData: (previous) => previous,
  });
  const [deleting, setDeleting] = useState<ApiToken | null>(null);
  const [details, setDetails] = useState<ApiToken | null>(null);
  const shown = tokens.data?.tokens ?? [];
  const { selected, setSelected } = useRowNavigation(shown.length, (i) => setDetails(shown[i] ?? null));

  return (
    <Panel title="Tokens" className="flush">
      <div className="filters">
        <Field label="Search">
          <DebouncedInput
            type="search"
            data-search
            placeholder="Name or creator"
            value={filters.q ?? ''}
            onSettle={(q) => setFilters({ q })}
          />
        </Field>
        <Field label="Status">
          <select value={filters.status ?? ''} onChange={(event) => setFilters({ status: event.target.value })}>
            <option value="">All</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {humanize(s)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <QueryView
        query={tokens}
        loading="Loading tokens"
        error="Could not load tokens"
        empty={(data) =>
          data.tokens.length === 0 &&
          (filters.status || filters.q
            ? 'No token matches these filters.'
            : 'No tokens yet. Create one to call the API.')
        }
      >
        {() => (
          <div className="table-wrap">
            <table className="table" aria-label="API tokens">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Permissions</th>
                  <th>Status</th>
                  <th>Created</th>
                  <th>Expires</th>
                  <th>Last used</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.map((token, i) => (
                  <tr
                    key={token.id}
                    data-row-index={i}
                    aria-selected={selected === i}
                    className={token.status === 'active' ? undefined : 'row-muted'}
                    onClick={() => setSelected(i)}
                  >
                    <td>
                      <button type="button" className="link-button token-name" onClick={() => setDetails(token)}>
                        {token.name}
                      </button>
                      <span className="subline mono">{token.hint}</span>
                    </td>
                    <td>
                      <PermissionChips permissions={token.permissions} />
                    </td>
                    <td className="nowrap">
                      <TokenStatusBadge status={token.status} revoked={token.revoked_reason !== null} />
                      {token.deleted_at && (
                        <span
                          className="subline mono"
                          title={token.revoked_reason ?? `Deleted by ${token.deleted_by ?? 'unknown'}`}
                        >
                          <Time iso={token.deleted_at} />
                        </span>
                      )}
                    </td>
                    <td className="nowrap">
                      <Time iso={token.created_at} />
                      <span className="subline mono creator" title={token.created_by}>
                        by {token.created_by}
                      </span>
                    </td>
                    <td className="nowrap">
                      {token.expires_at ? <Time iso={token.expires_at} /> : <span className="muted">Never</span>}
                    </td>
                    <td className="nowrap" data-label="Last used">
                      {token.last_used_at ? (
                        <>
                          <Time iso={token.last_used_at} />
                          <span className="subline mono">{token.last_used_ip}</span>
                        </>
                      ) : (
                        <span className="muted">Never</span>
                      )}
                    </td>
                    {/* Everyone signed in may delete what is listed: admins any token, others their own
                        (the API lists them only those). */}
                    <td className="nowrap">
                      {token.status !== 'deleted' && (
                        <Button
                          small
                          variant="ghost"
                          onClick={() => setDeleting(token)}
                          aria-label={`Delete ${token.name}`}
                        >
                          Delete
                        </Button>
                      )}
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
        nextCursor={tokens.data?.next_cursor}
        shown={tokens.data?.tokens.length ?? 0}
        pageSize={PAGE_SIZE}
      />
      {deleting && <DeleteTokenDialog token={deleting} onClose={() => setDeleting(null)} />}
      {details && <TokenDetails token={details} onClose={() => setDetails(null)} />}
    </Panel>
  );
}

export default function ApiConfigurationPage() {
  const { can } = useSession();
  const own = !can('tokens:read');
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        trail={['Settings', 'Integrations']}
        title="API Configuration"
        subtitle={`API tokens let scripts and integrations call the Sightline API. A token's value is shown once, when it is created.${own ? ' You see the tokens you created; each holds at most your own permissions.' : ''}`}
        // Every signed-in person may create tokens: admins any, others within their own role.
        actions={
          <Button variant="primary" onClick={() => setCreating(true)}>
            Create token
          </Button>
        }
      />
      <TokenTable />
      <div className="grid grid-2 settings-grid">
        <ApiUsagePanel />
        {can('observations:read') && <ObservationWritingPanel />}
      </div>
      {creating && <CreateTokenDialog onClose={() => setCreating(false)} />}
    </>
  );
}
