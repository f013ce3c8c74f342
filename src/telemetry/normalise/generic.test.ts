// The generic endpoint shape (`type: process|network` with nested process, parent, source and
// destination), checked for family, logsources, Sysmon-style fields and the normalised rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_TIME, normalise } from './test-normalise.js';

function genericRecord(type: 'process' | 'network', overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type,
    timestamp: '2026-11-22T10:15:00Z',
    host: 'web-01',
    endpoint_id: 'agent-7f3a',
    os: 'linux',
    user: 'alice',
    process: {
      name: 'curl',
      pid: 123,
      executable: '/usr/bin/curl',
      command_line: 'curl -o /tmp/x http://198.51.100.7/x',
    },
    ...(type === 'process'
      ? { parent: { name: 'bash', pid: 100, executable: '/bin/bash', command_line: 'bash' } }
      : {
          source: { ip: '10.0.0.5', port: 51234 },
          destination: { ip: '198.51.100.7', port: 443, hostname: 'example.org' },
          protocol: 'TCP',
          direction: 'outbound',
        }),
    ...overrides,
  };
}

test('generic process shape → Sysmon-style fields and a process row', () => {
  const event = normalise(genericRecord('process'));
  assert.equal(event.family, 'process');
  assert.deepEqual(event.logsources, [
    { category: 'process_creation' },
    { category: 'process_creation', product: 'linux' },
  ]);
  assert.equal(event.fields.Image, '/usr/bin/curl');
  assert.equal(event.fields.ParentCommandLine, 'bash');
  assert.equal(event.fields.User, 'alice');
  assert.deepEqual(event.process, {
    host: 'web-01',
    endpoint_id: 'agent-7f3a',
    user: 'alice',
    process_name: 'curl',
    pid: 123,
    parent_process_name: 'bash',
    parent_pid: 100,
    executable_path: '/usr/bin/curl',
    parent_executable_path: '/bin/bash',
    command_line: 'curl -o /tmp/x http://198.51.100.7/x',
    parent_command_line: 'bash',
    time: EVENT_TIME,
    source_format: 'generic',
  });
  const noOs = normalise(genericRecord('process', { os: undefined }));
  assert.deepEqual(noOs.logsources, [{ category: 'process_creation' }], 'without os only the category applies');
});

test('generic network shape → network fields and a network row', () => {
  const event = normalise(genericRecord('network', { os: 'windows' }));
  assert.equal(event.family, 'network');
  assert.deepEqual(event.logsources, [
    { category: 'network_connection' },
    { category: 'network_connection', product: 'windows' },
  ]);
  assert.equal(event.fields.DestinationHostname, 'example.org');
  assert.equal(event.fields.Protocol, 'tcp');
  assert.equal(event.fields.Initiated, 'true');
  assert.deepEqual(event.network, {
    host: 'web-01',
    endpoint_id: 'agent-7f3a',
    user: 'alice',
    process_name: 'curl',
    pid: 123,
    executable_path: '/usr/bin/curl',
    source_ip: '10.0.0.5',
    source_port: 51234,
    destination_ip: '198.51.100.7',
    destination_port: 443,
    destination_hostname: 'example.org',
    protocol: 'tcp',
    direction: 'outbound',
    time: EVENT_TIME,
    source_format: 'generic',
  });
});
