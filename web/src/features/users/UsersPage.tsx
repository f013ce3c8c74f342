// Settings › Users: the tenant's people with role, status and last sign-in. Admins (users:write)
// invite, change roles, disable and re-enable, reset passwords, end sessions and delete; those
// with users:read only look. Operators see the tenant picked at the top.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import type { Page } from '../../api/types';
import { useSession } from '../../app/session';
import { DebouncedInput } from '../../components/DebouncedInput';
import { Pager, useCursorPager } from '../../components/paging';
import { QueryView } from '../../components/QueryView';
import { Badge, Button, Field, Notice, PageHeader, Panel, Time, type Tone } from '../../components/ui';
import { useUrlFilters } from '../../lib/url-state';
import { CodeDialog, ConfirmAccessDialog, InviteDialog, SessionsDialog } from './user-dialogs';
import { tenantRoles, type ManagedUser, type OneTimeCode, type TenantRole } from './types';
import './users.css';

const PAGE_SIZE = 100;
const statusTone: Record<ManagedUser['status'], Tone> = { active: 'success', invited: 'info', disabled: 'neutral' };

type Open =
  | { kind: 'invite' }
  | { kind: 'code'; user: ManagedUser; code: OneTimeCode }
  | { kind: 'disable' | 'delete'; user: ManagedUser }
  | { kind: 'sessions'; user: ManagedUser };

function UserActions({ user, self, onOpen }: { user: ManagedUser; self: boolean; onOpen: (open: Open) => void }) {
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (body: { role?: TenantRole; disabled?: boolean }) =>
      api.patch<ManagedUser>(`/v1/users/${encodeURIComponent(user.id)}`, body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['users'] }),
  });
  const reset = useMutation({
    mutationFn: () => api.post<OneTimeCode>(`/v1/users/${encodeURIComponent(user.id)}/password-reset`, {}),
    onSuccess: (code) => onOpen({ kind: 'code', user, code }),
  });
  const error = change.error ?? reset.error;
  return (
    <div className="user-actions">
      <label className="visually-hidden" htmlFor={`role-${user.id}`}>
        Role of {user.email}
      </label>
      <select
        id={`role-${user.id}`}
        value={user.role}
        disabled={self || change.isPending || user.role === 'operator'}
        onChange={(event) => change.mutate({ role: event.target.value as TenantRole })}
      >
        {tenantRoles.map((role) => (
          <option key={role} value={role}>
            {role}
          </option>
        ))}
      </select>
      <Button small variant="ghost" onClick={() => onOpen({ kind: 'sessions', user })}>
        Sessions
      </Button>
      {user.status !== 'disabled' && (
        <Button small variant="ghost" disabled={reset.isPending} onClick={() => reset.mutate()}>
          {user.status === 'invited' ? 'New invitation link' : 'Reset password'}
        </Button>
      )}
      {!self &&
        (user.status === 'disabled' ? (
          <Button small variant="ghost" disabled={change.isPending} onClick={() => change.mutate({ disabled: false })}>
            Enable
          </Button>
        ) : (
          <Button small variant="ghost" onClick={() => onOpen({ kind: 'disable', user })}>
            Disable
          </Button>
        ))}
      {!self && (
        <Button small variant="ghost" onClick={() => onOpen({ kind: 'delete', user })}>
          Delete
        </Button>
      )}
      {error && <Notice tone="danger">{errorMessage(error)}</Notice>}
    </div>
  );
}

export default function UsersPage() {
  const { can, me } = useSession();
  const manage = can('users:write');
  const [filters, setFilters] = useUrlFilters(['status', 'q'] as const);
  const status = filters.status ?? 'any';
  const pager = useCursorPager(JSON.stringify(filters));
  const users = useQuery({
    queryKey: ['users', status, filters.q ?? null, pager.cursor ?? null],
    queryFn: () =>
      api.get<Page<'users', ManagedUser>>('/v1/users', {
        query: { status, q: filters.q, limit: PAGE_SIZE, cursor: pager.cursor },
      }),
    placeholderData: (previous) => previous,
  });
  const [open, setOpen] = useState<Open | null>(null);
  const close = () => setOpen(null);
  const shown = users.data?.users ?? [];

  return (
    <>
      <PageHeader
        title="Users"
        actions={
          manage && (
            <Button variant="primary" onClick={() => setOpen({ kind: 'invite' })}>
              Invite person
            </Button>
          )
        }
      />
      <Panel className="flush">
        <div className="filters">
          <Field label="Search">
            <DebouncedInput
              type="search"
              data-search
              placeholder="Email or name"
              value={filters.q ?? ''}
              onSettle={(q) => setFilters({ q })}
            />
          </Field>
          <Field label="Status">
            <select value={status} onChange={(event) => setFilters({ status: event.target.value })}>
              <option value="any">All</option>
              <option value="active">Active and invited</option>
              <option value="disabled">Disabled</option>
            </select>
          </Field>
        </div>
        <QueryView
          query={users}
          loading="Loading users"
          error="Could not load users"
          empty={(data) => data.users.length === 0 && 'Nobody matches these filters.'}
        >
          {() => (
            <div className="table-wrap">
              <table className="table" aria-label="Users">
                <thead>
                  <tr>
                    <th>Person</th>
                    <th>Role</th>
                    <th>Status</th>
                    <th>Last sign-in</th>
                    <th>Added</th>
                    {manage && <th>Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {shown.map((user) => (
                    <tr key={user.id} className={user.status === 'disabled' ? 'row-muted' : undefined}>
                      <td>
                        {user.name}
                        {user.name !== user.email && <span className="subline mono">{user.email}</span>}
                      </td>
                      <td>{user.role}</td>
                      <td>
                        <Badge tone={statusTone[user.status]}>{user.status}</Badge>
                      </td>
                      <td className="nowrap">
                        {user.last_login_at ? <Time iso={user.last_login_at} /> : <span className="muted">Never</span>}
                      </td>
                      <td className="nowrap">
                        <Time iso={user.created_at} />
                      </td>
                      {manage && (
                        <td>
                          <UserActions user={user} self={user.id === me.id} onOpen={setOpen} />
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </QueryView>
        <Pager pager={pager} nextCursor={users.data?.next_cursor} shown={shown.length} pageSize={PAGE_SIZE} />
      </Panel>
      {open?.kind === 'invite' && <InviteDialog onClose={close} />}
      {open?.kind === 'code' && <CodeDialog user={open.user.email} code={open.code} onClose={close} />}
      {(open?.kind === 'disable' || open?.kind === 'delete') && (
        <ConfirmAccessDialog user={open.user} action={open.kind} onClose={close} />
      )}
      {open?.kind === 'sessions' && <SessionsDialog user={open.user} onClose={close} />}
    </>
  );
}
