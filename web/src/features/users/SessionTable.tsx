// A person's web sessions: where and when each signed in and was last used, with a button to end
// each. The current browser's session is marked and cannot be ended from here (sign out instead).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { QueryView } from '../../components/QueryView';
import { Badge, Button, Notice, Time } from '../../components/ui';
import type { SessionInfo } from './types';

export function SessionTable({ path, label }: { path: string; label: string }) {
  const queryClient = useQueryClient();
  const sessions = useQuery({
    queryKey: ['sessions', path],
    queryFn: () => api.get<{ sessions: SessionInfo[] }>(path),
  });
  const end = useMutation({
    mutationFn: (id: string) => api.delete(`${path}/${encodeURIComponent(id)}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['sessions', path] }),
  });
  return (
    <>
      <QueryView
        query={sessions}
        loading="Loading sessions"
        error="Could not load sessions"
        empty={(data) => data.sessions.length === 0 && 'No active sessions.'}
      >
        {(data) => (
          <div className="table-wrap">
            <table className="table" aria-label={label}>
              <thead>
                <tr>
                  <th>Browser</th>
                  <th>Address</th>
                  <th>Signed in</th>
                  <th>Last used</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.sessions.map((session) => (
                  <tr key={session.id}>
                    <td className="user-agent" title={session.user_agent}>
                      {session.user_agent || <span className="muted">Unknown</span>}{' '}
                      {session.current && <Badge tone="info">This browser</Badge>}
                    </td>
                    <td className="mono">{session.ip}</td>
                    <td className="nowrap">
                      <Time iso={session.created_at} />
                    </td>
                    <td className="nowrap">
                      <Time iso={session.last_seen_at} />
                    </td>
                    <td className="nowrap">
                      {!session.current && (
                        <Button
                          small
                          variant="ghost"
                          disabled={end.isPending}
                          onClick={() => end.mutate(session.id)}
                          aria-label={`End session from ${session.ip}`}
                        >
                          End
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryView>
      {end.error && <Notice tone="danger">{errorMessage(end.error)}</Notice>}
    </>
  );
}
