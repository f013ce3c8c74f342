// Settings › Collector › Ingest keys: the tenant's collector keys (name, prefix, creator, last
// use), creating one (its value shown once, with a Copy button), deleting one after
// confirmation, and the switch that makes the collector require a key. The server refuses the
// switch while there is no key, so forwarders always have one to send.
import { useState, type SubmitEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import type { Page } from '../../api/types';
import { useSession } from '../../app/session';
import { Dialog, DialogActions } from '../../components/Dialog';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { QueryView } from '../../components/QueryView';
import { SecretShownOnce } from './SecretShownOnce';
import type { IngestKey } from './types';
import { Button, Field, Notice, Switch, Time } from '../../components/ui';

interface IngestKeyPolicy {
  require_ingest_key: boolean;
}

const keysKey = ['ingest-keys'] as const;
const policyKey = ['ingest-key-policy'] as const;

/** Whether the tenant's collector requires an ingest key (false while unknown or unreadable). */
export function useIngestKeyPolicy(enabled: boolean) {
  return useQuery({
    queryKey: policyKey,
    queryFn: () => api.get<IngestKeyPolicy>('/v1/collector/ingest-key-policy'),
    enabled,
  });
}

function CreateKeyDialog({ onClose }: { onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => api.post<{ ingest_key: IngestKey; value: string }>('/v1/ingest-keys', { name: name.trim() }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey }),
  });
  const finish = () => {
    // Forget the value: the mutation's result is the only copy.
    create.reset();
    onClose();
  };
  if (create.data) {
    const { ingest_key: key, value } = create.data;
    return (
      <Dialog
        title="Ingest key created"
        onClose={finish}
        footer={
          <Button variant="primary" onClick={finish}>
            I have copied it
          </Button>
        }
      >
        <SecretShownOnce what="key" label="Ingest key" value={value} />
        <p className="muted">
          Forwarders send it as <code>Authorization: Bearer {key.prefix}</code>, or as the password of HTTP Basic (any
          user name). The configurations below read it from the environment variable <code>SIGHTLINE_INGEST_KEY</code>.
        </p>
      </Dialog>
    );
  }
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (name.trim() !== '') create.mutate();
  };
  return (
    <Dialog
      title="Create ingest key"
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          label={create.isPending ? 'Creating…' : 'Create key'}
          disabled={create.isPending || name.trim() === ''}
          form="create-ingest-key"
        />
      }
    >
      <form id="create-ingest-key" onSubmit={submit}>
        <Field label="Name" hint="What the key is for, e.g. the forwarder or the hosts that send with it.">
          <input type="text" value={name} maxLength={100} onChange={(event) => setName(event.target.value)} />
        </Field>
      </form>
      {create.error && <Notice tone="danger">{errorMessage(create.error)}</Notice>}
    </Dialog>
  );
}

function DeleteKeyDialog({ ingestKey, onClose }: { ingestKey: IngestKey; onClose: () => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.delete<IngestKey>(`/v1/ingest-keys/${encodeURIComponent(ingestKey.id)}`),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keysKey });
      onClose();
    },
  });
  return (
    <ConfirmDialog
      title="Delete ingest key"
      action="Delete key"
      pendingAction="Deleting…"
      run={{ isPending: remove.isPending, error: remove.error, start: () => remove.mutate() }}
      onClose={onClose}
      autoFocus
    >
      <p>
        Delete the ingest key <strong>{ingestKey.name}</strong> (<code>{ingestKey.prefix}</code>)?
      </p>
      <p className="muted">
        While the collector requires a key, forwarders sending this one are refused (401) from their next request on.
        This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

function RequireKeySwitch({ canWrite }: { canWrite: boolean }) {
  const queryClient = useQueryClient();
  const policy = useIngestKeyPolicy(true);
  const change = useMutation({
    mutationFn: (on: boolean) =>
      api.put<IngestKeyPolicy>('/v1/collector/ingest-key-policy', { require_ingest_key: on }),
    onSuccess: (answer) => queryClient.setQueryData(policyKey, answer),
  });
  const required = policy.data?.require_ingest_key ?? false;
  return (
    <div className="ingest-key-policy">
      <Switch
        label="Require an ingest key"
        checked={required}
        disabled={!canWrite || !policy.data || change.isPending}
        onChange={(on) => change.mutate(on)}
      >
        Require an ingest key: the collector refuses records (401) without one of these keys.
      </Switch>
      {change.error && <Notice tone="danger">{errorMessage(change.error)}</Notice>}
    </div>
  );
}

export function IngestKeysPanel() {
  const { can } = useSession();
  const canWrite = can('ingest_keys:write');
  const keys = useQuery({
    queryKey: keysKey,
    queryFn: () => api.get<Page<'ingest_keys', IngestKey>>('/v1/ingest-keys', { query: { limit: 100 } }),
  });
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<IngestKey | null>(null);
  return (
    <>
      <p className="muted">
        Keys forwarders send to this collector, as <code>Authorization: Bearer &lt;key&gt;</code> or as the HTTP Basic
        password. They open the collector only, not the API.
      </p>
      <RequireKeySwitch canWrite={canWrite} />
      <QueryView
        query={keys}
        loading="Loading ingest keys"
        error="Could not load ingest keys"
        empty={(data) => data.ingest_keys.length === 0 && 'No ingest keys yet.'}
      >
        {(data) => (
          <div className="table-wrap">
            <table className="table" aria-label="Ingest keys">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Created</th>
                  <th>Last used</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.ingest_keys.map((key) => (
                  <tr key={key.id}>
                    <td>
                      {key.name}
                      <span className="subline mono">{key.prefix}</span>
                    </td>
                    <td className="nowrap">
                      <Time iso={key.created_at} />
                      <span className="subline mono creator" title={key.created_by}>
                        by {key.created_by}
                      </span>
                    </td>
                    <td className="nowrap">
                      {key.last_used_at ? <Time iso={key.last_used_at} /> : <span className="muted">Never</span>}
                    </td>
                    <td className="nowrap">
                      {canWrite && (
                        <Button
                          small
                          variant="ghost"
                          onClick={() => setDeleting(key)}
                          aria-label={`Delete ${key.name}`}
                        >
                          Delete
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
      {canWrite && (
        <div className="ingest-key-actions">
          <Button onClick={() => setCreating(true)}>Create ingest key</Button>
        </div>
      )}
      {creating && <CreateKeyDialog onClose={() => setCreating(false)} />}
      {deleting && <DeleteKeyDialog ingestKey={deleting} onClose={() => setDeleting(null)} />}
    </>
  );
}
