// Which host a record's device is: the event's host, except for web access records, whose
// `host` is the virtual host the client asked for (an attacker picks it), not the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createNormaliser, loadPipeline } from '../telemetry/normalise/index.js';
import { deviceHostOf, SightingCollector } from './device-sightings.js';

const normaliser = createNormaliser(loadPipeline());
const event = (record: Record<string, unknown>) =>
  normaliser.normalise({
    seq: 1,
    tenantId: 7,
    receivedAt: 1_000,
    eventTime: 1_000,
    record: JSON.stringify(record),
    meta: null,
  });
const web = {
  remote_addr: '198.51.100.7',
  request: "GET /?id=1'%20OR%201=1-- HTTP/1.1",
  status: '200',
  http_user_agent: 'sqlmap/1.8',
};

test('a web record names its device only through an explicit host name field', () => {
  const vhost = event({ ...web, host: 'attacker-1.invalid' });
  assert.equal(vhost.family, 'webserver');
  assert.equal(deviceHostOf(vhost), null, 'the requested virtual host is not a device');
  assert.equal(deviceHostOf(event({ ...web, host: 'attacker-1.invalid', hostname: 'web-01' })), 'web-01');
});

test('endpoint and system records name their host; over-long names name no device', () => {
  assert.equal(deviceHostOf(event({ type: 'process', host: 'db-01', process: { name: 'bash', pid: 1 } })), 'db-01');
  assert.equal(
    deviceHostOf(event({ hostname: 'db-02', program: 'sshd', message: 'Accepted publickey for root' })),
    'db-02',
  );
  assert.equal(deviceHostOf(event({ hostname: 'x'.repeat(254), program: 'sshd', message: 'hi' })), null);
});

test('sightings: one per device and tenant, newest values win, own addresses only', () => {
  const collector = new SightingCollector();
  collector.add(
    event({
      type: 'network',
      host: 'WEB-01',
      timestamp: '2026-11-20T10:00:00Z',
      user: 'old',
      direction: 'outbound',
      protocol: 'udp',
      process: { name: 'dig', pid: 9, executable: '/usr/bin/dig' },
      source: { ip: '81.2.69.142', port: 5 },
      destination: { ip: '8.8.8.8', port: 53 },
    }),
  );
  collector.add(
    event({
      type: 'process',
      host: 'web-01',
      user: 'www-data',
      host_ip: '10.0.1.12',
      process: { name: 'nginx', pid: 2 },
    }),
  );
  const [sighting, ...rest] = collector.take();
  assert.equal(rest.length, 0, 'both spellings are one device');
  assert.equal(sighting?.hostKey, 'web-01');
  assert.deepEqual(
    [...sighting.addresses.keys()].sort(),
    ['10.0.1.12', '81.2.69.142'],
    'the remote 8.8.8.8 is not the device',
  );
  assert.deepEqual(collector.take(), [], 'take() empties the collector');
});
