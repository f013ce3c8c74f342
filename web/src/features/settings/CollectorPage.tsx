// Settings › Collector: the tenant's collector address, what it received over the last 24 hours
// and from whom (with what it refused, and a test record), the records no parser recognised, and
// copy-ready forwarder configurations filled in with that address (docs/collector.md, "Forwarder
// configuration"), with the ingest keys forwarders send when the tenant requires one.
import { useSession } from '../../app/session';
import { CopyButton } from '../../components/CopyButton';
import { QueryView } from '../../components/QueryView';
import { Empty, Notice, PageHeader, Panel } from '../../components/ui';
import { collectorTarget } from '../../../../src/collector/forwarders/forwarder-configs.js';
import { ForwarderConfigs } from './ForwarderConfigs';
import { ReceivedChart } from './ReceivedChart';
import { CollectorDiagnostics } from './CollectorDiagnostics';
import { UnrecognisedRecords } from './UnrecognisedRecords';
import { IngestKeysPanel, useIngestKeyPolicy } from './IngestKeysPanel';
import { IngestLimitsPanel } from './IngestLimitsPanel';
import { useTenant } from './tenant-queries';
import './settings.css';

export default function CollectorPage() {
  const tenant = useTenant();
  return (
    <>
      <PageHeader
        trail={['Settings']}
        title="Collector"
        subtitle="Where your log sources and forwarders send records, and what arrived."
      />
      <QueryView query={tenant} loading="Loading the collector" error="Could not load the collector">
        {(data) => <CollectorSettings url={data.collector_url} />}
      </QueryView>
    </>
  );
}

function CollectorSettings({ url }: { url: string }) {
  const { can } = useSession();
  const target = collectorTarget(url);
  const policy = useIngestKeyPolicy(can('ingest_keys:read'));
  return (
    <>
      <Panel title="Collector address">
        <div className="url-row">
          <code aria-label="Collector URL">{url}</code>
          <CopyButton value={url} label="Copy URL" />
        </div>
        <p className="muted">
          Send records with <code>POST {target.sinkUrl}</code> and <code>Content-Type: application/json</code>: one JSON
          object, or one object per line (newline-delimited JSON). Any valid JSON object is accepted;{' '}
          <code>timestamp</code>, <code>source</code>, <code>level</code> and <code>message</code> are recommended. An
          accepted request is answered <strong>201</strong>. Senders need outbound HTTPS on port 443, DNS resolution of
          the collector's name, and a stable connection.
        </p>
        {!target.tls && (
          <Notice tone="info">
            This installation's collector is plain HTTP on port {target.port} (a local setup), so the configurations
            below use that without TLS. Production collectors are HTTPS on port 443 with certificates verified.
          </Notice>
        )}
      </Panel>
      <Panel title="Records received, last 24 hours">
        {can('telemetry:read') ? (
          <ReceivedChart />
        ) : (
          <Empty>Counting records needs the permission telemetry:read, which your role does not have.</Empty>
        )}
      </Panel>
      <Panel title="What the collector heard, last 24 hours">
        {can('telemetry:read') ? (
          <CollectorDiagnostics />
        ) : (
          <Empty>Seeing the senders needs the permission telemetry:read, which your role does not have.</Empty>
        )}
      </Panel>
      <Panel title="Records no parser recognises">
        {can('telemetry:read') ? (
          <UnrecognisedRecords />
        ) : (
          <Empty>Seeing unrecognised records needs the permission telemetry:read, which your role does not have.</Empty>
        )}
      </Panel>
      {can('telemetry:read') && (
        <Panel title="Ingest limits">
          <IngestLimitsPanel />
        </Panel>
      )}
      {can('ingest_keys:read') && (
        <Panel title="Ingest keys">
          <IngestKeysPanel />
        </Panel>
      )}
      <Panel title="Forwarder configuration">
        <ForwarderConfigs collectorUrl={url} keyed={policy.data?.require_ingest_key ?? false} />
      </Panel>
      <Panel title="Good to know">
        <ul className="plain-list">
          <li>
            Send the application's own JSON object at the top level, one per line: Fluent Bit{' '}
            <code>Format json_lines</code> with <code>json_date_key false</code>, not <code>Format json</code>.
          </li>
          <li>
            An array of records (the <code>json</code> output format of a forwarder, with its date-and-record pairs) is
            refused with <strong>HTTP 500</strong> ("time could not be added to the JSON"): switch to newline-delimited
            JSON and restart the forwarder.
          </li>
          <li>
            The collector adds the receive time to every record itself, on the server; forwarders need not add a date
            key.
          </li>
          <li>
            Container-runtime wrappers (<code>{'{"log": "…", "stream", "time"}'}</code>) should be unwrapped by the
            forwarder; the collector unwraps them too, keeping the application's object.
          </li>
          <li>
            Connection timeouts mean a wrong collector address, blocked outbound port 443, a DNS failure or proxy
            settings. Invalid JSON must be fixed by the sender.
          </li>
        </ul>
      </Panel>
    </>
  );
}
