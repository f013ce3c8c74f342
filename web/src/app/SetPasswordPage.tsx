// /set-password#code=…: where an invitation or password reset link lands. It works signed in or
// not: it shows whose code it is, takes the new password twice, and sends the person to sign in.
// The code stays in the URL fragment, which browsers never send to a server.
import { useState, type SubmitEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, errorMessage } from '../api/client';
import { Button, Field, Loading, Notice } from '../components/ui';

interface CodeInfo {
  email: string;
  name: string;
  purpose: 'invitation' | 'password_reset';
  expires_at: string;
}

export const SET_PASSWORD_PATH = '/set-password';

export function SetPasswordPage() {
  const code = new URLSearchParams(window.location.hash.slice(1)).get('code') ?? '';
  const info = useQuery({
    queryKey: ['password-code', code],
    queryFn: () => api.post<CodeInfo>('/v1/auth/password-codes/check', { code }, { noTenant: true }),
    enabled: code !== '',
    retry: false,
  });
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const redeem = useMutation({
    mutationFn: () =>
      api.post<{ email: string }>('/v1/auth/password-codes/redeem', { code, password }, { noTenant: true }),
  });
  const mismatch = repeat !== '' && repeat !== password;
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!mismatch) redeem.mutate();
  };

  let body;
  if (code === '' || info.error) {
    body = (
      <Notice tone="danger">
        {code === '' ? 'This page needs the link you were sent, with its code.' : errorMessage(info.error)} Ask an admin
        of your organisation for a new link.
      </Notice>
    );
  } else if (!info.data) {
    body = <Loading what="Checking the link" />;
  } else if (redeem.data) {
    body = (
      <>
        <Notice tone="success">Your password is set. Sign in with {redeem.data.email} and your new password.</Notice>
        <a className="btn btn-primary" href="/">
          Sign in
        </a>
      </>
    );
  } else {
    body = (
      <>
        <p>
          {info.data.purpose === 'invitation' ? 'Welcome' : 'Reset the password'} of <strong>{info.data.name}</strong> (
          {info.data.email}).
        </p>
        <input type="email" hidden readOnly autoComplete="username" value={info.data.email} />
        <Field label="New password" hint="At least 12 characters; a few unrelated words work well">
          <input
            type="password"
            autoComplete="new-password"
            required
            autoFocus
            minLength={12}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <Field label="Repeat it" error={mismatch ? 'The two passwords differ' : undefined}>
          <input
            type="password"
            autoComplete="new-password"
            required
            value={repeat}
            onChange={(e) => setRepeat(e.target.value)}
          />
        </Field>
        {redeem.error && <Notice tone="danger">{errorMessage(redeem.error)}</Notice>}
        <Button variant="primary" type="submit" disabled={redeem.isPending || mismatch}>
          {redeem.isPending ? 'Setting…' : 'Set password'}
        </Button>
      </>
    );
  }
  return (
    <main className="login">
      <form className="login-card" onSubmit={submit} aria-label="Set your password">
        <div className="login-brand">
          <img src="/favicon.svg" alt="" width={36} height={36} />
          <div>
            <h1>Sightline</h1>
            <p className="muted">Set your password</p>
          </div>
        </div>
        {body}
      </form>
    </main>
  );
}
