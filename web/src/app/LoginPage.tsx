// Sign-in with email and password (POST /v1/auth/login). The server counts failed attempts per
// address; its answer (wrong password, too many attempts and when to retry) is shown as is.
import { useState, type SubmitEvent } from 'react';
import { api, errorMessage } from '../api/client';
import type { Session } from '../api/types';
import { Button, Field, Notice } from '../components/ui';
import { SsoSignIn } from './SsoSignIn';

export function LoginPage({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post<Session>('/v1/auth/login', { email, password });
      await onSignedIn();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="login">
      <form className="login-card" onSubmit={(event) => void submit(event)} aria-label="Sign in">
        <div className="login-brand">
          <img src="/favicon.svg" alt="" width={36} height={36} />
          <div>
            <h1>Sightline</h1>
            <p className="muted">Security operations</p>
          </div>
        </div>
        <Field label="Email">
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            autoFocus
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </Field>
        <Field label="Password">
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        {error && <Notice tone="danger">{error}</Notice>}
        <Button variant="primary" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
        <SsoSignIn />
        <p className="login-help muted">
          Integrations use API tokens, not this page. The first start printed the operator&apos;s password;{' '}
          <code>sightline user create</code> adds people.
        </p>
      </form>
    </main>
  );
}
