// bench:timeliness's records: the mix a customer's forwarders send (web access logs, syslog,
// Windows Sysmon events, AWS CloudTrail), written from each vendor's documented fields with
// everyday values that fire no rule, and the marker records that must fire one. Every record
// is about 300 to 700 bytes; the marker carries a token of its own for the full-text search.
import { between as int, hex, ipv4, pick, type Random } from '../../src/core/random.js';

const WEB_HOSTS = ['web-01', 'web-02', 'web-03', 'shop-edge-1', 'shop-edge-2'] as const;
const PAGES = [
  '/',
  '/products/{id}',
  '/products/{id}/reviews?page={n}',
  '/cart',
  '/api/v1/orders/{id}',
  '/api/v1/catalogue?category=garden&sort=price',
  '/static/js/app.{hex}.js',
  '/static/css/site.{hex}.css',
  '/images/products/{id}.webp',
  '/account/orders',
  '/search?q=blue+{id}',
] as const;
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
] as const;
const STATUSES = ['200', '200', '200', '200', '200', '304', '301', '404', '201'] as const;

const page = (r: Random): string =>
  pick(r, PAGES)
    .replace('{id}', String(int(r, 1000, 99999)))
    .replace('{n}', String(int(r, 1, 9)))
    .replace('{hex}', hex(r, 8));

/** nginx's access log as JSON (log_format escape=json with the usual variables). */
function web(r: Random, now: string, request?: string, host?: string): Record<string, unknown> {
  return {
    timestamp: now,
    source: 'nginx',
    hostname: host ?? pick(r, WEB_HOSTS),
    remote_addr: ipv4(r),
    remote_user: '-',
    request: request ?? `GET ${page(r)} HTTP/1.1`,
    status: pick(r, STATUSES),
    body_bytes_sent: int(r, 200, 90_000),
    request_time: Number((r() * 0.3).toFixed(3)),
    http_referer: pick(r, ['-', 'https://www.example.com/', 'https://shop.example.com/cart']),
    http_user_agent: pick(r, AGENTS),
    upstream_response_time: Number((r() * 0.25).toFixed(3)),
    request_id: hex(r, 32),
  };
}

const SYSLOG: readonly ((r: Random) => [string, string])[] = [
  (r) => ['CRON', `(root) CMD (/usr/local/bin/rotate-logs --keep ${int(r, 3, 14)} >/dev/null 2>&1)`],
  (r) => ['systemd', `Started Session ${int(r, 100, 99999)} of User deploy.`],
  (r) => ['systemd', `logrotate.service: Succeeded. Consumed ${(r() * 2).toFixed(3)}s CPU time.`],
  (r) => ['chronyd', `Selected source ${ipv4(r)} (ntp.example.net)`],
  (r) => [
    'postfix/smtp',
    `${hex(r, 10).toUpperCase()}: to=<orders@example.com>, relay=mx.example.com[${ipv4(r)}]:25, delay=0.${int(r, 10, 99)}, status=sent (250 2.0.0 Ok)`,
  ],
  (r) => ['kernel', `[${int(r, 1000, 999999)}.${int(r, 100000, 999999)}] eth0: renamed from veth${hex(r, 7)}`],
];

/** rsyslog's JSON template (RFC 5424 fields). */
function syslog(r: Random, now: string): Record<string, unknown> {
  const [program, message] = pick(r, SYSLOG)(r);
  return {
    timestamp: now,
    hostname: pick(r, ['app-01', 'app-02', 'db-primary', 'bastion', 'mail-gw']),
    facility: pick(r, ['cron', 'daemon', 'mail', 'kern', 'syslog']),
    severity: pick(r, ['info', 'info', 'notice']),
    program,
    pid: int(r, 100, 65000),
    message,
  };
}

const PROCESSES = [
  ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe', '"chrome.exe" --type=renderer --lang=en-GB'],
  ['C:\\Windows\\System32\\svchost.exe', 'C:\\Windows\\system32\\svchost.exe -k netsvcs -p -s Schedule'],
  ['C:\\Program Files\\Microsoft Office\\root\\Office16\\OUTLOOK.EXE', '"OUTLOOK.EXE" /recycle'],
  ['C:\\Windows\\System32\\conhost.exe', '\\??\\C:\\Windows\\system32\\conhost.exe 0xffffffff -ForceV1'],
  [
    'C:\\Windows\\System32\\backgroundTaskHost.exe',
    '"backgroundTaskHost.exe" -ServerName:App.AppXmtcan0h2tfbfy7k9kmjg7zr3i1x6mp2e.mca',
  ],
] as const;

/** Sysmon event 1 (process creation) as NXLog's im_msvistalog writes it. */
function sysmon(r: Random, now: string): Record<string, unknown> {
  const [image, commandLine] = pick(r, PROCESSES);
  return {
    EventID: 1,
    Channel: 'Microsoft-Windows-Sysmon/Operational',
    ProviderName: 'Microsoft-Windows-Sysmon',
    Computer: `ws-${int(r, 100, 400)}.corp.example.com`,
    UtcTime: now,
    ProcessGuid: `{${hex(r, 8)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 12)}}`,
    ProcessId: int(r, 1000, 30000),
    Image: image,
    CommandLine: commandLine,
    CurrentDirectory: 'C:\\Windows\\system32\\',
    User: `CORP\\${pick(r, ['alice', 'bob', 'carol', 'dave'])}`,
    IntegrityLevel: 'Medium',
    Hashes: `SHA256=${hex(r, 64).toUpperCase()}`,
    ParentImage: 'C:\\Windows\\explorer.exe',
    ParentCommandLine: 'C:\\Windows\\Explorer.EXE',
  };
}

/** A CloudTrail record of an everyday read call. */
function cloudTrail(r: Random, now: string): Record<string, unknown> {
  const [source, name] = pick(r, [
    ['ec2.amazonaws.com', 'DescribeInstances'],
    ['s3.amazonaws.com', 'GetObject'],
    ['sts.amazonaws.com', 'GetCallerIdentity'],
    ['logs.amazonaws.com', 'PutLogEvents'],
  ] as const);
  return {
    eventVersion: '1.09',
    userIdentity: {
      type: 'AssumedRole',
      arn: `arn:aws:sts::123456789012:assumed-role/app-${pick(r, ['orders', 'billing'])}/i-${hex(r, 17)}`,
      accountId: '123456789012',
    },
    eventTime: now.replace(/\.\d+Z$/, 'Z'),
    eventSource: source,
    eventName: name,
    awsRegion: pick(r, ['eu-west-1', 'eu-central-1']),
    sourceIPAddress: ipv4(r),
    userAgent: 'aws-sdk-go-v2/1.30.3 os/linux lang/go#1.22.5',
    requestID: hex(r, 32),
    eventID: `${hex(r, 8)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 12)}`,
    readOnly: true,
    eventType: 'AwsApiCall',
    recipientAccountId: '123456789012',
  };
}

/** One benign record: web 40 %, syslog 25 %, Sysmon 20 %, CloudTrail 15 %. */
export function mixRecord(r: Random, now: string): Record<string, unknown> {
  const roll = r();
  if (roll < 0.4) return web(r, now);
  if (roll < 0.65) return syslog(r, now);
  if (roll < 0.85) return sysmon(r, now);
  return cloudTrail(r, now);
}

/** The SQL injection rule's id: every marker fires it. */
export const MARKER_RULE_ID = 'c9613158-8ba1-439e-b83b-16cae33d25cd';

/** A web request carrying a UNION-based SQL injection, on a host of its own, with `token`. */
export function markerRecord(r: Random, token: string, host: string): Record<string, unknown> {
  const request = `GET /item?id=1'%20UNION%20SELECT%20password%20FROM%20users--&trace=${token} HTTP/1.1`;
  return web(r, new Date().toISOString(), request, host);
}
