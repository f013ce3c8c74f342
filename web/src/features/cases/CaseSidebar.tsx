// The side column of a case: its facts (status, resolution, assignee, severity, tags), its
// devices with their addresses and locations, its dates, and its ATT&CK techniques with tactics.
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Badge, Button, Panel, Time } from '../../components/ui';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { CopyButton } from '../../components/CopyButton';
import { humanize } from '../../lib/format';
import type { CaseUpdate } from './case-update';
import { PersonSelect, TagsEditor, useAssignableMe } from './pickers';
import { severities, type CaseDetail, type Device, type Severity } from './types';

const criticalityTone = { low: 'neutral', medium: 'info', high: 'warning', critical: 'critical' } as const;

function Address({ address }: { address: Device['addresses'][number] }) {
  const place =
    address.scope === 'public'
      ? [address.city, address.country].filter(Boolean).join(', ') || 'location unknown'
      : humanize(address.scope);
  return (
    <li className="address">
      <span className="mono">{address.ip}</span>{' '}
      <span
        className={address.scope === 'public' ? '' : 'faint'}
        title={address.country_code ? `${address.country} (${address.country_code})` : undefined}
      >
        {address.country_code && <span className="country-code">{address.country_code}</span>} {place}
      </span>
    </li>
  );
}

/**
 * The case's devices. `actions` renders controls for one device (a response action, say) under
 * its details; the list stays the same without it.
 */
export function DeviceList({ devices, actions }: { devices: Device[]; actions?: (device: Device) => ReactNode }) {
  if (devices.length === 0) return <p className="muted">No device is named by the observations.</p>;
  return (
    <ul className="device-list">
      {devices.map((device) => (
        <li key={device.id}>
          <div className="device-line">
            <Link to={`/devices/${device.id}`} className="device-name">
              {device.host_name}
            </Link>
            <Badge tone={criticalityTone[device.criticality]} title="Device criticality (weighs into the score)">
              {humanize(device.criticality)}
            </Badge>
          </div>
          <div className="device-meta faint">
            {[
              device.os,
              device.last_user && `user ${device.last_user}`,
              device.endpoint_id && `endpoint ${device.endpoint_id}`,
            ]
              .filter(Boolean)
              .join(' · ') || 'No endpoint details'}
          </div>
          {device.description && <div className="device-meta">{device.description}</div>}
          {device.addresses.length > 0 && (
            <ul className="addresses" aria-label={`Addresses of ${device.host_name}`}>
              {device.addresses.slice(0, 6).map((address) => (
                <Address key={address.ip} address={address} />
              ))}
              {device.addresses.length > 6 && (
                <li className="faint">+{device.addresses.length - 6} more on the device page</li>
              )}
            </ul>
          )}
          {actions && <div className="device-actions">{actions(device)}</div>}
        </li>
      ))}
    </ul>
  );
}

export function CaseFacts({ detail, edit, canWrite }: { detail: CaseDetail; edit: CaseUpdate; canWrite: boolean }) {
  const me = useAssignableMe();
  const locked = !canWrite || edit.pending;
  return (
    <Panel title="Details">
      <dl className="facts case-facts">
        <dt>Status</dt>
        <dd data-fact="status">
          <StatusBadge value={detail.status} />
        </dd>
        {detail.resolution && (
          <>
            <dt>Resolution</dt>
            <dd>{humanize(detail.resolution)}</dd>
          </>
        )}
        {detail.closing_comment && (
          <>
            <dt>Closing note</dt>
            <dd className="closing-comment">{detail.closing_comment}</dd>
          </>
        )}
        <dt>Assignee</dt>
        <dd data-fact="assignee">
          {canWrite ? (
            <div className="inline-control">
              <PersonSelect
                label="Assignee"
                hideLabel
                value={detail.assignee?.id ?? 'none'}
                disabled={locked}
                onChange={(value) => edit.update({ assignee: value === 'none' ? null : value })}
              />
              {me && detail.assignee?.id !== me && (
                <Button
                  small
                  variant="ghost"
                  disabled={locked}
                  onClick={() => edit.update({ assignee: me })}
                  title="Shortcut: a"
                >
                  Assign to me
                </Button>
              )}
            </div>
          ) : detail.assignee ? (
            <span title={detail.assignee.email}>{detail.assignee.name}</span>
          ) : (
            <span className="faint">Unassigned</span>
          )}
        </dd>
        <dt>Severity</dt>
        <dd data-fact="severity">
          {canWrite ? (
            <select
              aria-label="Severity"
              value={detail.severity}
              disabled={locked}
              onChange={(event) => edit.update({ severity: event.target.value as Severity })}
            >
              {severities.map((severity) => (
                <option key={severity} value={severity}>
                  {humanize(severity)}
                </option>
              ))}
            </select>
          ) : (
            <SeverityBadge value={detail.severity} />
          )}
        </dd>
        <dt>Tags</dt>
        <dd>
          <TagsEditor tags={detail.tags} disabled={locked} onChange={(tags) => edit.update({ tags })} />
        </dd>
      </dl>
    </Panel>
  );
}

/** When the case was created, changed, first and last observed, closed; and its id. */
export function CaseDates({ detail }: { detail: CaseDetail }) {
  return (
    <Panel title="Dates">
      <dl className="facts case-facts">
        <dt>Created</dt>
        <dd>
          <Time iso={detail.created_at} exact />
        </dd>
        <dt>Updated</dt>
        <dd>
          <Time iso={detail.updated_at} />
        </dd>
        <dt>First seen</dt>
        <dd>
          <Time iso={detail.first_observation_at} exact />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Time iso={detail.last_observation_at} exact />
        </dd>
        {detail.closed_at && (
          <>
            <dt>Closed</dt>
            <dd>
              <Time iso={detail.closed_at} exact />
            </dd>
          </>
        )}
        <dt>Case id</dt>
        <dd className="case-id">
          <code>{detail.id}</code> <CopyButton value={detail.id} />
        </dd>
      </dl>
    </Panel>
  );
}

export function TechniqueList({ techniques }: { techniques: CaseDetail['techniques'] }) {
  if (techniques.length === 0) return <p className="muted">No ATT&CK technique is tagged on the observations.</p>;
  return (
    <ul className="technique-list">
      {techniques.map((technique) => (
        <li key={technique.id}>
          <span className="mono technique-id">{technique.id}</span>{' '}
          <span>{technique.name ?? <span className="faint">not in the catalogue</span>}</span>
          {technique.tactics.length > 0 && <div className="faint small-text">{technique.tactics.join(' · ')}</div>}
        </li>
      ))}
    </ul>
  );
}
