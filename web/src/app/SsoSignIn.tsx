// "Sign in with single sign-on" on the sign-in page: the person names their organisation (its
// code name, or `?tenant=` from the link they followed) and the browser goes to the server's
// /v1/auth/sso/<code>/start, which sends it to the organisation's identity provider. When the
// server sends someone back with `?sso_error=`, the reason is shown as a sentence. After a
// refused cross-site start nothing is filled in: the organisation was another site's choice.
import { useState, type KeyboardEvent } from 'react';
import { Button, Field, Notice } from '../components/ui';
import './sso-sign-in.css';

const reasons: Record<string, string> = {
  sso_unavailable:
    'Single sign-on is not available for that organisation. Check the code name, or sign in with your password.',
  invalid_state:
    'The sign-in took too long or was started in another window, so it could not be completed. Please try again.',
  provider_error: 'Your identity provider did not complete the sign-in. Try again, or ask your administrator.',
  exchange_failed:
    'Sightline could not confirm the sign-in with your identity provider. Try again, or ask your administrator.',
  email_not_verified: 'Your identity provider did not confirm your email address, so you cannot be signed in with it.',
  invalid_email: 'Your identity provider gave an email address Sightline does not accept. Ask your administrator.',
  domain_not_allowed: 'Your email address is not in a domain your organisation allows for single sign-on.',
  domain_not_verified:
    'Your organisation has not verified its email domain for single sign-on yet. Ask your administrator.',
  no_role:
    'Your account at the identity provider is not in a group that gives access to Sightline. Ask your administrator.',
  account_unavailable: 'This account cannot sign in to this organisation. Ask your administrator.',
  link_required:
    'Your account has a password of its own. Sign in with it (and your two-step code) once, then confirm that single sign-on may sign you in from now on.',
  too_many_attempts: 'Too many failed sign-ins from your network. Wait a few minutes, then try again.',
  cross_site: 'Another site tried to sign you in. Start single sign-on from this page instead.',
};

/** The page to come back to: where the person was, unless that is the sign-in page itself. */
function returnPath(): string {
  const { pathname, search } = window.location;
  if (pathname === '/login') return '/';
  const query = new URLSearchParams(search);
  query.delete('sso_error');
  query.delete('tenant');
  const rest = query.toString();
  return `${pathname}${rest ? `?${rest}` : ''}`;
}

/** The organisation to fill in: the link's, unless the link reports a sign-in another site started. */
function offeredTenant(params: URLSearchParams): string {
  const failure = params.get('sso_error');
  if (failure === 'cross_site' || failure === 'link_required') return '';
  return params.get('tenant') ?? '';
}

export function SsoSignIn() {
  const params = new URLSearchParams(window.location.search);
  const failure = params.get('sso_error');
  const offered = offeredTenant(params);
  // The password is the way in when a link waits for confirmation.
  const [open, setOpen] = useState(offered !== '' || (failure !== null && failure !== 'link_required'));
  const [code, setCode] = useState(offered);

  const go = () => {
    const name = code.trim().toLowerCase();
    if (name === '') return;
    const returnTo = encodeURIComponent(returnPath());
    window.location.assign(`/v1/auth/sso/${encodeURIComponent(name)}/start?return_to=${returnTo}`);
  };
  // Enter goes to the provider rather than submitting the password form around it.
  const onKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    go();
  };

  return (
    <div className="sso-sign-in">
      {failure !== null && (
        <Notice tone={failure === 'link_required' ? 'info' : 'danger'}>
          {reasons[failure] ?? 'Single sign-on failed. Please try again.'}
        </Notice>
      )}
      {open ? (
        <>
          <Field label="Organisation code name" hint="Your organisation's short name in Sightline, e.g. acme">
            <input
              type="text"
              name="organisation"
              autoComplete="organization"
              value={code}
              onChange={(event) => setCode(event.target.value)}
              onKeyDown={onKey}
            />
          </Field>
          <Button type="button" disabled={code.trim() === ''} onClick={go}>
            Continue with single sign-on
          </Button>
        </>
      ) : (
        <Button type="button" onClick={() => setOpen(true)}>
          Sign in with single sign-on
        </Button>
      )}
    </div>
  );
}
