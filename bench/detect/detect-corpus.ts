// The benchmark's event corpus: benign records of every family (web, Linux, Windows in
// forwarder shapes, cloud audit trails, Kubernetes) at realistic lengths and look-alike rates,
// with ATTACK_SHARE attacks (half replaying the rule-pack fixtures, half triggering synthetic
// rules) and as many near misses.
import { fileURLToPath } from 'node:url';
import { loadFixtureFiles } from '../../test/fixtures/rule-pack/fixtures.js';
import { buildRecord, type JsonObject } from '../../test/fixtures/rule-pack/records.js';
import { between as int, hex, ipv4, pick, type Random } from '../../src/core/random.js';
import type { RecordSpec } from './detect-rules.js';
import { windowsEvent } from './detect-windows.js';
import { cloudEvent } from './detect-cloud.js';
import { at } from '../common/checked.js';
import { WEB_TARGETS, AGENTS, STATUSES, SYSLOG_LINES, APP_MESSAGES } from './detect-benign-text.js';

/** Share of attack records: half replay the rule-pack fixtures, half trigger synthetic rules. */
const ATTACK_SHARE = 0.01;
const FIXTURE_DIR = fileURLToPath(new URL('../../test/fixtures/rule-pack/', import.meta.url));

// ---- Benign records of every family, at realistic lengths and rates of look-alikes.

const WINDOWS_PROCESSES: [string, string, string][] = [
  [
    'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
    '"chrome.exe" --type=renderer --lang=en-US --renderer-client-id={n}',
    'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
  ],
  [
    'C:\\Windows\\System32\\svchost.exe',
    'C:\\Windows\\system32\\svchost.exe -k netsvcs -p -s Schedule',
    'C:\\Windows\\System32\\services.exe',
  ],
  [
    'C:\\Windows\\System32\\conhost.exe',
    '\\??\\C:\\Windows\\system32\\conhost.exe 0xffffffff -ForceV1',
    'C:\\Windows\\System32\\cmd.exe',
  ],
  [
    'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
    'powershell.exe -NoProfile -ExecutionPolicy Bypass -File C:\\Scripts\\inventory-{n}.ps1',
    'C:\\Windows\\System32\\svchost.exe',
  ],
  [
    'C:\\Windows\\System32\\cmd.exe',
    'cmd.exe /c "C:\\Program Files\\Backup\\prune.bat" {n}',
    'C:\\Windows\\System32\\taskeng.exe',
  ],
  [
    'C:\\Windows\\System32\\rundll32.exe',
    'rundll32.exe C:\\Windows\\System32\\shell32.dll,Control_RunDLL desk.cpl,,{n}',
    'C:\\Windows\\explorer.exe',
  ],
  [
    'C:\\Windows\\System32\\msiexec.exe',
    'C:\\Windows\\system32\\msiexec.exe /V /q /i C:\\Windows\\Temp\\update-{n}.msi',
    'C:\\Windows\\System32\\services.exe',
  ],
  [
    'C:\\Program Files\\Git\\cmd\\git.exe',
    'git.exe fetch --prune origin refs/heads/feature-{n}',
    'C:\\Users\\alice\\AppData\\Local\\Programs\\Microsoft VS Code\\Code.exe',
  ],
  ['C:\\Windows\\System32\\taskhostw.exe', 'taskhostw.exe Install $(Arg{n})', 'C:\\Windows\\System32\\svchost.exe'],
  [
    'C:\\Users\\alice\\AppData\\Local\\Microsoft\\Teams\\current\\Teams.exe',
    '"Teams.exe" --type=gpu-process --field-trial-handle={n}',
    'C:\\Windows\\explorer.exe',
  ],
  [
    'C:\\Windows\\System32\\SearchProtocolHost.exe',
    '"C:\\Windows\\system32\\SearchProtocolHost.exe" Global\\UsGthrFltPipeMssGthrPipe{n}',
    'C:\\Windows\\System32\\SearchIndexer.exe',
  ],
  ['C:\\Windows\\System32\\certutil.exe', 'certutil.exe -verifystore -user My {n}', 'C:\\Windows\\System32\\cmd.exe'],
];
const WINDOWS_NETWORK_IMAGES = [
  'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
  'C:\\Windows\\System32\\svchost.exe',
  'C:\\Program Files\\Microsoft Office\\root\\Office16\\OUTLOOK.EXE',
  'C:\\Users\\alice\\AppData\\Local\\Microsoft\\OneDrive\\OneDrive.exe',
];
const LINUX_PROCESSES: [string, string, string][] = [
  ['/usr/bin/python3', 'python3 /opt/app/worker.py --queue orders-{n} --concurrency 4', '/usr/lib/systemd/systemd'],
  [
    '/bin/sh',
    "sh -c '/usr/sbin/logrotate /etc/logrotate.conf --state /var/lib/logrotate/status-{n}'",
    '/usr/sbin/cron',
  ],
  ['/usr/bin/curl', 'curl -fsS http://127.0.0.1:8080/health?probe={n}', '/bin/bash'],
  ['/usr/bin/git', 'git -C /srv/deploy pull --ff-only origin release-{n}', '/bin/bash'],
  ['/usr/bin/tar', 'tar czf /backup/db-{n}.tar.gz /var/lib/postgresql/16/main', '/bin/sh'],
  ['/usr/bin/ps', 'ps -eo pid,ppid,cmd --sort=-%cpu', '/usr/bin/bash'],
  [
    '/usr/lib/postgresql/16/bin/postgres',
    'postgres: 16/main: autovacuum worker {n}',
    '/usr/lib/postgresql/16/bin/postgres',
  ],
  [
    '/usr/bin/containerd-shim-runc-v2',
    'containerd-shim-runc-v2 -namespace k8s.io -id {n} -address /run/containerd/containerd.sock',
    '/usr/bin/containerd',
  ],
];
const LINUX_NETWORK: [string, number][] = [
  ['/usr/bin/curl', 443],
  ['/usr/bin/python3', 5432],
  ['/usr/sbin/nginx', 8080],
  ['/usr/bin/redis-server', 6379],
  ['/usr/lib/systemd/systemd-resolved', 53],
];
const K8S_REQUESTS: [string, string, string][] = [
  ['get', 'leases', 'system:kube-controller-manager'],
  ['watch', 'pods', 'system:node:k8s-node-07'],
  ['list', 'configmaps', 'system:serviceaccount:kube-system:coredns'],
  ['update', 'deployments', 'system:serviceaccount:argocd:argocd-application-controller'],
  ['create', 'events', 'system:node:k8s-node-03'],
  ['patch', 'pods', 'alice@example.com'],
];

/** Fills `{n}`, `{h}`, `{ip}`, `{port}`, `{user}` with fresh random values. */
const fill = (text: string, r: Random) =>
  text.replace(/\{(n|h|ip|port|user)\}/g, (_, slot: string) =>
    slot === 'n'
      ? String(int(r, 1, 99_999))
      : slot === 'h'
        ? hex(r, 12)
        : slot === 'ip'
          ? ipv4(r)
          : slot === 'port'
            ? String(int(r, 1024, 65535))
            : pick(r, ['alice', 'bob', 'deploy', 'carol']),
  );
const winPath = (image: string) => image.slice(image.lastIndexOf('\\') + 1);

type Make = (r: Random, time: number, index: number) => JsonObject;
const spec =
  (shape: RecordSpec['shape'], make: (r: Random) => JsonObject): Make =>
  (r, time, index) =>
    buildRecord(shape, make(r), time, index);

const BENIGN: [number, Make][] = [
  // Windows channels (Sysmon, Security, PowerShell) as Winlogbeat and NXLog send them.
  [24, (r, time) => windowsEvent(r, time, WINDOWS_PROCESSES)],
  // Cloud audit trails: CloudTrail, Entra ID sign-ins, Google Cloud audit, Okta.
  [10, (r, time) => cloudEvent(r, time)],
  [
    22,
    spec('nginx', (r) => ({
      remote_addr: ipv4(r),
      request: `${pick(r, ['GET', 'GET', 'GET', 'POST', 'PUT'])} ${fill(pick(r, WEB_TARGETS), r)} HTTP/1.1`,
      status: pick(r, STATUSES),
      body_bytes_sent: int(r, 0, 250_000),
      http_user_agent: pick(r, AGENTS),
      http_referer: pick(r, ['-', 'https://shop.example.com/cart', 'https://www.google.com/']),
    })),
  ],
  [
    16,
    spec('syslog', (r) => {
      // Failed passwords happen on any server with sshd open; about 1 line in 200.
      const [program, facility, message] =
        r() < 0.005
          ? ['sshd', 'authpriv', 'Failed password for {user} from {ip} port {port} ssh2']
          : pick(r, SYSLOG_LINES);
      return {
        program,
        facility,
        message: fill(message, r),
        hostname: `${pick(r, ['web-01', 'web-02', 'db-primary', 'bastion', 'mail-gw'])}.prod.example.internal`,
      };
    }),
  ],
  [
    10,
    spec('application', (r) => ({
      level: pick(r, ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR']),
      logger: pick(r, ['com.example.orders.OrderService', 'app.billing.invoices', 'payments.gateway.stripe']),
      message: r() < 0.01 ? `login failed for user ${fill('{user}', r)}@example.com` : fill(pick(r, APP_MESSAGES), r),
      duration_ms: int(r, 1, 900),
      // A share of application logs come from pods, as a Kubernetes log forwarder enriches them.
      ...(r() < 0.3 ? { kubernetes_pod_name: `api-${hex(r, 10)}-${hex(r, 5)}`, kubernetes_namespace: 'payments' } : {}),
    })),
  ],
  [
    12,
    spec('sysmon_process', (r) => {
      const [image, commandLine, parent] = pick(r, WINDOWS_PROCESSES);
      return {
        Image: image,
        OriginalFileName: winPath(image),
        CommandLine: fill(commandLine, r),
        ParentImage: parent,
        ProcessId: int(r, 100, 30_000),
        Computer: `WS-${int(r, 1, 300)}.corp.example.com`,
      };
    }),
  ],
  [
    8,
    spec('sysmon_network', (r) => ({
      Image: pick(r, WINDOWS_NETWORK_IMAGES),
      DestinationIp: ipv4(r),
      DestinationPort: String(pick(r, [443, 443, 443, 80, 53, 8443])),
      SourcePort: String(int(r, 49152, 65535)),
    })),
  ],
  [
    8,
    spec('process', (r) => {
      const [executable, commandLine, parent] = pick(r, LINUX_PROCESSES);
      const name = executable.slice(executable.lastIndexOf('/') + 1);
      return {
        host: pick(r, ['web-01', 'web-02', 'db-primary', 'worker-3']),
        process: { name, executable, command_line: fill(commandLine, r), pid: int(r, 100, 60_000) },
        parent: { executable: parent },
      };
    }),
  ],
  [
    5,
    spec('network', (r) => {
      const [executable, port] = pick(r, LINUX_NETWORK);
      return {
        process: { name: executable.slice(executable.lastIndexOf('/') + 1), executable },
        destination: { ip: ipv4(r), port },
      };
    }),
  ],
  // Laurel's combined auditd EXECVE event.
  [
    5,
    (r, time) => {
      const [executable, commandLine] = pick(r, LINUX_PROCESSES);
      const argv = fill(commandLine, r).split(' ');
      return {
        ID: `${(time / 1000).toFixed(3)}:${int(r, 1000, 99_999)}`,
        NODE: pick(r, ['db-primary', 'web-01', 'bastion']),
        SYSCALL: {
          arch: '0xc000003e',
          syscall: 59,
          success: 'yes',
          ppid: int(r, 1, 9999),
          pid: int(r, 1, 60_000),
          uid: 1000,
          comm: argv[0] ?? 'sh',
          exe: executable,
          SYSCALL: 'execve',
          UID: 'deploy',
        },
        EXECVE: { argc: argv.length, ARGV: argv },
        CWD: { cwd: '/srv/app' },
        PARENT_INFO: { comm: 'bash', exe: '/usr/bin/bash', ppid: 1 },
      };
    },
  ],
  [
    3,
    (r, time) => {
      const [executable, commandLine] = pick(r, LINUX_PROCESSES);
      return osquery('pack_ir_process_events', time, {
        pid: String(int(r, 1, 60_000)),
        path: executable,
        cmdline: fill(commandLine, r),
        cwd: '/',
        uid: '0',
        parent: '1',
      });
    },
  ],
  [
    2,
    (r, time) =>
      osquery('pack_network_socket_events', time, {
        action: 'connect',
        pid: String(int(r, 1, 60_000)),
        path: '/usr/bin/python3',
        family: '2',
        protocol: '6',
        remote_address: ipv4(r),
        remote_port: '443',
        local_address: '10.0.1.12',
        local_port: String(int(r, 32_768, 60_999)),
      }),
  ],
  [
    8,
    spec('kubernetes_audit', (r) => {
      const [verb, resource, username] = pick(r, K8S_REQUESTS);
      const namespace = pick(r, ['default', 'payments', 'kube-system', 'monitoring']);
      return {
        verb,
        user: { username },
        requestURI: `/api/v1/namespaces/${namespace}/${resource}/${hex(r, 6)}`,
        objectRef: { resource, namespace, name: `${resource}-${hex(r, 5)}` },
      };
    }),
  ],
];

/** An osquery differential result row, as its filesystem logger writes it. */
function osquery(name: string, time: number, columns: JsonObject): JsonObject {
  return {
    name,
    hostIdentifier: 'web-02.prod.example.internal',
    unixTime: Math.floor(time / 1000),
    decorations: { hostname: 'web-02' },
    columns,
    action: 'added',
  };
}

export interface Corpus {
  records: string[];
  attacks: number;
}

export function buildCorpus(count: number, random: Random, triggers: readonly RecordSpec[]): Corpus {
  const fixtures = loadFixtureFiles(FIXTURE_DIR)
    .flatMap((file) => file.cases)
    .flatMap((entry) => (entry.kind === 'detection' ? entry : []));
  const fixtureMatches = fixtures.flatMap((entry) => entry.match);
  const nearMisses = fixtures.flatMap((entry) => entry.nomatch);
  const benignWeight = BENIGN.reduce((sum, [weight]) => sum + weight, 0);
  const now = Date.now();
  const records: string[] = [];
  let attacks = 0;
  for (let index = 0; index < count; index++) {
    const time = now - int(random, 0, 3_600_000);
    const roll = random();
    let record: JsonObject | undefined;
    if (roll < ATTACK_SHARE * 2) {
      let entry: RecordSpec;
      if (roll < ATTACK_SHARE) {
        attacks++;
        entry = triggers.length > 0 && roll < ATTACK_SHARE / 2 ? pick(random, triggers) : pick(random, fixtureMatches);
      } else entry = pick(random, nearMisses);
      record = buildRecord(entry.shape, entry.overrides, time, index);
    } else {
      let weight = random() * benignWeight;
      for (const [share, make] of BENIGN) {
        weight -= share;
        if (weight < 0) {
          record = make(random, time, index);
          break;
        }
      }
    }
    records.push(JSON.stringify(record ?? at(BENIGN, 0)[1](random, time, index)));
  }
  return { records, attacks };
}
