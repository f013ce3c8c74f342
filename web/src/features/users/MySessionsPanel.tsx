// Where you are signed in (Settings › Security): end a session you do not recognise, or sign out
// everywhere else at once.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { Button, Notice, Panel } from '../../components/ui';
import { SessionTable } from './SessionTable';
import './users.css';

const PATH = '/v1/me/sessions';

export function MySessionsPanel() {
  const queryClient = useQueryClient();
  const others = useMutation({
    mutationFn: () => api.delete<{ ended: number }>(PATH),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sessions', PATH] }),
  });
  return (
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
  );
}
