// Network logs → family `network_log`: Zeek's JSON logs (every log, by its `_path` or its
// shape; http also as a proxy record, dns as a DNS record), Squid's native access log line,
// proxy records already in Sigma's proxy names, BIND and dnsmasq query log lines, and firewall
// records (source, destination, port and action). docs/telemetry-mapping.md has the names.
import type { LogSource } from './event.js';
import { freeze } from './endpoint.js';
import { firstString, isObject, numericIfPossible, setIfPresent, type Fields } from './fields.js';
import type { Recognised, Recogniser } from './recogniser.js';

const ZEEK_CACHE = new Map<string, LogSource[]>();
const PROXY = freeze([{ category: 'proxy' }]);
const DNS = freeze([{ category: 'dns' }]);
const FIREWALL = freeze([{ category: 'firewall' }]);
/** Zeek logs also seen as the generic categories. */
const ZEEK_CATEGORIES: Readonly<Record<string, string>> = { http: 'proxy', dns: 'dns' };
/** Zeek log names are short lower-case words; anything else in `_path` is not taken as a service. */
const ZEEK_PATH = /^[a-z0-9_]{1,32}$/;

/** Squid's native access.log: time elapsed client code/status bytes method URL user hierarchy/peer type. */
const SQUID_LINE =
  /^(\d{9,11}\.\d{3})\s+(\d+)\s+(\S+)\s+([A-Z_]+)\/(\d{3})\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)/;
/** BIND's query log: `client @0x… 192.0.2.10#53142 (example.org): query: example.org IN A +E(0)K (192.0.2.1)`. */
const BIND_QUERY = /client (?:@\S+ )?([0-9a-fA-F.:]+)#(\d+) \(([^)]*)\): (?:view \S+: )?query: (\S+) (\S+) (\S+)/;
/** dnsmasq: `query[A] example.org from 192.0.2.10`. */
const DNSMASQ_QUERY = /query\[([A-Z0-9]+)\] (\S+) from ([0-9a-fA-F.:]+)/;
const MESSAGE_FIELDS = ['message', 'log', 'MESSAGE', 'msg'];
/** Firewall actions as vendors write them (lower case). */
const FIREWALL_ACTIONS = new Set([
  'allow',
  'allowed',
  'accept',
  'accepted',
  'pass',
  'deny',
  'denied',
  'drop',
  'dropped',
  'block',
  'blocked',
  'reject',
  'rejected',
]);

export const networkLogRecogniser: Recogniser = {
  name: 'network_log',
  recognise(record, fields) {
    const zeekPath = zeekLog(record);
    if (zeekPath !== undefined) return zeek(zeekPath, fields);
    // Sigma's proxy names (c-uri, c-useragent) differ from the web-server ones (cs-uri-stem, cs-user-agent).
    if (fields['c-uri'] !== undefined || fields['c-useragent'] !== undefined)
      return { family: 'network_log', logsources: PROXY, keywords: '' };
    const message = firstString(fields, MESSAGE_FIELDS);
    if (message !== undefined) {
      const parsed = fromLine(message, fields);
      if (parsed !== undefined) return parsed;
    }
    if (isFirewall(fields)) return { family: 'network_log', logsources: FIREWALL, keywords: '' };
    return undefined;
  },
};

/** The Zeek log a record comes from: its `_path`, else guessed from fields only that log has. */
function zeekLog(record: Record<string, unknown>): string | undefined {
  const path = record._path;
  const hasConnection = typeof record.uid === 'string' && (isObject(record.id) || record['id.orig_h'] !== undefined);
  if (typeof path === 'string' && ZEEK_PATH.test(path) && (hasConnection || record.ts !== undefined)) return path;
  if (!hasConnection) {
    // x509 has no connection: its certificate fields tell it.
    return record.ts !== undefined && record['certificate.subject'] !== undefined ? 'x509' : undefined;
  }
  if (record.query !== undefined && (record.qtype_name !== undefined || record.rcode !== undefined)) return 'dns';
  if (record.method !== undefined && record.uri !== undefined) return 'http';
  if (record.endpoint !== undefined && record.operation !== undefined) return 'dce_rpc';
  if (record.request_type !== undefined && record.client !== undefined) return 'kerberos';
  if (record.security_protocol !== undefined || record.cookie !== undefined) return 'rdp';
  if (record.action !== undefined && record.path !== undefined && record.name !== undefined) return 'smb_files';
  if (record.conn_state !== undefined) return 'conn';
  return 'zeek';
}

function zeek(path: string, fields: Fields): Recognised {
  const category = ZEEK_CATEGORIES[path];
  let logsources = ZEEK_CACHE.get(path);
  if (logsources === undefined) {
    const list: LogSource[] = [{ product: 'zeek' }];
    if (path !== 'zeek') list.push({ product: 'zeek', service: path });
    if (category !== undefined) list.push({ category });
    logsources = freeze(list);
    ZEEK_CACHE.set(path, logsources);
  }
  setMissing(fields, 'src_ip', fields['id.orig_h']);
  setMissing(fields, 'src_port', fields['id.orig_p']);
  setMissing(fields, 'dst_ip', fields['id.resp_h']);
  setMissing(fields, 'dst_port', fields['id.resp_p']);
  if (path === 'http') {
    setMissing(fields, 'c-uri', fields.uri);
    setMissing(fields, 'c-useragent', fields.user_agent);
    setMissing(fields, 'cs-host', fields.host);
    setMissing(fields, 'r-dns', fields.host);
    setMissing(fields, 'cs-method', fields.method);
    setMissing(fields, 'sc-status', fields.status_code);
    setMissing(fields, 'cs-referrer', fields.referrer);
    setMissing(fields, 'cs-version', fields.version);
    splitUri(fields, fields.uri);
  } else if (path === 'dns') {
    setMissing(fields, 'answer', fields.answers);
    setMissing(fields, 'record_type', fields.qtype_name);
  }
  return { family: 'network_log', logsources, keywords: '' };
}

/** A proxy or resolver log line sent as text: Squid, BIND, dnsmasq. */
function fromLine(line: string, fields: Fields): Recognised | undefined {
  const first = line.charCodeAt(0);
  if (first >= 48 && first <= 57) {
    const squid = SQUID_LINE.exec(line);
    if (squid !== null) {
      const [, , elapsed, client, code, status, bytes, method, url, user, hierarchy, type] = squid;
      fields['c-ip'] = client ?? '';
      fields.src_ip = client ?? '';
      fields['sc-status'] = numericIfPossible(status ?? '');
      fields['sc-bytes'] = numericIfPossible(bytes ?? '');
      fields['cs-method'] = method ?? '';
      fields['c-uri'] = url ?? '';
      fields['time-taken'] = numericIfPossible(elapsed ?? '');
      fields['s-action'] = code ?? '';
      if (user !== '-') fields['cs-username'] = user ?? '';
      if (type !== '-') fields['rs-content-type'] = type ?? '';
      const peer = hierarchy?.split('/')[1];
      if (peer !== undefined && peer !== '-') fields.dst_ip = peer;
      splitUrl(fields, url ?? '');
      return { family: 'network_log', logsources: PROXY, keywords: line };
    }
  }
  if (line.includes('query: ')) {
    const bind = BIND_QUERY.exec(line);
    if (bind !== null) {
      fields.src_ip = bind[1] ?? '';
      fields.src_port = numericIfPossible(bind[2] ?? '');
      fields.query = bind[4] ?? '';
      fields.record_type = bind[6] ?? '';
      return { family: 'network_log', logsources: DNS, keywords: line };
    }
  }
  if (line.includes('query[')) {
    const dnsmasq = DNSMASQ_QUERY.exec(line);
    if (dnsmasq !== null) {
      fields.record_type = dnsmasq[1] ?? '';
      fields.query = dnsmasq[2] ?? '';
      fields.src_ip = dnsmasq[3] ?? '';
      return { family: 'network_log', logsources: DNS, keywords: line };
    }
  }
  return undefined;
}

/** A firewall record: source and destination addresses, a destination port and an action. */
function isFirewall(fields: Fields): boolean {
  const action = fields.action ?? fields['event.action'];
  if (typeof action !== 'string' || !FIREWALL_ACTIONS.has(action.toLowerCase())) return false;
  const source = fields.src_ip ?? fields['source.ip'] ?? fields.srcip;
  const destination = fields.dst_ip ?? fields['destination.ip'] ?? fields.dstip;
  if (source === undefined || destination === undefined) return false;
  setMissing(fields, 'src_ip', source);
  setMissing(fields, 'dst_ip', destination);
  setMissing(fields, 'src_port', numericIfPossible(fields['source.port'] ?? fields.srcport ?? null));
  setMissing(fields, 'dst_port', numericIfPossible(fields['destination.port'] ?? fields.dstport ?? null));
  if (typeof fields.dst_port === 'string') fields.dst_port = numericIfPossible(fields.dst_port);
  return true;
}

/** `http://host/a/b.exe?x=1` → cs-host, c-uri-stem, c-uri-query, c-uri-extension. */
function splitUrl(fields: Fields, url: string): void {
  const scheme = url.indexOf('://');
  if (scheme === -1) {
    // CONNECT host:443
    setMissing(fields, 'cs-host', url.split(':')[0]);
    return;
  }
  const pathStart = url.indexOf('/', scheme + 3);
  const authority = url.slice(scheme + 3, pathStart === -1 ? undefined : pathStart);
  setMissing(fields, 'cs-host', authority.replace(/:\d+$/, ''));
  setMissing(fields, 'r-dns', authority.replace(/:\d+$/, ''));
  splitUri(fields, pathStart === -1 ? '/' : url.slice(pathStart));
}

function splitUri(fields: Fields, uri: unknown): void {
  if (typeof uri !== 'string') return;
  const query = uri.indexOf('?');
  const stem = query === -1 ? uri : uri.slice(0, query);
  setMissing(fields, 'c-uri-stem', stem);
  if (query !== -1) setMissing(fields, 'c-uri-query', uri.slice(query + 1));
  const dot = stem.lastIndexOf('.');
  if (dot > stem.lastIndexOf('/')) setMissing(fields, 'c-uri-extension', stem.slice(dot + 1));
}

function setMissing(fields: Fields, name: string, value: unknown): void {
  if (fields[name] === undefined) setIfPresent(fields, name, value);
}
