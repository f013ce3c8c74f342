// One device: its facts (description and criticality editable by tenant admins), its addresses
// with their location (and the attribution DB-IP's licence requires), the processes seen on it
// and its cases.
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useSession } from '../../app/session';
import { SeverityBadge } from '../../components/badges';
import { CopyButton } from '../../components/CopyButton';
import { QueryView } from '../../components/QueryView';
import { Badge, Button, Empty, Field, Notice, PageHeader, Panel, Time } from '../../components/ui';
import { errorMessage } from '../../api/client';
import { formatDateTime, formatNumber, humanize } from '../../lib/format';
import { matchesText } from '../../lib/text-filter';
import { CaseSummaryTable } from '../cases/CaseSummaryTable';
import { useDevice, useEditDevice } from './api';
import { ResponseActions } from './ResponseActions';
import { placeOf } from './addresses';
import { criticalities, GEOIP_ATTRIBUTION, type Criticality, type DeviceDetail } from './types';
import './devices.css';

function DescriptionEditor({ device }: { device: DeviceDetail }) {
  const edit = useEditDevice(device.id);
  const [draft, setDraft] = useState<string | null>(null);
  if (draft === null) {
    return (
      <div className="device-description-view">
        {device.description ? <p>{device.description}</p> : <p className="faint">No description.</p>}
        <Button small onClick={() => setDraft(device.description)}>
          Edit description
        </Button>
        {edit.isSuccess && <Notice tone="success">Description saved.</Notice>}
      </div>
    );
  }
  return (
    <form
      className="device-description-form"
      onSubmit={(event) => {
        event.preventDefault();
        edit.mutate({ description: draft.trim() }, { onSuccess: () => setDraft(null) });
      }}
    >
      <Field label="Description" error={edit.isError ? errorMessage(edit.error) : undefined}>
        <textarea
          rows={3}
          maxLength={2000}
          value={draft}
          autoFocus
          onChange={(event) => setDraft(event.target.value)}
        />
      </Field>
      <div className="toolbar">
        <Button type="submit" variant="primary" small disabled={edit.isPending}>
          {edit.isPending ? 'Saving…' : 'Save'}
        </Button>
        <Button small onClick={() => setDraft(null)} disabled={edit.isPending}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function CriticalityControl({ device }: { device: DeviceDetail }) {
  const edit = useEditDevice(device.id);
  return (
    <>
      <select
        aria-label="Criticality"
        value={device.criticality}
        disabled={edit.isPending}
        onChange={(event) => edit.mutate({ criticality: event.target.value as Criticality })}
      >
        {criticalities.map((value) => (
          <option key={value} value={value}>
            {humanize(value)}
          </option>
        ))}
      </select>
      {edit.isError && <Notice tone="danger">Could not change the criticality: {errorMessage(edit.error)}</Notice>}
      {edit.isSuccess && (
        <Notice tone="success">
          Criticality set to {humanize(edit.data.criticality)}; the device&apos;s open cases were rescored.
        </Notice>
      )}
    </>
  );
}

function Facts({ device }: { device: DeviceDetail }) {
  const { can } = useSession();
  const admin = can('devices:write');
  const missing = <span className="faint">—</span>;
  return (
    <Panel title="Device" className="device-facts">
      <dl className="facts">
        <dt>Host name</dt>
        <dd>
          <strong>{device.host_name}</strong>
        </dd>
        <dt>Criticality</dt>
        <dd>{admin ? <CriticalityControl device={device} /> : <SeverityBadge value={device.criticality} />}</dd>
        <dt>Endpoint ID</dt>
        <dd className="mono">{device.endpoint_id ?? missing}</dd>
        <dt>OS</dt>
        <dd>{device.os ?? missing}</dd>
        <dt>Last user</dt>
        <dd className="mono">{device.last_user ?? missing}</dd>
        {device.kubernetes_namespace && (
          <>
            <dt>Namespace</dt>
            <dd className="mono">{device.kubernetes_namespace}</dd>
          </>
        )}
        <dt>First seen</dt>
        <dd>
          <Time iso={device.first_seen} exact />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Time iso={device.last_seen} exact />{' '}
          <span className="faint">
            (<Time iso={device.last_seen} />)
          </span>
        </dd>
        <dt>Device ID</dt>
        <dd className="mono">
          {device.id} <CopyButton value={device.id} />
        </dd>
      </dl>
      <h3 className="device-subtitle">Description</h3>
      {admin ? (
        <DescriptionEditor device={device} />
      ) : device.description ? (
        <p>{device.description}</p>
      ) : (
        <p className="faint">No description. Tenant admins can add one.</p>
      )}
    </Panel>
  );
}

function Addresses({ device }: { device: DeviceDetail }) {
  return (
    <Panel
      title={
        <>
          Addresses <Badge>{device.addresses.length}</Badge>
        </>
      }
      className="flush"
    >
      {device.addresses.length === 0 ? (
        <Empty>No addresses seen yet: they come from endpoint and network events.</Empty>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Addresses">
            <thead>
              <tr>
                <th>IP address</th>
                <th>Scope</th>
                <th>Country</th>
                <th>City</th>
                <th>First seen</th>
                <th>Last seen</th>
              </tr>
            </thead>
            <tbody>
              {device.addresses.map((address) => (
                <tr key={address.ip}>
                  <td className="mono nowrap">
                    <Link to={`/devices?ip=${encodeURIComponent(address.ip)}`} title="Devices that used this address">
                      {address.ip}
                    </Link>
                  </td>
                  <td>{address.scope === 'public' ? 'Public' : <Badge>{placeOf(address)}</Badge>}</td>
                  <td className="nowrap">
                    {address.country ? (
                      `${address.country} (${address.country_code})`
                    ) : (
                      <span className="faint">—</span>
                    )}
                  </td>
                  <td className="nowrap">{address.city ?? <span className="faint">—</span>}</td>
                  <td className="nowrap">
                    <Time iso={address.first_seen} />
                  </td>
                  <td className="nowrap">
                    <Time iso={address.last_seen} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="geoip-attribution">
        <a href={GEOIP_ATTRIBUTION.href} target="_blank" rel="noreferrer">
          {GEOIP_ATTRIBUTION.text}
        </a>
        , licensed under{' '}
        <a href={GEOIP_ATTRIBUTION.licenceHref} target="_blank" rel="noreferrer">
          {GEOIP_ATTRIBUTION.licence}
        </a>
        . Locations are looked up when an address is first seen.
      </p>
    </Panel>
  );
}

function Processes({ device }: { device: DeviceDetail }) {
  const [filter, setFilter] = useState('');
  const shown = device.processes.filter((process) =>
    matchesText(filter, process.process_name, process.executable_path, process.user, process.pid),
  );
  return (
    <Panel
      title={
        <>
          Processes <Badge>{formatNumber(device.processes.length)}</Badge>
        </>
      }
      className="flush"
      actions={
        device.processes.length > 0 && (
          <input
            type="search"
            aria-label="Filter processes"
            placeholder="Filter processes"
            className="process-filter"
            value={filter}
            onChange={(event) => setFilter(event.target.value)}
          />
        )
      }
    >
      {device.processes.length === 0 ? (
        <Empty>
          No processes seen: they come from endpoint process events (Sysmon, auditd, osquery, the generic shape).
        </Empty>
      ) : shown.length === 0 ? (
        <Empty>No process matches “{filter}”.</Empty>
      ) : (
        // A scrolling region takes focus, so the keyboard can scroll it too.
        <div className="table-wrap process-table-wrap" tabIndex={0} role="region" aria-label="Processes (scrolls)">
          <table className="table" aria-label="Processes">
            <thead>
              <tr>
                <th>Name</th>
                <th className="num">PID</th>
                <th>Executable path</th>
                <th>User</th>
                <th>Seen</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((process, index) => (
                <tr key={`${process.pid ?? ''}-${process.executable_path ?? ''}-${index}`}>
                  <td className="nowrap mono">{process.process_name ?? <span className="faint">—</span>}</td>
                  <td className="num mono">{process.pid ?? <span className="faint">—</span>}</td>
                  <td className="mono truncate" title={process.executable_path ?? undefined}>
                    {process.executable_path ?? <span className="faint">—</span>}
                  </td>
                  <td className="nowrap mono">{process.user ?? <span className="faint">—</span>}</td>
                  <td className="nowrap" title={formatDateTime(process.last_seen)}>
                    <Time iso={process.last_seen} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}

function Cases({ device }: { device: DeviceDetail }) {
  const open = device.cases.filter((kase) => kase.status !== 'closed').length;
  return (
    <Panel
      title={
        <>
          Cases <Badge tone={open > 0 ? 'warning' : 'neutral'}>{open} open</Badge>
        </>
      }
      className="flush"
    >
      {device.cases.length === 0 ? (
        <Empty>No cases on this device.</Empty>
      ) : (
        <CaseSummaryTable cases={device.cases} label="Cases on this device" />
      )}
    </Panel>
  );
}

function DeviceView({ device }: { device: DeviceDetail }) {
  const { can } = useSession();
  return (
    <>
      <PageHeader
        trail={[{ label: 'Devices', to: '/devices' }]}
        title={device.host_name}
        subtitle={
          <>
            {device.os ?? 'Unknown OS'} · criticality {device.criticality} · last seen <Time iso={device.last_seen} />
          </>
        }
        actions={
          can('observations:read') && (
            <Link
              className="btn btn-secondary btn-small"
              to={`/observations?host=${encodeURIComponent(device.host_name)}`}
            >
              Observations on this host
            </Link>
          )
        }
      />
      <div className="grid grid-sidebar">
        <div className="device-main">
          <Addresses device={device} />
          <Cases device={device} />
          <Processes device={device} />
        </div>
        <div>
          <Facts device={device} />
          <ResponseActions deviceId={device.id} hostName={device.host_name} />
        </div>
      </div>
    </>
  );
}

export default function DeviceDetailPage() {
  const { deviceId = '' } = useParams();
  const device = useDevice(deviceId);
  const notFound = (
    <>
      <PageHeader trail={[{ label: 'Devices', to: '/devices' }]} title="Device not found" />
      <Empty>There is no device {deviceId} in this tenant.</Empty>
    </>
  );
  return (
    <QueryView query={device} loading="Loading the device" error="Could not load the device" notFound={notFound}>
      {(data) => <DeviceView device={data} />}
    </QueryView>
  );
}
