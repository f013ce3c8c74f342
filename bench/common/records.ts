// Synthetic log records for the ingestion benchmark: the three record families of the seed
// document (web-server access, system log, application), with varied values so that parsing and
// full-text indexing see realistic token diversity rather than one repeated line.
import { between as int, hex, ipv4, pick, type Random } from '../../src/core/random.js';

const METHODS = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE', 'HEAD'] as const;
const PATHS = [
  '/api/v1/orders',
  '/api/v1/orders/{id}',
  '/api/v1/users/{id}/profile',
  '/login',
  '/logout',
  '/static/js/app.{hex}.js',
  '/static/css/main.{hex}.css',
  '/wp-login.php',
  '/search?q=invoice+{id}',
  '/health',
  '/api/v2/reports/{id}/export?format=csv',
  '/.env',
  '/admin/config.php',
  '/images/products/{id}.jpg',
  '/cart/checkout',
] as const;
const STATUSES = [
  '200',
  '200',
  '200',
  '200',
  '201',
  '204',
  '301',
  '302',
  '304',
  '400',
  '401',
  '403',
  '404',
  '404',
  '500',
  '502',
  '503',
] as const;
const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0',
  'curl/8.5.0',
  'python-requests/2.32.3',
  'Go-http-client/1.1',
  'sqlmap/1.8.6#stable (https://sqlmap.org)',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
] as const;
const REFERERS = [
  '-',
  '-',
  'https://www.example.com/',
  'https://shop.example.com/cart',
  'https://www.google.com/',
  'https://intranet.example.org/dashboard',
] as const;
const USERS = ['-', '-', '-', 'alice', 'bob', 'carol', 'svc-backup', 'admin'] as const;
const HOSTS = [
  'web-01',
  'web-02',
  'db-primary',
  'db-replica-1',
  'bastion',
  'mail-gw',
  'k8s-node-07',
  'vpn-edge',
] as const;
const FACILITIES = ['auth', 'authpriv', 'daemon', 'kern', 'cron', 'syslog', 'local0', 'mail'] as const;
const SEVERITIES = ['info', 'info', 'notice', 'warning', 'err', 'crit', 'debug'] as const;
const SYSLOG_EVENTS: readonly ((random: Random) => [string, string])[] = [
  (r) => [
    'sshd',
    `Failed password for ${pick(r, ['root', 'admin', 'oracle', 'ubuntu', 'git'])} from ${ipv4(r)} port ${int(r, 1024, 65535)} ssh2`,
  ],
  (r) => [
    'sshd',
    `Accepted publickey for ${pick(
      r,
      USERS.filter((u) => u !== '-'),
    )} from ${ipv4(r)} port ${int(r, 1024, 65535)} ssh2: ED25519 SHA256:${hex(r, 43)}`,
  ],
  (r) => [
    'sudo',
    `${pick(r, ['alice', 'bob', 'deploy'])} : TTY=pts/${int(r, 0, 9)} ; PWD=/home/deploy ; USER=root ; COMMAND=/usr/bin/systemctl restart ${pick(r, ['nginx', 'postgresql', 'app'])}`,
  ],
  (r) => [
    'kernel',
    `[${int(r, 1000, 999999)}.${int(r, 100000, 999999)}] UFW BLOCK IN=eth0 OUT= SRC=${ipv4(r)} DST=${ipv4(r)} LEN=${int(r, 40, 1500)} PROTO=TCP SPT=${int(r, 1024, 65535)} DPT=${pick(r, [22, 23, 3389, 445, 5432])}`,
  ],
  (r) => [
    'CRON',
    `(${pick(r, ['root', 'www-data', 'backup'])}) CMD (/usr/local/bin/${pick(r, ['rotate-logs', 'backup.sh', 'certbot renew'])} >/dev/null 2>&1)`,
  ],
  (r) => [
    'systemd',
    `${pick(r, ['nginx', 'postgresql', 'docker', 'app-worker'])}.service: Main process exited, code=exited, status=${int(r, 0, 3)}/FAILURE`,
  ],
];
const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'] as const;
const LOGGERS = [
  'com.example.orders.OrderService',
  'com.example.auth.LoginController',
  'app.billing.invoices',
  'app.http.middleware',
  'payments.gateway.stripe',
] as const;
const APP_MESSAGES: readonly ((random: Random) => string)[] = [
  (r) =>
    `order ${int(r, 100000, 999999)} created for customer ${int(r, 1000, 99999)} with ${int(r, 1, 12)} items, total ${(r() * 900).toFixed(2)} EUR`,
  (r) =>
    `login failed for user ${pick(r, ['alice', 'bob', 'mallory', 'eve'])}@example.com: invalid credentials (attempt ${int(r, 1, 9)} of 10)`,
  (r) =>
    `upstream payment provider timed out after ${int(r, 1000, 30000)} ms; retrying with idempotency key ${hex(r, 32)}`,
  (r) => `cache miss for key session:${hex(r, 24)}; loaded from database in ${int(r, 1, 80)} ms`,
  (r) => `password reset requested for account ${int(r, 1000, 99999)} from ${ipv4(r)}; token expires in 15 minutes`,
];

function timestamp(random: Random, base: number): string {
  return new Date(base - int(random, 0, 3_600_000)).toISOString();
}

function accessRecord(r: Random, base: number): Record<string, unknown> {
  const basePath = pick(r, PATHS)
    .replace('{id}', String(int(r, 1, 999999)))
    .replace('{hex}', hex(r, 8));
  const query = `${basePath.includes('?') ? '&' : '?'}utm_source=${pick(r, ['newsletter', 'google', 'partner'])}&sid=${hex(r, 24)}`;
  const path = r() < 0.8 ? basePath + query : basePath;
  const upstream = `10.0.${int(r, 0, 3)}.${int(r, 2, 60)}:${pick(r, [8080, 8081, 9000])}`;
  return {
    timestamp: timestamp(r, base),
    remote_addr: ipv4(r),
    remote_user: pick(r, USERS),
    request: `${pick(r, METHODS)} ${path} HTTP/${pick(r, ['1.1', '1.1', '2.0'])}`,
    status: pick(r, STATUSES),
    body_bytes_sent: int(r, 0, 250_000),
    request_time: Math.round(r() * 2500) / 1000,
    http_referer: pick(r, REFERERS),
    http_user_agent: pick(r, AGENTS),
    http_x_forwarded_for: r() < 0.5 ? '-' : `${ipv4(r)}, ${ipv4(r)}`,
    upstream_addr: upstream,
    upstream_response_time: (Math.round(r() * 2400) / 1000).toFixed(3),
    upstream_status: pick(r, STATUSES),
  };
}

function syslogRecord(r: Random, base: number): Record<string, unknown> {
  const [program, message] = pick(r, SYSLOG_EVENTS)(r);
  // Padding with a session id keeps syslog lines near the ~500-byte target of the other families.
  return {
    timestamp: timestamp(r, base),
    hostname: `${pick(r, HOSTS)}.prod.example.internal`,
    facility: pick(r, FACILITIES),
    severity: pick(r, SEVERITIES),
    message:
      `${message} session=${hex(r, 32)} pid=${int(r, 100, 65000)} audit_id=${hex(r, 16)} ` +
      `logname=${pick(r, ['', 'root', 'deploy'])} uid=${int(r, 0, 1001)} euid=0 tty=${pick(r, ['ssh', 'pts/0', 'cron'])} rhost=${ipv4(r)} ` +
      `node=${pick(r, HOSTS)} seq=${int(r, 1, 9_999_999)} boot_id=${hex(r, 32)} unit=${pick(r, ['ssh', 'cron', 'nginx', 'docker'])}.service`,
    program,
  };
}

function applicationRecord(r: Random, base: number): Record<string, unknown> {
  return {
    timestamp: timestamp(r, base),
    level: pick(r, LEVELS),
    logger: pick(r, LOGGERS),
    message:
      `${pick(r, APP_MESSAGES)(r)} trace=${hex(r, 32)} span=${hex(r, 16)} client=${ipv4(r)} ` +
      `route=${pick(r, ['POST /api/v1/orders', 'GET /api/v1/users/:id', 'POST /login', 'PUT /api/v1/cart'])} thread=worker-${int(r, 1, 64)} ` +
      `build=${int(r, 1, 9)}.${int(r, 0, 40)}.${int(r, 0, 9)}-${hex(r, 7)} pod=api-${hex(r, 10)}-${hex(r, 5)}`,
    request_id: `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`,
    user_id: r() < 0.2 ? null : `usr_${hex(r, 12)}`,
    status: pick(r, ['ok', 'ok', 'ok', 'error', 'retry', 'denied']),
    duration_ms: int(r, 0, 5000),
  };
}

const FAMILIES = [accessRecord, syslogRecord, applicationRecord] as const;

/** One NDJSON body of at least `targetBytes`, records of the three families interleaved. */
export function makeBody(random: Random, targetBytes: number, base = Date.now()): { body: Buffer; records: number } {
  const lines: string[] = [];
  let size = 0;
  while (size < targetBytes) {
    const line = JSON.stringify(pick(random, FAMILIES)(random, base));
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return { body: Buffer.from(`${lines.join('\n')}\n`), records: lines.length };
}
