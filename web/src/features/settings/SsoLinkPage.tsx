// Account › Single sign-on link (/account/sso-link, docs/security.md, Single sign-on). Single
// sign-on sends people here when it met an account that has a password or a second factor of
// its own: having signed in with those, the person confirms that the identity provider may sign
// them in from now on (POST /v1/account/sso-link), or declines. The page also shows an existing
// link and lets the person remove it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, errorMessage } from '../../api/client';
import { QueryView } from '../../components/QueryView';
import { Button, Notice, PageHeader, Panel, Time } from '../../components/ui';

interface LinkState {
  linked: { issuer: string; linked_at: string; how: string } | null;
  pending: { issuer: string; email: string; expires_at: string } | null;
}

const linkKey = ['sso-link'] as const;

export default function SsoLinkPage() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const link = useQuery({ queryKey: linkKey, queryFn: () => api.get<LinkState>('/v1/account/sso-link') });
  const confirm = useMutation({
    mutationFn: () => api.post<LinkState>('/v1/account/sso-link'),
    onSuccess: (state) => queryClient.setQueryData(linkKey, state),
  });
  const remove = useMutation({
    mutationFn: () => api.delete<null>('/v1/account/sso-link'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: linkKey }),
  });
  return (
    <>
      <PageHeader title="Single sign-on link" subtitle="Whether your identity provider may sign you in." />
      <QueryView query={link} loading="Loading your link" error="Could not load your link">
        {(state) => (
          <Panel title={state.pending ? 'Link your account' : 'Your link'}>
            {state.pending ? (
              <>
                <p>
                  <code>{state.pending.issuer}</code> tried to sign you in as <strong>{state.pending.email}</strong>.
                  Link it, and it signs you in from now on; your password keeps working.
                </p>
                <p className="muted">
                  Not you, or not your organisation's provider? Decline, and tell your administrator. The request lapses{' '}
                  <Time iso={state.pending.expires_at} />.
                </p>
                <div className="toolbar">
                  <Button variant="primary" disabled={confirm.isPending} onClick={() => confirm.mutate()}>
                    Link single sign-on
                  </Button>
                  <Button
                    disabled={remove.isPending}
                    onClick={() => remove.mutate(undefined, { onSuccess: () => void navigate('/') })}
                  >
                    Decline
                  </Button>
                </div>
              </>
            ) : state.linked ? (
              <>
                <p>
                  <code>{state.linked.issuer}</code> signs you in, linked <Time iso={state.linked.linked_at} />.
                </p>
                {confirm.isSuccess && <Notice tone="success">Linked: single sign-on signs you in from now on.</Notice>}
                <div className="toolbar">
                  <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
                    Remove the link
                  </Button>
                </div>
              </>
            ) : (
              <p>Single sign-on does not sign you in: no link was made, or the request lapsed.</p>
            )}
            {confirm.isError && <Notice tone="danger">{errorMessage(confirm.error)}</Notice>}
            {remove.isError && <Notice tone="danger">{errorMessage(remove.error)}</Notice>}
          </Panel>
        )}
      </QueryView>
    </>
  );
}
