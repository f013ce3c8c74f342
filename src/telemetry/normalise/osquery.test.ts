// osquery results: differential process_events and socket_events rows (pack query names too)
// and snapshot results, checked for family, logsources, fields, host and the normalised rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalise } from './test-normalise.js';

function osquery(name: string, columns: Record<string, unknown>): Record<string, unknown> {
  return {
    name,
    hostIdentifier: 'web-02.prod.example.internal',
    calendarTime: 'Sat Nov 22 10:15:00 2026 UTC',
    unixTime: 1795342500,
    epoch: 0,
    counter: 12,
    numerics: false,
    decorations: { host_uuid: '4C4C4544-0042-3510-8052-B4C04F4E5A32', hostname: 'web-02' },
    columns,
    action: 'added',
  };
}

test('osquery process_events (pack query name): process fields from columns, endpoint id from host_uuid', () => {
  const event = normalise(
    osquery('pack_incident-response_process_events', {
      pid: '4242',
      path: '/usr/bin/python3',
      cmdline: 'python3 -c import pty;pty.spawn("/bin/sh")',
      cwd: '/var/www',
      uid: '33',
      euid: '33',
      gid: '33',
      parent: '4200',
      auid: '4294967295',
      time: '1795342500',
      syscall: 'execve',
    }),
  );
  assert.equal(event.family, 'process');
  assert.deepEqual(event.logsources, [
    { category: 'process_creation' },
    { category: 'process_creation', product: 'linux' },
  ]);
  assert.equal(event.fields.Image, '/usr/bin/python3');
  assert.equal(event.fields.ParentProcessId, '4200');
  assert.equal(event.fields.User, '33');
  assert.equal(event.fields['columns.cwd'], '/var/www');
  assert.equal(event.host, 'web-02');
  assert.equal(event.process?.endpoint_id, '4C4C4544-0042-3510-8052-B4C04F4E5A32');
  assert.equal(event.process.process_name, 'python3');
  assert.equal(event.process.pid, 4242);
  assert.equal(event.process.parent_pid, 4200);
});

test('osquery socket_events: connect is outbound, protocol from its number, local/remote → Source/Destination', () => {
  const event = normalise(
    osquery('pack_network_socket_events', {
      action: 'connect',
      pid: '4242',
      path: '/usr/bin/python3',
      fd: '3',
      auid: '33',
      success: '1',
      family: '2',
      protocol: '6',
      local_address: '10.0.0.12',
      local_port: '40112',
      remote_address: '198.51.100.7',
      remote_port: '4444',
      time: '1795342501',
    }),
  );
  assert.equal(event.family, 'network');
  assert.deepEqual(event.logsources, [
    { category: 'network_connection' },
    { category: 'network_connection', product: 'linux' },
  ]);
  assert.equal(event.fields.Initiated, 'true');
  assert.equal(event.fields.Protocol, 'tcp');
  assert.equal(event.fields.DestinationPort, 4444);
  assert.equal(event.network?.direction, 'outbound');
  assert.equal(event.network.source_ip, '10.0.0.12');
  assert.equal(event.network.user, '33');
  const accepted = normalise(
    osquery('socket_events', {
      action: 'accept',
      pid: '1',
      path: '/usr/sbin/sshd',
      remote_address: '203.0.113.9',
      remote_port: '5000',
      local_port: '22',
      protocol: '0',
    }),
  );
  assert.equal(accepted.network?.direction, 'inbound');
  assert.equal(accepted.network.protocol, null, 'protocol 0 means unknown');
});

test('osquery snapshot results are other', () => {
  const event = normalise({
    name: 'pack_inventory_users',
    hostIdentifier: 'web-02',
    unixTime: 1795342500,
    action: 'snapshot',
    snapshot: [
      { username: 'root', uid: '0' },
      { username: 'alice', uid: '1000' },
    ],
  });
  assert.equal(event.family, 'other');
  assert.deepEqual(event.fields['snapshot.username'], ['root', 'alice']);
  assert.equal(event.host, 'web-02');
});
