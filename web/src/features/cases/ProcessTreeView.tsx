// A case's process tree, per device: parent → child from the endpoint-process events, the
// processes the observations rest on marked (with links to those observations), each process's
// network connections beside it. A process known only from a child or a connection is labelled
// as inferred.
import { QueryView } from '../../components/QueryView';
import { formatDateTime } from '../../lib/format';
import { useProcessTree } from './api';
import type { ProcessNode, ProcessTree } from './types';
import { ObservationRefs, type ObservationLookup } from './ObservationRefs';

function endpoint(ip: string | null, host: string | null, port: number | null): string {
  const name = host && host !== '-' ? host : (ip ?? '?');
  return port === null ? name : `${name}:${port}`;
}

function Node({
  node,
  children,
  lookup,
}: {
  node: ProcessNode;
  children: ReadonlyMap<string | null, ProcessNode[]>;
  lookup: ObservationLookup;
}) {
  const kids = children.get(node.id) ?? [];
  const observed = node.observation_ids.length > 0;
  return (
    <li role="treeitem" aria-expanded={kids.length > 0 ? true : undefined} aria-selected={false}>
      <div
        className={`process-node${observed ? ' is-observed' : ''}${node.inferred ? ' is-inferred' : ''}`}
        data-process-id={node.id}
        data-pid={node.pid ?? undefined}
        data-observed={observed ? 'true' : 'false'}
      >
        <div className="process-line">
          <span className="process-name mono">{node.name ?? 'unknown process'}</span>
          <span className="faint">PID {node.pid ?? '?'}</span>
          {node.user && <span className="faint">{node.user}</span>}
          {node.time ? (
            <time className="faint" dateTime={node.time}>
              {formatDateTime(node.time)}
            </time>
          ) : (
            <span className="faint" title="No process-creation record: known from its children or its connections">
              inferred
            </span>
          )}
          {observed && <ObservationRefs ids={node.observation_ids} lookup={lookup} label="Observed by" />}
        </div>
        {node.command_line && <code className="process-command">{node.command_line}</code>}
        {node.connections.length > 0 && (
          <ul className="process-connections" aria-label={`Connections of ${node.name ?? 'the process'}`}>
            {node.connections.map((connection) => (
              <li
                key={connection.id}
                data-connection-id={connection.id}
                data-observed={connection.observation_ids.length > 0 ? 'true' : 'false'}
                className={connection.observation_ids.length > 0 ? 'is-observed' : undefined}
              >
                <span aria-hidden="true">→ </span>
                <span className="mono">
                  {endpoint(connection.destination_ip, connection.destination_hostname, connection.destination_port)}
                </span>{' '}
                <span className="faint">
                  {[connection.protocol, connection.direction].filter(Boolean).join(' ')} ·{' '}
                  {formatDateTime(connection.time)}
                </span>
                {connection.observation_ids.length > 0 && (
                  <ObservationRefs ids={connection.observation_ids} lookup={lookup} label="Observed by" />
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
      {kids.length > 0 && (
        <ul role="group">
          {kids.map((kid) => (
            <Node key={kid.id} node={kid} children={children} lookup={lookup} />
          ))}
        </ul>
      )}
    </li>
  );
}

function DeviceTree({ device, lookup }: { device: ProcessTree['devices'][number]; lookup: ObservationLookup }) {
  const children = new Map<string | null, ProcessNode[]>();
  for (const node of device.processes) children.set(node.parent_id, [...(children.get(node.parent_id) ?? []), node]);
  const roots = children.get(null) ?? [];
  return (
    <section className="device-tree" aria-label={`Processes on ${device.host_name}`}>
      <h3 className="device-tree-title">{device.host_name}</h3>
      {roots.length === 0 ? (
        <p className="muted">No process events on this device around the observations.</p>
      ) : (
        <ul role="tree" className="process-tree" aria-label={`Process tree of ${device.host_name}`}>
          {roots.map((node) => (
            <Node key={node.id} node={node} children={children} lookup={lookup} />
          ))}
        </ul>
      )}
      {device.truncated && <p className="faint">More processes qualified than are shown.</p>}
    </section>
  );
}

export function ProcessTreeView({ caseId, lookup }: { caseId: string; lookup: ObservationLookup }) {
  const tree = useProcessTree(caseId);
  return (
    <QueryView query={tree} loading="Loading the process tree" error="Could not load the process tree">
      {(data) =>
        data.devices.length === 0 ? (
          <p className="muted">The case names no device.</p>
        ) : (
          <div className="process-trees">
            {data.window && (
              <p className="faint small-text">
                Activity from {formatDateTime(data.window.from)} to {formatDateTime(data.window.to)}; highlighted
                processes and connections are what the observations rest on.
              </p>
            )}
            {data.devices.map((device) => (
              <DeviceTree key={device.device_id} device={device} lookup={lookup} />
            ))}
          </div>
        )
      }
    </QueryView>
  );
}
