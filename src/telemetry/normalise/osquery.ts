// osquery results as its filesystem/TLS logger writes them: differential rows (`name`,
// `hostIdentifier`, `columns`, `action`) are matched by the columns present, so a pack's
// `pack_x_process_events` is recognised like `process_events`; snapshot and batch results are `other`.
import type { LogSource } from './event.js';
import { endpointLogsources, PORT_FIELDS, productFromPath } from './endpoint.js';
import { asText, firstString, flagText, isObject, numbersWherePossible, setIfPresent, type Fields } from './fields.js';
import type { Recognised, Recogniser } from './recogniser.js';

const PROTOCOLS = new Map<string, string>([
  ['6', 'tcp'],
  ['17', 'udp'],
  ['1', 'icmp'],
  ['58', 'ipv6-icmp'],
  ['132', 'sctp'],
]);
/** Decoration values (os_version.platform and the like) that name a product. */
const PLATFORMS = new Map<string, string>([
  ['darwin', 'macos'],
  ['macos', 'macos'],
  ['windows', 'windows'],
]);
const NO_LOGSOURCES: LogSource[] = Object.freeze([]) as unknown as LogSource[];

export const osqueryRecogniser: Recogniser = {
  name: 'osquery',
  recognise(record, fields) {
    if (typeof record.name !== 'string') return undefined;
    // Every osquery result names its host and time; a stray `name` + `columns` record does not.
    if (record.hostIdentifier === undefined && record.unixTime === undefined && record.calendarTime === undefined)
      return undefined;
    const columns = record.columns;
    if (!isObject(columns)) {
      // Snapshot (`snapshot: [...]`) and batch (`diffResults: {added, removed}`) results.
      if (Array.isArray(record.snapshot) || isObject(record.diffResults)) return other(record);
      return undefined;
    }
    // A `removed` row is a row that vanished from a query's results, not a new process or socket.
    if (record.action === 'removed') return other(record);
    if (isProcess(record.name, columns)) return processEvent(record, columns, fields);
    if (isSocket(record.name, columns)) return socketEvent(record, columns, fields);
    return other(record);
  },
};

function isProcess(name: string, columns: Record<string, unknown>): boolean {
  if (name.endsWith('socket_events')) return false;
  return (
    name.endsWith('process_events') ||
    (columns.path !== undefined && columns.cmdline !== undefined && columns.pid !== undefined)
  );
}

function isSocket(name: string, columns: Record<string, unknown>): boolean {
  return name.endsWith('socket_events') || (columns.remote_address !== undefined && columns.remote_port !== undefined);
}

function processEvent(record: Record<string, unknown>, columns: Record<string, unknown>, fields: Fields): Recognised {
  setIfPresent(fields, 'Image', columns.path);
  setIfPresent(fields, 'CommandLine', columns.cmdline);
  setIfPresent(fields, 'ProcessId', columns.pid);
  setIfPresent(fields, 'ParentProcessId', columns.parent);
  setIfPresent(fields, 'User', columns.username ?? columns.uid);
  setIfPresent(fields, 'CurrentDirectory', columns.cwd);
  return {
    family: 'process',
    logsources: endpointLogsources('process_creation', product(record.name as string, columns, fields)),
    keywords: typeof columns.cmdline === 'string' ? columns.cmdline : '',
    host: host(record, fields),
    endpoint: {
      kind: 'process',
      format: 'osquery',
      endpointId: endpointId(record, fields),
      processName: nameColumn(columns),
    },
  };
}

function socketEvent(record: Record<string, unknown>, columns: Record<string, unknown>, fields: Fields): Recognised {
  setIfPresent(fields, 'Image', columns.path);
  setIfPresent(fields, 'ProcessId', columns.pid);
  setIfPresent(fields, 'User', columns.uid ?? columns.auid);
  setIfPresent(fields, 'SourceIp', columns.local_address);
  setIfPresent(fields, 'SourcePort', columns.local_port);
  setIfPresent(fields, 'DestinationIp', columns.remote_address);
  setIfPresent(fields, 'DestinationPort', columns.remote_port);
  numbersWherePossible(fields, PORT_FIELDS);
  const protocol = columns.protocol;
  if (protocol !== undefined && protocol !== null) {
    const known = PROTOCOLS.get(asText(protocol) ?? '');
    // 0 is what audit-based socket_events report when the protocol is not known.
    if (known !== undefined) fields.Protocol = known;
    else if (typeof protocol === 'string' && protocol !== '0' && protocol !== '')
      fields.Protocol = protocol.toLowerCase();
  }
  const family = asText(columns.family);
  if (family === '10') fields.DestinationIsIpv6 = 'true';
  else if (family === '2') fields.DestinationIsIpv6 = 'false';
  // connect is outgoing; accept is an incoming connection; bind says neither.
  const action = columns.action ?? columns.syscall;
  const initiated = flagText(
    action === 'connect' ? true : action === 'accept' || action === 'accept4' ? false : undefined,
  );
  if (initiated !== undefined) fields.Initiated = initiated;
  return {
    family: 'network',
    logsources: endpointLogsources('network_connection', product(record.name as string, columns, fields)),
    keywords: '',
    host: host(record, fields),
    endpoint: {
      kind: 'network',
      format: 'osquery',
      endpointId: endpointId(record, fields),
      processName: nameColumn(columns),
    },
  };
}

function other(record: Record<string, unknown>): Recognised {
  return {
    family: 'other',
    logsources: NO_LOGSOURCES,
    keywords: '',
    host: typeof record.hostIdentifier === 'string' ? record.hostIdentifier : null,
  };
}

/**
 * osquery's process and socket event tables are Linux (audit, BPF) and macOS (OpenBSM,
 * EndpointSecurity `es_`) sources; Windows has `process_etw_events`. Without a decoration or a
 * table name that says otherwise, a Windows-style path decides, else the product is linux.
 */
function product(name: string, columns: Record<string, unknown>, fields: Fields): string {
  if (name.includes('es_process') || name.includes('es_socket')) return 'macos';
  if (name.includes('_etw_')) return 'windows';
  const platform = firstString(fields, [
    'decorations.platform',
    'decorations.os',
    'decorations.os_platform',
    'decorations.platform_like',
  ]);
  if (platform !== undefined) return PLATFORMS.get(platform.toLowerCase()) ?? 'linux';
  return productFromPath(columns.path) ?? 'linux';
}

function host(record: Record<string, unknown>, fields: Fields): string | null {
  return (
    firstString(fields, ['decorations.hostname', 'decorations.host_name']) ??
    (typeof record.hostIdentifier === 'string' ? record.hostIdentifier : null)
  );
}

/** The agent's identity: the host_uuid decoration when configured, else the host identifier. */
function endpointId(record: Record<string, unknown>, fields: Fields): string | null {
  return (
    firstString(fields, ['decorations.host_uuid', 'decorations.uuid']) ??
    (typeof record.hostIdentifier === 'string' ? record.hostIdentifier : null)
  );
}

function nameColumn(columns: Record<string, unknown>): string | null {
  return typeof columns.name === 'string' ? columns.name : null;
}
