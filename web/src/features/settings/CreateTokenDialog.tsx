// Create token: name, permissions (only those the creator holds), expiry; then the value, shown
// this once with a Copy button. Closing asks for "I have copied it"; after that the value is
// dropped from memory and nothing in the page holds it any more.
import { useEffect, useRef, useState, type SubmitEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { permissionDescriptions, allPermissions } from '../../../../src/identity/permissions.js';
import { api, errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { Dialog, DialogActions } from '../../components/Dialog';
import { Button, Field, Notice } from '../../components/ui';
import { formatDateTime } from '../../lib/format';
import { allowedExpiryChoices, dateInputValue, expiryFor, PermissionChips, type ExpiryChoice } from './token-display';
import { SecretShownOnce } from './SecretShownOnce';
import type { CreatedToken } from './types';
import type { Permission } from '../../api/types';

const NAME_MAX = 100;

export function CreateTokenDialog({ onClose }: { onClose: () => void }) {
  const { me } = useSession();
  const queryClient = useQueryClient();
  const offered = allPermissions.filter((p) => me.permissions.includes(p));
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<Permission[]>([]);
  const [expiry, setExpiry] = useState<ExpiryChoice>('30');
  const [customDate, setCustomDate] = useState(dateInputValue(30));
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [confirmingClose, setConfirmingClose] = useState(false);
  const allBox = useRef<HTMLInputElement>(null);

  const create = useMutation({
    mutationFn: (body: { name: string; permissions: Permission[]; expires_at: string | null }) =>
      api.post<CreatedToken>('/v1/tokens', body),
    onSuccess: (result) => {
      setCreated(result);
      void queryClient.invalidateQueries({ queryKey: ['tokens'] });
    },
  });

  const lifetime = me.token_lifetime;
  const choices = allowedExpiryChoices(lifetime);
  const expiresAt = expiryFor(expiry, customDate, lifetime);
  const trimmed = name.trim();
  const ready = trimmed.length > 0 && trimmed.length <= NAME_MAX && permissions.length > 0 && expiresAt !== undefined;
  const allChecked = permissions.length === offered.length;

  useEffect(() => {
    if (allBox.current) allBox.current.indeterminate = permissions.length > 0 && !allChecked;
  }, [permissions.length, allChecked]);

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!ready || create.isPending) return;
    create.mutate({
      name: trimmed,
      permissions: offered.filter((p) => permissions.includes(p)),
      expires_at: expiresAt ?? null,
    });
  };

  const finish = () => {
    // Forget the value: the mutation's result and this dialog's state are the only copies.
    create.reset();
    setCreated(null);
    onClose();
  };

  if (created) {
    const { token, value } = created;
    return (
      <Dialog
        title="Token created"
        onClose={() => setConfirmingClose(true)}
        footer={
          confirmingClose ? (
            <>
              <span className="muted">The token cannot be shown again. Have you copied it?</span>
              <Button onClick={() => setConfirmingClose(false)}>Back to the token</Button>
              <Button variant="primary" onClick={finish}>
                I have copied it
              </Button>
            </>
          ) : (
            <Button variant="primary" onClick={finish}>
              I have copied it
            </Button>
          )
        }
      >
        <SecretShownOnce what="token" label="Token value" value={value} />
        <dl className="facts">
          <dt>Name</dt>
          <dd>{token.name}</dd>
          <dt>Permissions</dt>
          <dd>
            <PermissionChips permissions={token.permissions} />
          </dd>
          <dt>Expires</dt>
          <dd>{token.expires_at ? formatDateTime(token.expires_at) : 'Never'}</dd>
        </dl>
        <p className="muted">
          Send it as <code>Authorization: Bearer {token.hint}</code>, or as the password of HTTP Basic (any username).
        </p>
      </Dialog>
    );
  }

  return (
    <Dialog
      title="Create token"
      wide
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          label={create.isPending ? 'Creating…' : 'Create token'}
          form="create-token-form"
          disabled={!ready || create.isPending}
        />
      }
    >
      <form id="create-token-form" onSubmit={submit} aria-label="Create token">
        <Field
          label="Name"
          hint="What the token is for, e.g. the integration using it."
          error={trimmed.length > NAME_MAX ? `At most ${NAME_MAX} characters` : undefined}
        >
          <input
            type="text"
            value={name}
            onChange={(event) => setName(event.target.value)}
            maxLength={NAME_MAX + 20}
            autoFocus
            required
            placeholder="SOAR integration"
          />
        </Field>

        <fieldset className="field">
          <legend className="field-label">Permissions</legend>
          <div className="perm-all">
            <label>
              <input
                ref={allBox}
                type="checkbox"
                checked={allChecked}
                onChange={(event) => setPermissions(event.target.checked ? [...offered] : [])}
              />{' '}
              Select all
            </label>
            <span className="muted">
              {permissions.length} of {offered.length} selected · only permissions you hold are offered
            </span>
          </div>
          <ul className="perm-list">
            {offered.map((permission) => (
              <li key={permission}>
                <label className="perm-option">
                  <input
                    type="checkbox"
                    checked={permissions.includes(permission)}
                    onChange={(event) =>
                      setPermissions((current) =>
                        event.target.checked ? [...current, permission] : current.filter((p) => p !== permission),
                      )
                    }
                    aria-describedby={`perm-${permission.replace(':', '-')}`}
                  />
                  <code>{permission}</code>
                  <span className="muted" id={`perm-${permission.replace(':', '-')}`}>
                    {permissionDescriptions[permission]}
                  </span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>

        <div className="toolbar">
          <Field label="Expiry">
            <select value={expiry} onChange={(event) => setExpiry(event.target.value as ExpiryChoice)}>
              {choices.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          </Field>
          {expiry === 'custom' && (
            <Field
              label="Expires at the end of"
              error={
                expiresAt === undefined
                  ? lifetime.max_days === null
                    ? 'Pick a date after today'
                    : `Pick a date after today and within ${lifetime.max_days} days`
                  : undefined
              }
            >
              <input
                type="date"
                value={customDate}
                min={dateInputValue(1)}
                {...(lifetime.max_days === null ? {} : { max: dateInputValue(lifetime.max_days) })}
                onChange={(event) => setCustomDate(event.target.value)}
              />
            </Field>
          )}
          {expiresAt && expiry !== 'custom' && <span className="muted">Expires {formatDateTime(expiresAt)}</span>}
        </div>
        {expiry === 'never' && (
          <Notice tone="warning">
            A token without expiry works until it is deleted. Prefer an expiry, and rotate tokens: a leaked token that
            never expires stays useful to whoever holds it.
          </Notice>
        )}
        {create.error && <Notice tone="danger">{errorMessage(create.error)}</Notice>}
      </form>
    </Dialog>
  );
}
