// Settings › Security: the signed-in person's own second factor (docs/security.md, Accounts and sign-in),
// and where they are signed in.
// Off: set up an authenticator app. On: regenerate recovery codes or turn it off, each with the
// password. Recovery codes are shown once, right after they are made.
import { useState, type SubmitEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { Dialog, DialogActions } from '../../components/Dialog';
import { Badge, Button, Field, Notice, PageHeader, Panel } from '../../components/ui';
import { RecoveryCodes } from './RecoveryCodes';
import { SecondFactorSetup } from './SecondFactorSetup';
import { MySessionsPanel } from '../users/MySessionsPanel';
import './security.css';

type PasswordAction = 'turn-off' | 'regenerate';

function PasswordDialog({
  action,
  onClose,
  onDone,
}: {
  action: PasswordAction;
  onClose: () => void;
  onDone: (recoveryCodes?: string[]) => void;
}) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const title = action === 'turn-off' ? 'Turn off two-step sign-in' : 'Regenerate recovery codes';

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (action === 'turn-off') {
        await api.delete('/v1/me/second-factor', { body: { password } });
        onDone();
      } else {
        const answer = await api.post<{ recovery_codes: string[] }>('/v1/me/second-factor/recovery-codes', {
          password,
        });
        onDone(answer.recovery_codes);
      }
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={title}
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          form="second-factor-password"
          label={action === 'turn-off' ? 'Turn off' : 'Regenerate'}
          variant={action === 'turn-off' ? 'danger' : 'primary'}
          disabled={busy}
        />
      }
    >
      <form id="second-factor-password" onSubmit={(event) => void submit(event)}>
        <p className="muted">
          {action === 'turn-off'
            ? 'Sign-in will ask for your password alone. Your recovery codes stop working.'
            : 'Your current recovery codes stop working; the new ones are shown once.'}
        </p>
        <Field label="Password">
          <input
            type="password"
            autoComplete="current-password"
            required
            autoFocus
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        {error && <Notice tone="danger">{error}</Notice>}
      </form>
    </Dialog>
  );
}

export default function SecurityPage() {
  const { me } = useSession();
  const queryClient = useQueryClient();
  const [settingUp, setSettingUp] = useState(false);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [asking, setAsking] = useState<PasswordAction | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refreshMe = () => queryClient.invalidateQueries({ queryKey: ['me'] });

  const body = () => {
    if (me.kind !== 'user') return <p>API tokens have no second factor: sign in as a person to manage yours.</p>;
    if (codes) return <RecoveryCodes codes={codes} account={me.label} onDone={() => setCodes(null)} />;
    if (settingUp) {
      return (
        <SecondFactorSetup
          onCancel={() => setSettingUp(false)}
          onEnabled={(recoveryCodes) => {
            setSettingUp(false);
            setCodes(recoveryCodes);
            setNotice('Two-step sign-in is on.');
            void refreshMe();
          }}
        />
      );
    }
    if (me.second_factor) {
      return (
        <>
          <p>
            Sign-in asks for a code from your authenticator app after your password. If you lose your phone, sign in
            with a recovery code, or ask an administrator to turn it off for you.
          </p>
          <div className="toolbar">
            <Button onClick={() => setAsking('regenerate')}>Regenerate recovery codes</Button>
            <Button variant="danger" onClick={() => setAsking('turn-off')}>
              Turn off
            </Button>
          </div>
        </>
      );
    }
    return (
      <>
        <p>
          Protect your account with a second step at sign-in: a 6-digit code from an authenticator app on your phone,
          which changes every 30 seconds.
        </p>
        <Button variant="primary" onClick={() => setSettingUp(true)}>
          Set up authenticator app
        </Button>
      </>
    );
  };

  return (
    <>
      <PageHeader title="Security" trail={['Settings']} subtitle={`Sign-in for ${me.label}`} />
      <Panel
        title="Two-step sign-in"
        actions={<Badge tone={me.second_factor ? 'success' : 'neutral'}>{me.second_factor ? 'On' : 'Off'}</Badge>}
      >
        {notice && <Notice tone="success">{notice}</Notice>}
        {body()}
      </Panel>
      {me.kind === 'user' && <MySessionsPanel />}
      {asking && (
        <PasswordDialog
          action={asking}
          onClose={() => setAsking(null)}
          onDone={(recoveryCodes) => {
            setAsking(null);
            if (recoveryCodes) {
              setCodes(recoveryCodes);
              setNotice('New recovery codes made; the old ones no longer work.');
            } else setNotice('Two-step sign-in is off.');
            void refreshMe();
          }}
        />
      )}
    </>
  );
}
