// The common record families (web access, syslog, application), Kubernetes audit,
// orchestrator-enriched records and unknown records: family, logsources, taxonomy fields,
// keyword text and host, as the rule pack relies on them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NormalisedEvent } from './event.js';
import { createNormaliser, loadPipeline } from './index.js';

const normaliser = createNormaliser(loadPipeline());
const RECEIVED = Date.parse('2026-11-22T10:15:01Z');

function normalise(record: Record<string, unknown>, eventTime = RECEIVED - 1000): NormalisedEvent {
  return normaliser.normalise({
    seq: 7,
    tenantId: 2,
    receivedAt: RECEIVED,
    eventTime,
    record: JSON.stringify(record),
    meta: null,
  });
}

function accessRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    timestamp: '2026-11-22T10:15:00Z',
    remote_addr: '203.0.113.50',
    remote_user: '-',
    request: "GET /search.php?q=1'%20UNION%20SELECT%20password%20FROM%20users--&page=2 HTTP/1.1",
    status: '200',
    body_bytes_sent: 5120,
    request_time: 0.042,
    http_referer: 'https://shop.example.com/',
    http_user_agent: 'sqlmap/1.8.6#stable (https://sqlmap.org)',
    http_x_forwarded_for: '198.51.100.23',
    upstream_addr: '10.0.1.12:8080',
    upstream_response_time: '0.040',
    upstream_status: '200',
    ...overrides,
  };
}

function syslogRecord(
  program: string,
  message: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    timestamp: '2026-11-22T10:15:00Z',
    hostname: 'bastion.prod.example.internal',
    facility: 'daemon',
    severity: 'info',
    program,
    message,
    ...overrides,
  };
}

function appRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    timestamp: '2026-11-22T10:15:00Z',
    level: 'WARN',
    logger: 'com.example.auth.LoginController',
    message: 'login failed for user mallory@example.com: invalid credentials (attempt 7 of 10)',
    request_id: '6f1c2a9e-0b1d-4c3e-a1f2-9d8e7c6b5a40',
    user_id: null,
    status: 'denied',
    duration_ms: 87,
    ...overrides,
  };
}

test('nginx access record with a query: webserver taxonomy split from the request line', () => {
  const event = normalise(accessRecord({ source: 'nginx' }));
  assert.equal(event.family, 'webserver');
  assert.deepEqual(event.logsources, [{ category: 'webserver' }, { category: 'webserver', product: 'nginx' }]);
  const f = event.fields;
  assert.equal(f['c-ip'], '203.0.113.50');
  assert.equal(f['cs-username'], '-');
  assert.equal(f['cs-method'], 'GET');
  assert.equal(f['cs-uri-stem'], '/search.php');
  assert.equal(f['cs-uri-query'], "q=1'%20UNION%20SELECT%20password%20FROM%20users--&page=2");
  assert.equal(f['cs-uri'], "/search.php?q=1'%20UNION%20SELECT%20password%20FROM%20users--&page=2");
  assert.equal(f['cs-version'], 'HTTP/1.1');
  assert.equal(f['sc-status'], 200);
  assert.equal(f['sc-bytes'], 5120);
  assert.equal(f['cs-referer'], 'https://shop.example.com/');
  assert.equal(f['cs-user-agent'], 'sqlmap/1.8.6#stable (https://sqlmap.org)');
  assert.equal(f['c-useragent'], f['cs-user-agent']);
  assert.equal(f['time-taken'], 0.042);
  assert.equal(f['c-forwarded-for'], '198.51.100.23');
  assert.equal(f.status, '200', 'the record field stays as given');
  assert.equal(
    event.keywords,
    [accessRecord().request, 'sqlmap/1.8.6#stable (https://sqlmap.org)', 'https://shop.example.com/'].join('\n'),
  );
  assert.equal(event.time, RECEIVED - 1000);
  assert.equal(event.process, undefined);
});

test('web access variants: no source → category only; no query → no cs-uri-query; ECS and Apache-style fields', () => {
  const plain = normalise(accessRecord({ request: 'POST /wp-login.php HTTP/2.0', http_referer: '-' }));
  assert.deepEqual(plain.logsources, [{ category: 'webserver' }]);
  assert.equal(plain.fields['cs-uri-stem'], '/wp-login.php');
  assert.equal(plain.fields['cs-uri-query'], undefined);
  assert.equal(
    plain.keywords,
    'POST /wp-login.php HTTP/2.0\nsqlmap/1.8.6#stable (https://sqlmap.org)',
    'a "-" referer is no keyword text',
  );

  const ecs = normalise({
    '@timestamp': '2026-11-22T10:15:00Z',
    source: { ip: '203.0.113.9' },
    http: { request: { method: 'GET' }, response: { status_code: 404 }, version: '1.1' },
    url: { original: '/cgi-bin/test.cgi?cmd=id' },
    user_agent: { original: 'curl/8.5.0' },
    event: { module: 'apache' },
  });
  assert.equal(ecs.family, 'webserver');
  assert.equal(ecs.fields['c-ip'], '203.0.113.9');
  assert.equal(ecs.fields['cs-uri-stem'], '/cgi-bin/test.cgi');
  assert.equal(ecs.fields['cs-uri-query'], 'cmd=id');
  assert.equal(ecs.fields['sc-status'], 404);
  assert.equal(ecs.fields['cs-user-agent'], 'curl/8.5.0');
  assert.equal(ecs.keywords, 'GET /cgi-bin/test.cgi?cmd=id 1.1\ncurl/8.5.0');

  const apache = normalise({
    server: 'apache2',
    request: 'GET /index.html HTTP/1.0',
    remote_host: '198.51.100.4',
    status: 301,
  });
  assert.deepEqual(apache.logsources, [{ category: 'webserver' }, { category: 'webserver', product: 'apache' }]);
});

test('a record that already uses taxonomy names keeps its own values', () => {
  const event = normalise({
    'cs-method': 'GET',
    'cs-uri-stem': '/owa/auth.owa',
    'cs-uri-query': '-',
    'c-ip': '203.0.113.5',
    'sc-status': '500',
    source: 'iis',
  });
  assert.equal(event.family, 'webserver');
  assert.equal(event.fields['cs-uri-stem'], '/owa/auth.owa');
  assert.equal(event.fields['sc-status'], 500);
});

test('syslog sshd: linux + syslog + sshd + auth logsources, message keywords, hostname host', () => {
  const message = 'Failed password for root from 203.0.113.50 port 52113 ssh2';
  const event = normalise(syslogRecord('sshd', message));
  assert.equal(event.family, 'syslog');
  assert.deepEqual(event.logsources, [
    { product: 'linux' },
    { product: 'linux', service: 'syslog' },
    { product: 'linux', service: 'sshd' },
    { product: 'linux', service: 'auth' },
  ]);
  assert.equal(event.keywords, message);
  assert.equal(event.host, 'bastion.prod.example.internal');
  assert.equal(event.fields.program, 'sshd');
});

test('syslog sudo and useradd: their services; facility auth adds auth to any program; variants are mapped', () => {
  const sudo = normalise(syslogRecord('sudo', 'deploy : TTY=pts/0 ; PWD=/home/deploy ; USER=root ; COMMAND=/bin/bash'));
  assert.deepEqual(
    sudo.logsources.map((source) => source.service),
    [undefined, 'syslog', 'sudo', 'auth'],
  );
  const useradd = normalise(
    syslogRecord('useradd[4242]', 'new user: name=backdoor, UID=0, GID=0, home=/root, shell=/bin/bash'),
  );
  assert.deepEqual(
    useradd.logsources.map((source) => source.service),
    [undefined, 'syslog', 'auth'],
  );
  const pam = normalise(syslogRecord('polkitd', 'Registered Authentication Agent', { facility: 'authpriv' }));
  assert.deepEqual(
    pam.logsources.map((source) => source.service),
    [undefined, 'syslog', 'auth'],
  );
  const cron = normalise(syslogRecord('CRON', '(root) CMD (/usr/local/bin/backup.sh)'));
  assert.deepEqual(
    cron.logsources.map((source) => source.service),
    [undefined, 'syslog', 'cron'],
  );

  const variant = normalise({
    host: 'mail-gw',
    ident: 'sshd',
    msg: 'Accepted publickey for alice from 198.51.100.2 port 50022 ssh2',
  });
  assert.equal(variant.family, 'syslog');
  assert.equal(variant.fields.program, 'sshd');
  assert.equal(variant.fields.message, 'Accepted publickey for alice from 198.51.100.2 port 50022 ssh2');
  assert.equal(variant.fields.hostname, 'mail-gw');
  assert.equal(variant.host, 'mail-gw');
  assert.equal(variant.logsources[2]?.service, 'sshd');
});

test('application record: category application, product from source, message keywords', () => {
  const event = normalise(appRecord());
  assert.equal(event.family, 'application');
  assert.deepEqual(event.logsources, [{ category: 'application' }]);
  assert.equal(event.keywords, appRecord().message);
  assert.equal(event.fields.user_id, null);
  assert.equal(event.host, null);
  const django = normalise(appRecord({ source: 'django' }));
  assert.deepEqual(django.logsources, [{ category: 'application' }, { category: 'application', product: 'django' }]);
});

function k8sAudit(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: '0d2f7d1e-4a3b-4c5d-9e8f-1a2b3c4d5e6f',
    stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/payments/pods/api-7f9c/exec?command=sh&container=api&stdin=true&tty=true',
    verb: 'create',
    user: { username: 'system:serviceaccount:ci:deployer', groups: ['system:serviceaccounts', 'system:authenticated'] },
    sourceIPs: ['10.0.4.17'],
    userAgent: 'kubectl/v1.31.0 (linux/amd64)',
    objectRef: { resource: 'pods', namespace: 'payments', name: 'api-7f9c', apiVersion: 'v1', subresource: 'exec' },
    responseStatus: { metadata: {}, code: 101 },
    requestReceivedTimestamp: '2026-11-22T10:15:00.000000Z',
    ...overrides,
  };
}

test('Kubernetes audit: exec into a pod, fields flattened with dotted names', () => {
  const event = normalise(k8sAudit());
  assert.equal(event.family, 'kubernetes_audit');
  assert.deepEqual(event.logsources, [
    { product: 'kubernetes' },
    { product: 'kubernetes', service: 'audit' },
    { category: 'application', product: 'kubernetes', service: 'audit' },
  ]);
  assert.equal(event.fields.verb, 'create');
  assert.equal(event.fields['objectRef.resource'], 'pods');
  assert.equal(event.fields['objectRef.subresource'], 'exec');
  assert.equal(event.fields['objectRef.namespace'], 'payments');
  assert.equal(event.fields['user.username'], 'system:serviceaccount:ci:deployer');
  assert.deepEqual(event.fields['user.groups'], ['system:serviceaccounts', 'system:authenticated']);
  assert.equal(event.keywords, k8sAudit().requestURI);
});

test('Kubernetes audit: a privileged container in an array of objects is found by its dotted path', () => {
  const event = normalise(
    k8sAudit({
      verb: 'create',
      requestURI: '/api/v1/namespaces/default/pods',
      objectRef: { resource: 'pods', namespace: 'default' },
      requestObject: {
        kind: 'Pod',
        spec: {
          containers: [
            { name: 'a', image: 'nginx' },
            { name: 'b', image: 'busybox', securityContext: { privileged: true } },
          ],
        },
      },
    }),
  );
  assert.deepEqual(event.fields['requestObject.spec.containers.securityContext.privileged'], [true]);
  assert.deepEqual(event.fields['requestObject.spec.containers.image'], ['nginx', 'busybox']);
});

test('orchestrator-enriched nginx line: still webserver, plus kubernetes/container; the pod is the host', () => {
  const event = normalise(
    accessRecord({
      cluster_name: 'prod-eu-1',
      environment: 'production',
      kubernetes_pod_name: 'ingress-nginx-controller-7d9f8-abcde',
      kubernetes_namespace: 'ingress-nginx',
    }),
  );
  assert.equal(event.family, 'webserver');
  assert.deepEqual(event.logsources, [{ category: 'webserver' }, { product: 'kubernetes', service: 'container' }]);
  assert.equal(event.host, 'ingress-nginx-controller-7d9f8-abcde');
  assert.equal(event.fields['cs-uri-stem'], '/search.php');

  const fluentBit = normalise(
    appRecord({
      hostname: 'node-3',
      kubernetes: { pod_name: 'api-5c6d7', namespace_name: 'shop', labels: { app: 'api' } },
    }),
  );
  assert.equal(fluentBit.family, 'application');
  assert.deepEqual(fluentBit.logsources, [
    { category: 'application' },
    { product: 'kubernetes', service: 'container' },
  ]);
  assert.equal(fluentBit.host, 'node-3', 'a host field wins over the pod');
  assert.equal(fluentBit.fields['kubernetes.labels.app'], 'api');
});

test('unknown record: other, no logsources, fields flattened, message keywords; aliases apply to every event', () => {
  const event = normalise({
    event: 'firewall',
    msg: 'drop 203.0.113.50 → 10.0.0.4:22',
    src_ip: '203.0.113.50',
    dst_port: 22,
    rule: { id: 7 },
  });
  assert.equal(event.family, 'other');
  assert.deepEqual(event.logsources, []);
  assert.equal(event.keywords, 'drop 203.0.113.50 → 10.0.0.4:22');
  assert.equal(event.fields['rule.id'], 7);
  assert.equal(event.fields.SourceIp, '203.0.113.50');
  assert.equal(event.fields.DestinationPort, 22);
  assert.equal(event.host, null);
});

test('time is the stored event time, else the receive time; a record that is not an object is an error', () => {
  assert.equal(normalise(appRecord(), Number.NaN).time, RECEIVED);
  assert.throws(
    () => normaliser.normalise({ seq: 9, tenantId: 1, receivedAt: 1, eventTime: 1, record: '[1,2]', meta: null }),
    /record 9 is not a JSON object/,
  );
});
