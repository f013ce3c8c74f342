// Settings › AI summaries: whether the tenant has AI case summaries (docs/cases.md, AI case summaries), what
// that means for its data, and the provider. Operators switch it (PATCH /v1/tenants/{code});
// tenant members opt out or back in through their account manager or support.
import { useState } from 'react';
import { errorMessage } from '../../api/client';
import type { Tenant } from '../../api/types';
import { useSession } from '../../app/session';
import { Dialog, DialogActions } from '../../components/Dialog';
import { QueryView } from '../../components/QueryView';
import { Badge, Field, Notice, PageHeader, Panel, Switch } from '../../components/ui';
import { useTenant, useTenantChange } from './tenant-queries';
import './settings.css';

const providers = [
  { value: '', label: "The deployment's provider" },
  { value: 'builtin', label: 'Built-in summariser (no model, no network)' },
  { value: 'openai', label: 'OpenAI-compatible model' },
  { value: 'anthropic', label: 'Anthropic model' },
] as const;

export const providerLabel = (value: string | null) =>
  providers.find((p) => p.value === (value ?? ''))?.label ?? value ?? '';

function OperatorControls({ tenant }: { tenant: Tenant }) {
  const change = useTenantChange(tenant.code_name);
  const [confirmOff, setConfirmOff] = useState(false);
  const on = tenant.ai_summaries === 'on';
  return (
    <>
      <div className="toolbar operator-controls">
        <Switch
          label={`AI summaries for ${tenant.name}`}
          checked={on}
          disabled={change.isPending}
          onChange={(next) => (next ? change.mutate({ ai_summaries: 'on' }) : setConfirmOff(true))}
        >
          {on ? 'On' : 'Off'} — operators only
        </Switch>
        <Field label="Provider">
          <select
            value={tenant.summary_provider ?? ''}
            disabled={change.isPending}
            onChange={(event) => change.mutate({ summary_provider: event.target.value || null })}
          >
            {providers.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {change.error && <Notice tone="danger">{errorMessage(change.error)}</Notice>}
      {confirmOff && (
        <Dialog
          title="Turn AI summaries off"
          onClose={() => setConfirmOff(false)}
          footer={
            <DialogActions
              onCancel={() => setConfirmOff(false)}
              label="Turn off"
              variant="danger"
              onConfirm={() => {
                change.mutate({ ai_summaries: 'off' });
                setConfirmOff(false);
              }}
            />
          }
        >
          <p>
            Turn AI case summaries off for <strong>{tenant.name}</strong> (<code>{tenant.code_name}</code>)?
          </p>
          <p className="muted">
            Summaries become unavailable to the tenant and Generate is no longer offered; the model input and output
            cached for it are deleted. Other case data is processed as normal. It can be turned back on at any time.
          </p>
        </Dialog>
      )}
    </>
  );
}

/** What writes the tenant's summaries, in the words the page uses for it. */
function writer(provider: string): { builtin: boolean; who: string } {
  return provider === 'builtin'
    ? { builtin: true, who: 'the built-in summariser on this server (not a language model; nothing leaves the server)' }
    : { builtin: false, who: `a language model (${providerLabel(provider)})` };
}

export default function AiSummariesPage() {
  const tenant = useTenant();
  const provider = tenant.data?.summary_provider_in_effect;
  return (
    <>
      <PageHeader
        trail={['Settings']}
        title="AI summaries"
        subtitle={
          provider
            ? `A summary of a case written by ${writer(provider).who}, generated when someone asks for one.`
            : 'A summary of a case, generated when someone asks for one.'
        }
      />
      <QueryView query={tenant} loading="Loading the tenant" error="Could not load the tenant">
        {(data) => <AiSummarySettings tenant={data} />}
      </QueryView>
    </>
  );
}

function AiSummarySettings({ tenant: t }: { tenant: Tenant }) {
  const { me } = useSession();
  const on = t.ai_summaries === 'on';
  const { builtin } = writer(t.summary_provider_in_effect);
  return (
    <>
      <div className="grid grid-2 settings-grid">
        <Panel title="Status">
          <div className="status-big">
            <Badge tone={on ? 'success' : 'neutral'}>{on ? 'On' : 'Off'}</Badge>
            <strong data-testid="ai-status">
              AI case summaries are {on ? 'on' : 'off'} for {t.name}
            </strong>
          </div>
          <p>
            {on
              ? 'Analysts can generate a summary on any case, and regenerate it; a summary does not update by itself when the case changes.'
              : 'The organisation opted out: summaries are unavailable and Generate is not offered. Other case data is processed as normal.'}
          </p>
          <dl className="facts">
            <dt>Provider</dt>
            <dd>
              {providerLabel(t.summary_provider_in_effect)}
              {t.summary_provider === null && <span className="muted"> (the deployment's)</span>}
            </dd>
            {!builtin && (
              <>
                <dt>Customer identifier given to the model</dt>
                <dd>
                  <code>{t.code_name}</code> (the anonymised code name, never the organisation's name)
                </dd>
              </>
            )}
          </dl>
          <hr />
          {me.operator ? (
            <OperatorControls tenant={t} />
          ) : (
            <Notice tone="info">
              To turn AI summaries {on ? 'off (opt out)' : 'back on'}, ask your account manager or support. The
              organisation can opt back in at any time.
            </Notice>
          )}
        </Panel>
        <Panel title="What happens to the data">
          {builtin ? (
            <ul className="plain-list">
              <li>
                Summaries are written on this server by the built-in summariser from the case, its devices, their
                processes and the telemetry behind each observation. It is not a language model: it arranges the case's
                own facts, and nothing is sent to a provider.
              </li>
              <li>
                A copy of its input and output, and any feedback with the internal user ID, is kept by the deployment's
                monitoring (see the operator's settings).
              </li>
              <li>
                Summaries can be rated thumbs up or down in the case view, with optional free text on thumbs down.
              </li>
              <li>
                An operator can switch the tenant to a language model provider; this page then says what it is given.
              </li>
            </ul>
          ) : (
            <>
              <ul className="plain-list">
                <li>
                  The model is given the case (score, description, status, times, observations, MITRE techniques), its
                  devices (host name and description, user, endpoint ID, IP addresses with country and city), their
                  processes (name, PID, executable path), a subset of the telemetry behind each observation, and the
                  anonymised customer code name.
                </li>
                <li>Model input and output are cached for up to 24 hours, so a refreshed summary comes faster.</li>
                <li>
                  A copy of model input and output, and any feedback with the internal user ID, is kept by a separate
                  monitoring provider: retained indefinitely, processed in the EU.
                </li>
                <li>
                  Summaries can be rated thumbs up or down in the case view, with optional free text on thumbs down.
                </li>
                <li>
                  Opting out makes summaries unavailable; other case data is processed as normal. Opting back in is
                  possible at any time.
                </li>
              </ul>
              <Notice tone="warning">
                Summaries can be inaccurate or invented. Verify critical information against the case and its evidence.
              </Notice>
            </>
          )}
        </Panel>
      </div>
    </>
  );
}
