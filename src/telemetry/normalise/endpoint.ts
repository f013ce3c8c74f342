// What every endpoint format (Sysmon, auditd, osquery, the generic shape) shares once it has
// written its Sysmon-style fields: the process_creation / network_connection logsources and the
// normalised process and network rows, read back from those fields so all formats agree.
import type { EndpointProcessRow, LogSource, NetworkProcessRow } from './event.js';
import { asInt, asText, basename, type Fields } from './fields.js';

/** Sigma's network_connection rules compare ports as numbers; every format gives them so. */
export const PORT_FIELDS = ['SourcePort', 'DestinationPort'] as const;

export type EndpointFormat = 'sysmon' | 'windows_security' | 'auditd' | 'osquery' | 'generic';

/** What an endpoint format tells the normaliser beyond its fields. */
export interface EndpointInfo {
  kind: 'process' | 'network';
  format: EndpointFormat;
  endpointId: string | null;
  /** The process name when the format gives one and the image path may be missing (auditd comm). */
  processName?: string | null;
  parentName?: string | null;
}

const PRODUCTS = ['windows', 'linux', 'macos'] as const;

type Category = 'process_creation' | 'network_connection';

/** Shared, frozen logsource lists: events of one kind and product all point at the same array. */
const CACHE = new Map<string, LogSource[]>();
for (const category of ['process_creation', 'network_connection'] as const) {
  CACHE.set(category, freeze([{ category }]));
  for (const product of PRODUCTS) {
    CACHE.set(`${category}|${product}`, freeze([{ category }, { category, product }]));
    CACHE.set(
      `${category}|${product}|sysmon`,
      freeze([{ category }, { category, product }, { product, service: 'sysmon' }]),
    );
  }
}
CACHE.set(
  'process_creation|linux|auditd',
  freeze([
    { category: 'process_creation' },
    { category: 'process_creation', product: 'linux' },
    { product: 'linux', service: 'auditd' },
  ]),
);

/** [{category}, {category, product}] plus {product, service} when a service is given. */
export function endpointLogsources(category: Category, product: string | null, service?: string): LogSource[] {
  const key =
    product === null
      ? category
      : service === undefined
        ? `${category}|${product}`
        : `${category}|${product}|${service}`;
  const cached = CACHE.get(key);
  if (cached) return cached;
  // An unexpected product (the generic shape's free `os` field) is built, not cached: the cache
  // must not grow with whatever records say. (Without a product the list is always cached.)
  const built: LogSource[] = [{ category }];
  if (product !== null) built.push({ category, product });
  if (product !== null && service !== undefined) built.push({ product, service });
  return built;
}

export function freeze(logsources: LogSource[]): LogSource[] {
  for (const logsource of logsources) Object.freeze(logsource);
  return Object.freeze(logsources) as LogSource[];
}

/** The product a path's style implies: `C:\…` or `\\server\…` is Windows, `/…` is POSIX. */
export function productFromPath(path: unknown): 'windows' | 'linux' | null {
  if (typeof path !== 'string' || path === '') return null;
  if (path.charCodeAt(0) === 47 /* / */) return 'linux';
  if (path.includes('\\')) return 'windows';
  return null;
}

export function processRow(fields: Fields, info: EndpointInfo, host: string | null, time: number): EndpointProcessRow {
  const image = asText(fields.Image);
  const parentImage = asText(fields.ParentImage);
  return {
    host,
    endpoint_id: info.endpointId,
    user: asText(fields.User),
    process_name: nameOf(image) ?? info.processName ?? null,
    pid: asInt(fields.ProcessId),
    parent_process_name: nameOf(parentImage) ?? info.parentName ?? null,
    parent_pid: asInt(fields.ParentProcessId),
    executable_path: image,
    parent_executable_path: parentImage,
    command_line: asText(fields.CommandLine),
    parent_command_line: asText(fields.ParentCommandLine),
    time,
    source_format: info.format,
  };
}

export function networkRow(fields: Fields, info: EndpointInfo, host: string | null, time: number): NetworkProcessRow {
  const image = asText(fields.Image);
  const initiated = fields.Initiated;
  const protocol = asText(fields.Protocol);
  return {
    host,
    endpoint_id: info.endpointId,
    user: asText(fields.User),
    process_name: nameOf(image) ?? info.processName ?? null,
    pid: asInt(fields.ProcessId),
    executable_path: image,
    source_ip: asText(fields.SourceIp),
    source_port: asInt(fields.SourcePort),
    destination_ip: asText(fields.DestinationIp),
    destination_port: asInt(fields.DestinationPort),
    destination_hostname: asText(fields.DestinationHostname),
    protocol: protocol === null ? null : protocol.toLowerCase(),
    direction: initiated === 'true' ? 'outbound' : initiated === 'false' ? 'inbound' : null,
    time,
    source_format: info.format,
  };
}

/** The executable's file name; null for no path or a path that ends in a separator. */
function nameOf(path: string | null): string | null {
  if (path === null) return null;
  const name = basename(path);
  return name === '' ? null : name;
}
