// Settings › Webhooks (docs/webhooks.md): the tenant's subscriptions — URL, events, on or off —
// creating one (its signing secret shown once, with Copy), turning one on or off, deleting one,
// and each one's delivery log with Redeliver. A subscription the server turned off because it
// kept failing is called out at the top, so the tenant admin sees it.
import { useState, type SubmitEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorMessage } from '../../api/client';
import { useSession } from '../../app/session';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { Dialog, DialogActions } from '../../components/Dialog';
import { QueryView } from '../../components/QueryView';
import { Badge, Button, Field, Notice, PageHeader, Panel, Switch, Time } from '../../components/ui';
import { WebhookDeliveries } from './WebhookDeliveries';
import { webhookEvents, type Webhook } from './webhook-types';
import './settings.css';

const listKey = ['webhooks'] as const;

function CreateWebhookDialog({ onClose }: { onClose: () => void }) {
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['case.created']);
  const [format, setFormat] = useState<'sightline' | 'ocsf'>('sightline');
  const create = useMutation({
    mutationFn: () =>
      api.post<{ webhook: Webhook; secret: string }>('/v1/webhooks', { url: url.trim(), events, format }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: listKey }),
  });
  const finish = () => {
    // Forget the secret: the mutation's result is the only copy here.
    create.reset();
    onClose();
  };
  if (create.data) {
    return (
      <Dialog
        title="Webhook created"
        onClose={finish}
        footer={
          <Button variant="primary" onClick={finish}>
            I have copied it
          </Button>
        }
      >
        <Notice tone="warning">
          <strong>Copy the signing secret now.</strong> It cannot be shown again. Your receiver verifies every delivery
          with it (docs/webhooks.md).
        </Notice>
        <div className="field">
          <span className="field-label" id="webhook-secret-label">
            Signing secret
          </span>
          <div className="secret-row">
            <input
              type="text"
              readOnly
              value={create.data.secret}
              aria-labelledby="webhook-secret-label"
              onFocus={(event) => event.target.select()}
              spellCheck={false}
              autoComplete="off"
            />
            <CopyButton value={create.data.secret} small={false} />
          </div>
        </div>
      </Dialog>
    );
  }
  const toggle = (event: string, on: boolean) =>
    setEvents((current) => (on ? [...current, event] : current.filter((item) => item !== event)));
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (url.trim() !== '' && events.length > 0) create.mutate();
  };
  return (
    <Dialog
      title="Create webhook"
      onClose={onClose}
      footer={
        <DialogActions
          onCancel={onClose}
          label={create.isPending ? 'Creating…' : 'Create webhook'}
          disabled={create.isPending || url.trim() === '' || events.length === 0}
          form="create-webhook"
        />
      }
    >
      <form id="create-webhook" onSubmit={submit}>
        <Field label="URL" hint="An https address that answers 2xx within 10 seconds.">
          <input
            type="url"
            value={url}
            maxLength={2048}
            placeholder="https://soar.example.com/hooks/sightline"
            onChange={(event) => setUrl(event.target.value)}
          />
        </Field>
        <fieldset className="webhook-events">
          <legend>Events</legend>
          {webhookEvents.map((name) => (
            <label key={name} className="checkbox">
              <input type="checkbox" checked={events.includes(name)} onChange={(e) => toggle(name, e.target.checked)} />{' '}
              <code>{name}</code>
            </label>
          ))}
        </fieldset>
        <Field label="Format" hint="OCSF sends observations and case events as OCSF 1.3 findings (docs/webhooks.md).">
          <select value={format} onChange={(event) => setFormat(event.target.value as 'sightline' | 'ocsf')}>
            <option value="sightline">Sightline (CloudEvents)</option>
            <option value="ocsf">OCSF findings</option>
          </select>
        </Field>
      </form>
      {create.error && <Notice tone="danger">{errorMessage(create.error)}</Notice>}
    </Dialog>
  );
}

function WebhookRow({ webhook, canWrite }: { webhook: Webhook; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const path = `/v1/webhooks/${encodeURIComponent(webhook.id)}`;
  const change = useMutation({
    mutationFn: (enabled: boolean) => api.patch<Webhook>(path, { enabled }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: listKey }),
  });
  const remove = useMutation({
    mutationFn: () => api.delete<null>(path),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: listKey }),
  });
  return (
    <Panel
      title={<span className="mono">{webhook.url}</span>}
      actions={
        <>
          {webhook.disabled_reason === 'failing' && <Badge tone="danger">Turned off: failing</Badge>}
          <Switch
            label={`Deliver to ${webhook.url}`}
            checked={webhook.enabled}
            disabled={!canWrite || change.isPending}
            onChange={(on) => change.mutate(on)}
          >
            {webhook.enabled ? 'On' : 'Off'}
          </Switch>
        </>
      }
    >
      <p>
        {webhook.events.map((event) => (
          <Badge key={event}>{event}</Badge>
        ))}
        {webhook.format === 'ocsf' && <Badge>OCSF</Badge>}
      </p>
      <p className="muted">
        Secret <code>{webhook.secret_prefix}</code> · created <Time iso={webhook.created_at} /> by {webhook.created_by}
        {webhook.failing_since && (
          <>
            {' '}
            · failing since <Time iso={webhook.failing_since} />
          </>
        )}
      </p>
      {change.error && <Notice tone="danger">{errorMessage(change.error)}</Notice>}
      <div className="ingest-key-actions">
        <Button small onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? 'Hide deliveries' : 'Deliveries'}
        </Button>
        {canWrite && (
          <Button small variant="ghost" onClick={() => setDeleting(true)} aria-label={`Delete ${webhook.url}`}>
            Delete
          </Button>
        )}
      </div>
      {open && <WebhookDeliveries webhookId={webhook.id} canWrite={canWrite} />}
      {deleting && (
        <ConfirmDialog
          title="Delete webhook"
          action="Delete webhook"
          pendingAction="Deleting…"
          run={{ isPending: remove.isPending, error: remove.error, start: () => remove.mutate() }}
          onClose={() => setDeleting(false)}
          autoFocus
        >
          <p>
            Delete the webhook to <code>{webhook.url}</code> and its delivery log? Nothing more is sent to it.
          </p>
        </ConfirmDialog>
      )}
    </Panel>
  );
}

export default function WebhooksPage() {
  const { can } = useSession();
  const canWrite = can('webhooks:write');
  const webhooks = useQuery({ queryKey: listKey, queryFn: () => api.get<{ webhooks: Webhook[] }>('/v1/webhooks') });
  const [creating, setCreating] = useState(false);
  const failing = webhooks.data?.webhooks.filter((webhook) => webhook.disabled_reason === 'failing') ?? [];
  return (
    <>
      <PageHeader
        trail={['Settings']}
        title="Webhooks"
        subtitle="Sightline posts signed CloudEvents to your systems when cases, observations, summaries and response actions happen."
        actions={canWrite && <Button onClick={() => setCreating(true)}>Create webhook</Button>}
      />
      {failing.length > 0 && (
        <Notice tone="danger">
          {failing.length === 1 ? 'A webhook was' : `${failing.length} webhooks were`} turned off because deliveries
          kept failing: {failing.map((webhook) => webhook.url).join(', ')}. Fix the receiver, turn it back on, and
          redeliver what it missed from its delivery log.
        </Notice>
      )}
      <QueryView
        query={webhooks}
        loading="Loading webhooks"
        error="Could not load webhooks"
        empty={(data) => data.webhooks.length === 0 && 'No webhooks yet.'}
      >
        {(data) => (
          <>
            {data.webhooks.map((webhook) => (
              <WebhookRow key={webhook.id} webhook={webhook} canWrite={canWrite} />
            ))}
          </>
        )}
      </QueryView>
      {creating && <CreateWebhookDialog onClose={() => setCreating(false)} />}
    </>
  );
}
