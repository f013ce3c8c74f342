// The record shapes of the demo traffic: records as the forwarders and agents send them (nginx and
// Apache access logs, syslog, application logs, the generic endpoint shape, Sysmon, Windows event
// logs through Winlogbeat, Kubernetes audit, auditd), in the shapes the normaliser recognises (as in test/fixtures/rule-pack/records.ts),
// on a handful of named hosts.

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = Record<string, Json>;

export const iso = (time: number): string => new Date(time).toISOString();
const sysmonTime = (time: number): string => iso(time).replace('T', ' ').replace('Z', '');

export const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
export const BROWSERS = [
  CHROME,
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
];
export const WORKSTATION = 'WS-FIN-07';
export const K8S_NODE = 'k8s-node-1';
/** The hosts' public addresses (forwarders add them as host_ip), so devices show a location. */
const PUBLIC_ADDRESSES: Record<string, string> = {
  'web-01': '81.2.69.142',
  'web-02': '81.2.69.160',
  [K8S_NODE]: '3.120.1.1',
};
const hostAddress = (host: string): JsonObject => (PUBLIC_ADDRESSES[host] ? { host_ip: PUBLIC_ADDRESSES[host] } : {});

export function nginx(
  time: number,
  host: string,
  fields: { client: string; request: string; status?: string; agent?: string; referer?: string; bytes?: number },
): JsonObject {
  return {
    timestamp: iso(time),
    source: 'nginx',
    hostname: host,
    ...hostAddress(host),
    remote_addr: fields.client,
    remote_user: '-',
    request: fields.request,
    status: fields.status ?? '200',
    body_bytes_sent: fields.bytes ?? 5120,
    request_time: 0.042,
    http_referer: fields.referer ?? '-',
    http_user_agent: fields.agent ?? CHROME,
    http_x_forwarded_for: '-',
    upstream_addr: '10.0.1.12:8080',
    upstream_status: fields.status ?? '200',
  };
}

export function syslog(
  time: number,
  host: string,
  program: string,
  message: string,
  facility = 'authpriv',
): JsonObject {
  return { timestamp: iso(time), hostname: host, facility, severity: 'info', program, message };
}

export function application(
  time: number,
  fields: { logger: string; message: string; level?: string; status?: string | number; host?: string },
): JsonObject {
  return {
    timestamp: iso(time),
    hostname: fields.host ?? 'web-02',
    level: fields.level ?? 'INFO',
    logger: fields.logger,
    message: fields.message,
    request_id: `req-${time.toString(36)}`,
    user_id: null,
    status: fields.status ?? 'ok',
    duration_ms: 87,
  };
}

interface ProcessFields {
  user: string;
  name: string;
  executable: string;
  command: string;
  parent?: { name: string; executable: string; command: string };
}

export function linuxProcess(time: number, host: string, fields: ProcessFields): JsonObject {
  const parent = fields.parent ?? { name: 'bash', executable: '/bin/bash', command: 'bash' };
  return {
    type: 'process',
    timestamp: iso(time),
    host,
    ...hostAddress(host),
    endpoint_id: `agent-${host}`,
    user: fields.user,
    os: 'linux',
    process: {
      name: fields.name,
      pid: 20_000 + (time % 9_000),
      executable: fields.executable,
      command_line: fields.command,
      working_directory: '/',
    },
    parent: {
      name: parent.name,
      pid: 1_000 + (time % 900),
      executable: parent.executable,
      command_line: parent.command,
    },
  };
}

export function linuxConnection(
  time: number,
  host: string,
  fields: {
    user: string;
    name: string;
    executable: string;
    ip: string;
    port: number;
    hostname?: string;
    source: string;
  },
): JsonObject {
  return {
    type: 'network',
    timestamp: iso(time),
    host,
    ...hostAddress(host),
    endpoint_id: `agent-${host}`,
    user: fields.user,
    os: 'linux',
    process: { name: fields.name, pid: 20_000 + (time % 9_000), executable: fields.executable },
    source: { ip: fields.source, port: 40_000 + (time % 20_000) },
    destination: { ip: fields.ip, port: fields.port, ...(fields.hostname ? { hostname: fields.hostname } : {}) },
    protocol: 'tcp',
    direction: 'outbound',
  };
}

export function sysmonProcess(
  time: number,
  image: string,
  command: string,
  parentImage: string,
  parentCommand: string,
): JsonObject {
  return {
    EventID: 1,
    Channel: 'Microsoft-Windows-Sysmon/Operational',
    Computer: WORKSTATION,
    UtcTime: sysmonTime(time),
    ProcessId: 4_000 + (time % 3_000),
    Image: image,
    CommandLine: command,
    CurrentDirectory: 'C:\\Users\\j.doe\\',
    User: 'CORP\\j.doe',
    IntegrityLevel: 'Medium',
    ParentProcessId: 3_100,
    ParentImage: parentImage,
    ParentCommandLine: parentCommand,
  };
}

export function sysmonConnection(time: number, image: string, ip: string, port: number): JsonObject {
  return {
    EventID: 3,
    Channel: 'Microsoft-Windows-Sysmon/Operational',
    Computer: WORKSTATION,
    UtcTime: sysmonTime(time),
    ProcessId: 6_120,
    Image: image,
    User: 'CORP\\j.doe',
    Protocol: 'tcp',
    Initiated: 'true',
    SourceIsIpv6: 'false',
    SourceIp: '10.20.0.31',
    SourcePort: String(49_152 + (time % 16_000)),
    DestinationIsIpv6: 'false',
    DestinationIp: ip,
    DestinationPort: String(port),
  };
}

export function kubeAudit(
  time: number,
  fields: {
    verb: string;
    uri: string;
    objectRef: JsonObject;
    user?: JsonObject;
    code?: number;
    requestObject?: JsonObject;
    sourceIp?: string;
    agent?: string;
  },
): JsonObject {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: `8c1b1f2e-4a61-4a0e-9d8b-${time.toString(16).padStart(12, '0').slice(-12)}`,
    stage: 'ResponseComplete',
    requestURI: fields.uri,
    verb: fields.verb,
    user: fields.user ?? { username: 'alice@example.com', groups: ['developers', 'system:authenticated'] },
    sourceIPs: [fields.sourceIp ?? '10.0.4.20'],
    userAgent: fields.agent ?? 'kubectl/v1.31.2 (linux/amd64) kubernetes/5864a46',
    objectRef: fields.objectRef,
    responseStatus: { metadata: {}, code: fields.code ?? 200 },
    ...(fields.requestObject ? { requestObject: fields.requestObject } : {}),
    requestReceivedTimestamp: iso(time),
    stageTimestamp: iso(time),
  };
}

export function auditdAuth(
  time: number,
  host: string,
  account: string,
  address: string,
  result: 'success' | 'failed',
): JsonObject {
  // auditd's USER_AUTH with its msg='…' fields lifted to keys; `node` names the host (enriched format).
  return {
    type: 'USER_AUTH',
    msg: `audit(${(time / 1000).toFixed(3)}:${8_000 + (time % 1_000)}):`,
    node: host,
    pid: 4242,
    uid: 0,
    auid: 4294967295,
    ses: 4294967295,
    subj: 'unconfined',
    op: 'PAM:authentication',
    grantors: result === 'success' ? 'pam_unix' : '?',
    acct: account,
    exe: '/usr/sbin/sshd',
    addr: address,
    terminal: 'ssh',
    res: result,
  };
}

/** A Windows event as Winlogbeat 8 ships it: the event data under `winlog.event_data`, the id as text. */
export function winlogbeatEvent(
  time: number,
  host: string,
  event: { channel: string; provider: string; id: number; message: string; data: JsonObject },
): JsonObject {
  return {
    '@timestamp': iso(time),
    agent: { id: `winlogbeat-${host.toLowerCase()}`, type: 'winlogbeat', version: '8.11.1' },
    event: { code: String(event.id), kind: 'event', provider: event.provider, created: iso(time) },
    host: { name: host.toLowerCase() },
    log: { level: 'information' },
    message: event.message,
    winlog: {
      api: 'wineventlog',
      channel: event.channel,
      computer_name: host,
      event_id: String(event.id),
      provider_name: event.provider,
      record_id: 100_000 + (time % 900_000),
      event_data: event.data,
    },
  };
}
