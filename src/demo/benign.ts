// Benign demo traffic: weighted sources (web servers, SSH and cron, application logs, workstation
// and server processes and connections, the Kubernetes control plane), each a function of time
// and the random stream.
import { between, pick, type Random } from '../core/random.js';
import {
  application,
  auditdAuth,
  BROWSERS,
  iso,
  K8S_NODE,
  kubeAudit,
  linuxConnection,
  linuxProcess,
  nginx,
  sysmonConnection,
  sysmonProcess,
  syslog,
  type JsonObject,
} from './records.js';

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

type BenignSource = [weight: number, build: (time: number, random: Random) => JsonObject];

/** Never empty: the first source is also the fallback when rounding leaves the roll unspent. */
const BENIGN: [BenignSource, ...BenignSource[]] = [
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

export function benign(time: number, random: Random): JsonObject {
  let roll = random() * BENIGN_TOTAL;
  for (const [weight, build] of BENIGN) {
    roll -= weight;
    if (roll < 0) return build(time, random);
  }
  return BENIGN[0][1](time, random);
}
