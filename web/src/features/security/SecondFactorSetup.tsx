// Setting up the authenticator app: the server makes a secret (POST /v1/me/second-factor), shown
// as a QR code and as text to type; the first code from the app and the person's password turn it
// on (…/confirm) and bring the recovery codes.
import { useEffect, useState, type SubmitEvent } from 'react';
import QRCode from 'qrcode';
import { api, errorMessage } from '../../api/client';
import { Button, Field, Notice } from '../../components/ui';

interface Enrolment {
  secret: string;
  otpauth_uri: string;
}

/** The secret in groups of four, easier to type into an app. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

export function SecondFactorSetup({
  onEnabled,
  onCancel,
}: {
  onEnabled: (recoveryCodes: string[]) => void;
  onCancel: () => void;
}) {
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    api.post<Enrolment>('/v1/me/second-factor').then(
      async (started) => {
        const image = await QRCode.toDataURL(started.otpauth_uri, { margin: 1, width: 200 });
        if (!live) return;
        setEnrolment(started);
        setQr(image);
      },
      (failure: unknown) => live && setError(errorMessage(failure)),
    );
    return () => {
      live = false;
    };
  }, []);

  const confirm = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await api.post<{ recovery_codes: string[] }>('/v1/me/second-factor/confirm', {
        code,
        password,
      });
      onEnabled(answer.recovery_codes);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="second-factor-setup" aria-label="Set up authenticator app" onSubmit={(e) => void confirm(e)}>
      <p>
        Scan the QR code with an authenticator app (any app for time-based codes), or type the key into it. Then enter
        the 6-digit code it shows, and your password.
      </p>
      {enrolment && qr && (
        <div className="second-factor-secret">
          <img src={qr} alt="QR code for the authenticator app" width={200} height={200} />
          <div>
            <span className="field-label">Key</span>
            <code aria-label="Secret key">{grouped(enrolment.secret)}</code>
          </div>
        </div>
      )}
      <Field label="Code from the app">
        <input
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          value={code}
          onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
        />
      </Field>
      <Field label="Password">
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Field>
      {error && <Notice tone="danger">{error}</Notice>}
      <div className="toolbar">
        <Button onClick={onCancel}>Cancel</Button>
        <Button variant="primary" type="submit" disabled={busy || !enrolment}>
          Turn on
        </Button>
      </div>
    </form>
  );
}
