// Settings › Single sign-on: the tenant's OpenID Connect provider (docs/security.md, Single sign-on).
// Admins set the issuer, the client registered there, which email domains may sign in and how
// the provider's groups map to roles; the page shows the redirect URI to register. The client
// secret is write-only: once stored it is never shown again, only that one is set.
import { useState, type SubmitEvent } from 'react';
import { errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { CopyButton } from '../../components/CopyButton';
import { Dialog, DialogActions } from '../../components/Dialog';
import { QueryView } from '../../components/QueryView';
import { Badge, Button, Field, Notice, PageHeader, Panel, Switch } from '../../components/ui';
import { SsoDomains } from './SsoDomains';
import { SsoRoleMapping, tenantRoles, type MappingRow, type TenantRole } from './SsoRoleMapping';
import { useSso, useSsoRemove, useSsoSave, type SsoState } from './sso-queries';
import './settings.css';

export default function SingleSignOnPage() {
  const sso = useSso();
  // Held here, so what a save said survives the form starting afresh from the saved settings.
  const save = useSsoSave();
  const remove = useSsoRemove();
  return (
    <>
      <PageHeader
        trail={['Settings']}
        title="Single sign-on"
        subtitle="People of your organisation sign in with your identity provider (OpenID Connect)."
      />
      <QueryView query={sso} loading="Loading the single sign-on settings" error="Could not load the settings">
        {(state) => (
          <SsoSettingsForm
            key={state.configured ? state.settings.updated_at : 'new'}
            state={state}
            save={save}
            remove={remove}
          />
        )}
      </QueryView>
    </>
  );
}

function SsoSettingsForm({
  state,
  save,
  remove,
}: {
  state: SsoState;
  save: ReturnType<typeof useSsoSave>;
  remove: ReturnType<typeof useSsoRemove>;
}) {
  const { can } = useSession();
  const editable = can('sso:write');
  const saved = state.configured ? state.settings : undefined;
  const [issuer, setIssuer] = useState(saved?.issuer ?? '');
  const [clientId, setClientId] = useState(saved?.client_id ?? '');
  const [secret, setSecret] = useState('');
  const [domains, setDomains] = useState(saved?.allowed_email_domains.join(', ') ?? '');
  const [roleClaim, setRoleClaim] = useState(saved?.role_claim ?? 'groups');
  const [mapping, setMapping] = useState<MappingRow[]>(
    Object.entries(saved?.role_mapping ?? {}).map(([value, role]) => ({ value, role })),
  );
  const [defaultRole, setDefaultRole] = useState<TenantRole | ''>(saved?.default_role ?? '');
  const [enabled, setEnabled] = useState(saved?.enabled ?? true);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const redirectUri = state.configured ? state.settings.redirect_uri : state.redirect_uri;
  const signInUrl = state.configured ? state.settings.sign_in_url : state.sign_in_url;

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate({
      issuer: issuer.trim(),
      client_id: clientId.trim(),
      ...(secret !== '' ? { client_secret: secret } : {}),
      allowed_email_domains: domains.split(/[\s,]+/).filter((domain) => domain !== ''),
      role_claim: roleClaim.trim(),
      role_mapping: Object.fromEntries(
        mapping.filter((row) => row.value.trim() !== '').map((row) => [row.value.trim(), row.role]),
      ),
      default_role: defaultRole === '' ? null : defaultRole,
      enabled,
    });
  };

  return (
    <div className="grid grid-2 settings-grid">
      <Panel
        title="Identity provider"
        actions={
          <Badge tone={saved?.enabled ? 'success' : 'neutral'}>
            {saved ? (saved.enabled ? 'On' : 'Off') : 'Not configured'}
          </Badge>
        }
      >
        <form className="sso-form" aria-label="Single sign-on settings" onSubmit={submit}>
          <fieldset disabled={!editable || save.isPending}>
            <Field label="Issuer URL" hint="https only; Sightline reads its /.well-known/openid-configuration">
              <input type="text" required value={issuer} onChange={(e) => setIssuer(e.target.value)} />
            </Field>
            <Field label="Client ID">
              <input type="text" required value={clientId} onChange={(e) => setClientId(e.target.value)} />
            </Field>
            <Field
              label="Client secret"
              hint={saved ? 'A secret is stored. Leave this empty to keep it.' : 'Stored encrypted, never shown again.'}
            >
              <input
                type="password"
                autoComplete="new-password"
                required={!saved}
                value={secret}
                onChange={(e) => setSecret(e.target.value)}
              />
            </Field>
            <Field
              label="Allowed email domains"
              hint="Separated by commas; the provider must have verified the email, and you the domain (below)"
            >
              <input type="text" required value={domains} onChange={(e) => setDomains(e.target.value)} />
            </Field>
            <Field label="Role claim" hint="The id token claim with the person's groups or role, e.g. groups">
              <input type="text" required value={roleClaim} onChange={(e) => setRoleClaim(e.target.value)} />
            </Field>
            <SsoRoleMapping rows={mapping} onChange={setMapping} disabled={!editable || save.isPending} />
            <Field label="Default role" hint="For people no claim value maps; an existing member keeps their role">
              <select value={defaultRole} onChange={(e) => setDefaultRole(e.target.value as TenantRole | '')}>
                <option value="">None: refuse them</option>
                {tenantRoles.map((role) => (
                  <option key={role} value={role}>
                    {role}
                  </option>
                ))}
              </select>
            </Field>
            <Switch label="Single sign-on enabled" checked={enabled} onChange={setEnabled}>
              {enabled ? 'People may sign in with it' : 'Off: nobody signs in with it'}
            </Switch>
          </fieldset>
          {save.isError && <Notice tone="danger">{errorMessage(save.error)}</Notice>}
          {save.isSuccess && <Notice tone="success">Saved: the provider answered discovery.</Notice>}
          {editable ? (
            <div className="toolbar">
              <Button variant="primary" type="submit" disabled={save.isPending}>
                {save.isPending ? 'Checking the provider…' : 'Save'}
              </Button>
              {saved && (
                <Button variant="danger" onClick={() => setConfirmRemove(true)}>
                  Remove single sign-on
                </Button>
              )}
            </div>
          ) : (
            <Notice tone="info">Only tenant admins change these settings.</Notice>
          )}
        </form>
      </Panel>
      {saved && <SsoDomains domains={saved.email_domains} editable={editable} />}
      <Panel title="Register Sightline at your provider">
        <dl className="facts">
          <dt>Redirect URI</dt>
          <dd>
            <code data-testid="sso-redirect-uri">{redirectUri}</code>{' '}
            <CopyButton value={redirectUri} label="Copy the redirect URI" />
          </dd>
          <dt>Sign-in address</dt>
          <dd>
            <code>{signInUrl}</code>
          </dd>
        </dl>
        <ul className="plain-list">
          <li>Register a confidential web client using the authorization code flow, with the redirect URI above.</li>
          <li>
            Release <code>email</code>, <code>email_verified</code> and the role claim in the id token (scopes{' '}
            <code>openid email profile</code>).
          </li>
          <li>
            People signing in for the first time become members of this organisation with their mapped role; a mapped
            role is updated at every sign-in.
          </li>
          <li>
            Members who already have a password or two-step sign-in confirm the link once, after signing in with their
            password.
          </li>
        </ul>
      </Panel>
      {confirmRemove && (
        <Dialog
          title="Remove single sign-on"
          onClose={() => setConfirmRemove(false)}
          footer={
            <DialogActions
              onCancel={() => setConfirmRemove(false)}
              label="Remove"
              variant="danger"
              onConfirm={() => {
                remove.mutate();
                setConfirmRemove(false);
              }}
            />
          }
        >
          <p>
            Nobody can sign in through the provider any more, and the client secret is deleted. People it created stay
            members.
          </p>
        </Dialog>
      )}
      {remove.isError && <Notice tone="danger">{errorMessage(remove.error)}</Notice>}
    </div>
  );
}
