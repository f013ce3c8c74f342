// The Users page's dialogs: invite a person, show a one-time link (invitation or password reset)
// once, confirm what takes access away (disable, delete), and a person's sessions.
import { useState, type SubmitEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { CopyButton } from '../../components/CopyButton';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Dialog, DialogActions } from '../../components/Dialog';
import { Button, Field, Notice } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import { SessionTable } from './SessionTable';
import { roleHelp, tenantRoles, type ManagedUser, type OneTimeCode, type TenantRole } from './types';

/** The link to hand over: the code rides in the fragment, which browsers never send to a server. */
export function CodeDialog({ user, code, onClose }: { user: string; code: OneTimeCode; onClose: () => void }) {
  const link = new URL(code.path, window.location.origin).toString();
  const invitation = code.purpose === 'invitation';
  return (
    <Dialog
      title={invitation ? 'Invitation link' : 'Password reset link'}
      onClose={onClose}
      footer={<Button onClick={onClose}>Done</Button>}
    >
      <p>
        Send this link to <strong>{user}</strong> over a channel you trust. With it they{' '}
        {invitation ? 'choose their password' : 'set a new password; their sessions end'}.
      </p>
      <div className="secret-value">
        <code data-testid="one-time-link">{link}</code>
        <CopyButton value={link} label="Copy link" />
      </div>
      <Notice tone="warning">
        It works once, until {formatDateTime(code.expires_at)}, and is shown only now. Issuing another replaces it.
      </Notice>
    </Dialog>
  );
}

export function InviteDialog({ onClose }: { onClose: () => void }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<TenantRole>('analyst');
  const invite = useMutation({
    mutationFn: () =>
      api.post<{ user: ManagedUser; invitation: OneTimeCode | null }>('/v1/users', {
        email,
        role,
        ...(name.trim() ? { name: name.trim() } : {}),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['users'] }),
  });
  if (invite.data?.invitation)
    return <CodeDialog user={invite.data.user.email} code={invite.data.invitation} onClose={onClose} />;
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    invite.mutate();
  };
  return (
    <Dialog
      title="Invite a person"
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          form="invite-form"
          label={invite.isPending ? 'Inviting…' : 'Invite'}
          disabled={invite.isPending}
        />
      }
    >
      <form id="invite-form" className="stack" onSubmit={submit}>
        <Field label="Email">
          <input type="email" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Name" hint="Shown on cases and comments; the email when left empty">
          <input value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
        </Field>
        <fieldset className="role-choice">
          <legend>Role</legend>
          {tenantRoles.map((r) => (
            <label key={r}>
              <input type="radio" name="role" value={r} checked={role === r} onChange={() => setRole(r)} />{' '}
              <strong>{r}</strong> <span className="muted">{roleHelp[r]}</span>
            </label>
          ))}
        </fieldset>
        {invite.error && <Notice tone="danger">{errorMessage(invite.error)}</Notice>}
      </form>
    </Dialog>
  );
}

/** Confirms disabling or deleting: both end the person's sessions and revoke their tokens at once. */
export function ConfirmAccessDialog({
  user,
  action,
  onClose,
}: {
  user: ManagedUser;
  action: 'disable' | 'delete';
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: () =>
      action === 'delete'
        ? api.delete(`/v1/users/${encodeURIComponent(user.id)}`)
        : api.patch(`/v1/users/${encodeURIComponent(user.id)}`, { disabled: true }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['users'] });
      onClose();
    },
  });
  return (
    <ConfirmDialog
      title={action === 'delete' ? 'Delete person' : 'Disable person'}
      action={action === 'delete' ? 'Delete' : 'Disable'}
      run={{ isPending: change.isPending, error: change.error, start: () => change.mutate() }}
      onClose={onClose}
    >
      <p>
        {action === 'delete' ? 'Delete' : 'Disable'} <strong>{user.name}</strong> ({user.email})?
      </p>
      <p className="muted">
        Their sessions end and their API tokens (and tokens those made) are revoked at once.{' '}
        {action === 'delete'
          ? 'They can never sign in again; cases, comments and the audit log keep their name, and the email can be invited again. This cannot be undone.'
          : 'You can enable them again later; revoked tokens stay revoked.'}
      </p>
    </ConfirmDialog>
  );
}

export function SessionsDialog({ user, onClose }: { user: ManagedUser; onClose: () => void }) {
  const queryClient = useQueryClient();
  const path = `/v1/users/${encodeURIComponent(user.id)}/sessions`;
  const endAll = useMutation({
    mutationFn: () => api.delete<{ ended: number }>(path),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sessions', path] }),
  });
  return (
    <Dialog title={`Sessions of ${user.name}`} onClose={onClose} wide>
      <SessionTable path={path} label={`Sessions of ${user.email}`} />
      <div className="dialog-row">
        <Button variant="danger" disabled={endAll.isPending} onClick={() => endAll.mutate()}>
          Sign out everywhere
        </Button>
        {endAll.data && <span className="muted">Ended {endAll.data.ended} sessions.</span>}
      </div>
      {endAll.error && <Notice tone="danger">{errorMessage(endAll.error)}</Notice>}
    </Dialog>
  );
}
