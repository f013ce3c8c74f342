// Settings › Your account: who you are, and where you are signed in — end a session you do not
// recognise, or sign out everywhere else at once.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { Button, Notice, PageHeader, Panel } from '../../components/ui';
import { SessionTable } from './SessionTable';
import './users.css';

const PATH = '/v1/me/sessions';

export default function AccountPage() {
  const { me } = useSession();
  const queryClient = useQueryClient();
  const others = useMutation({
    mutationFn: () => api.delete<{ ended: number }>(PATH),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sessions', PATH] }),
  });
  if (me.kind !== 'user') return <Notice>API tokens have no account page.</Notice>;
  return (
    <>
      <PageHeader title="Your account" subtitle={`${me.label} · ${me.role ?? ''}`} />
      <Panel
        title="Where you are signed in"
        actions={
          <Button variant="danger" disabled={others.isPending} onClick={() => others.mutate()}>
            Sign out everywhere else
          </Button>
        }
      >
        <SessionTable path={PATH} label="Your sessions" />
        {others.data && <Notice tone="success">Ended {others.data.ended} other sessions.</Notice>}
        {others.error && <Notice tone="danger">{errorMessage(others.error)}</Notice>}
      </Panel>
    </>
  );
}
