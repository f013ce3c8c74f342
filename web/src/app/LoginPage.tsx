// Sign-in with email and password (POST /v1/auth/login). The server counts failed attempts per
// address; its answer (wrong password, too many attempts and when to retry) is shown as is.
// When the account has a second factor the server answers second_factor_required: the page
// then asks for the authenticator code (or a recovery code) and sends the same email and password with it.
// When the email and password open accounts in several tenants the server answers
// tenant_choice_required with those tenants, and the page asks which one to sign in to.
import { useState, type SubmitEvent } from 'react';
import { api, ApiError, errorMessage } from '../api/client';
import type { Session } from '../api/types';
import { Button, Field, Notice } from '../components/ui';
import { SsoSignIn } from './SsoSignIn';

type Step = 'password' | 'tenant' | 'code' | 'recovery';

/** An account the email and password opened: a tenant's code name, or null for an operator's. */
interface AccountChoice {
  code_name: string | null;
  name: string;
}

function accountChoices(failure: ApiError): AccountChoice[] {
  const tenants = failure.problem?.tenants;
  return Array.isArray(tenants) ? (tenants as AccountChoice[]) : [];
}

export function LoginPage({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [step, setStep] = useState<Step>('password');
  const [code, setCode] = useState('');
  const [recoveryCode, setRecoveryCode] = useState('');
  const [choices, setChoices] = useState<AccountChoice[]>([]);
  // The index of the chosen account in `choices`; -1 until the server asks.
  const [chosen, setChosen] = useState(-1);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const proof = step === 'code' ? { code } : step === 'recovery' ? { recovery_code: recoveryCode } : {};
      const account = choices[chosen];
      const tenant = account ? { tenant: account.code_name } : {};
      await api.post<Session>('/v1/auth/login', { email, password, ...tenant, ...proof });
      await onSignedIn();
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'second_factor_required') setStep('code');
      else if (failure instanceof ApiError && failure.code === 'tenant_choice_required') {
        setChoices(accountChoices(failure));
        setChosen(0);
        setStep('tenant');
      } else setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  const startOver = () => {
    setStep('password');
    setCode('');
    setRecoveryCode('');
    setChoices([]);
    setChosen(-1);
    setPassword('');
    setError(null);
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
        {step === 'password' ? (
          <>
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
          </>
        ) : step === 'tenant' ? (
          <>
            <p>
              <strong>{email}</strong> has accounts in several organisations.
            </p>
            <Field label="Sign in to">
              <select name="tenant" autoFocus value={chosen} onChange={(e) => setChosen(Number(e.target.value))}>
                {choices.map((choice, i) => (
                  <option key={choice.code_name ?? ''} value={i}>
                    {choice.code_name === null ? choice.name : `${choice.name} (${choice.code_name})`}
                  </option>
                ))}
              </select>
            </Field>
            <div className="login-links">
              <Button variant="ghost" small onClick={startOver}>
                Start over
              </Button>
            </div>
          </>
        ) : (
          <>
            <p>
              Two-step sign-in for <strong>{email}</strong>.
            </p>
            {step === 'code' ? (
              <Field label="Authentication code" hint="The 6 digits your authenticator app shows now">
                <input
                  name="code"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  pattern="[0-9]{6}"
                  maxLength={6}
                  required
                  autoFocus
                  value={code}
                  onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
                />
              </Field>
            ) : (
              <Field label="Recovery code" hint="One of the codes you saved when you set up the app; each works once">
                <input
                  name="recovery_code"
                  autoComplete="off"
                  spellCheck={false}
                  required
                  autoFocus
                  value={recoveryCode}
                  onChange={(e) => setRecoveryCode(e.target.value)}
                />
              </Field>
            )}
            <div className="login-links">
              <Button variant="ghost" small onClick={() => setStep(step === 'code' ? 'recovery' : 'code')}>
                {step === 'code' ? 'Use a recovery code' : 'Use the authenticator app'}
              </Button>
              <Button variant="ghost" small onClick={startOver}>
                Start over
              </Button>
            </div>
          </>
        )}
        {error && <Notice tone="danger">{error}</Notice>}
        <Button variant="primary" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : step === 'password' || step === 'tenant' ? 'Sign in' : 'Verify'}
        </Button>
        <SsoSignIn />
        <p className="login-help muted">
          No account yet? Ask an admin of your organisation for an invitation. Forgot your password? An admin sends you
          a reset link. Integrations use API tokens, not this page.
        </p>
      </form>
    </main>
  );
}
