// Benign Windows events for the detection benchmark, in the shapes forwarders send: Winlogbeat
// (`winlog.*` with `event_data`, ECS `event`/`host`/`agent`, as in Elastic's winlogbeat fields
// reference) and NXLog's im_msvistalog as JSON (header fields and event data flat). Channels:
// Sysmon (EIDs 1, 3, 7, 10, 11, 13, 22), Security (4624, 4625, 4672, 4688) and PowerShell
// (4104 script blocks), with field names and value formats from Microsoft's event documentation.
import { between as int, hex, ipv4, pick, type Random } from '../../src/core/random.js';
import type { JsonObject } from '../../test/fixtures/rule-pack/records.js';

type Values = Record<string, string | number>;

const HOSTS = [
  'WS-0142.corp.example.com',
  'WS-0377.corp.example.com',
  'LT-2231.corp.example.com',
  'SRV-FS01.corp.example.com',
];
const USERS = ['alice', 'bob', 'carol', 'svc-backup', 'dave.admin'];
const SYSMON_CHANNEL = 'Microsoft-Windows-Sysmon/Operational';
const SYSMON_PROVIDER = 'Microsoft-Windows-Sysmon';
const SECURITY_PROVIDER = 'Microsoft-Windows-Security-Auditing';
const POWERSHELL_CHANNEL = 'Microsoft-Windows-PowerShell/Operational';

const guid = (r: Random) => `{${hex(r, 8)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 12)}}`.toUpperCase();
const utc = (time: number) => new Date(time).toISOString().replace('T', ' ').replace('Z', '');

/** Winlogbeat 8.x: event data under winlog.event_data, all values strings as Windows renders them. */
function winlogbeat(r: Random, time: number, channel: string, provider: string, id: number, data: Values): JsonObject {
  const host = pick(r, HOSTS);
  const eventData: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) eventData[key] = String(value);
  return {
    '@timestamp': new Date(time).toISOString(),
    agent: {
      type: 'winlogbeat',
      version: '8.15.0',
      id: `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`,
    },
    ecs: { version: '8.0.0' },
    event: { code: String(id), kind: 'event', provider, created: new Date(time + 900).toISOString() },
    host: { name: host.split('.')[0]?.toLowerCase() ?? host },
    log: { level: 'information' },
    winlog: {
      channel,
      computer_name: host,
      event_id: String(id),
      provider_name: provider,
      record_id: String(int(r, 100_000, 9_999_999)),
      process: { pid: int(r, 500, 9000), thread: { id: int(r, 500, 9000) } },
      event_data: eventData,
    },
  };
}

/** NXLog im_msvistalog with to_json(): the header and every event data field at the top level. */
function nxlog(r: Random, time: number, channel: string, provider: string, id: number, data: Values): JsonObject {
  const when = new Date(time).toISOString().replace('T', ' ').slice(0, 19);
  return {
    EventTime: when,
    Hostname: pick(r, HOSTS),
    Keywords: '-9223372036854775808',
    EventType: 'INFO',
    SeverityValue: 2,
    Severity: 'INFO',
    EventID: id,
    SourceName: provider,
    ProviderGuid: guid(r),
    Version: 5,
    Task: 1,
    OpcodeValue: 0,
    RecordNumber: int(r, 100_000, 9_999_999),
    ProcessID: int(r, 500, 9000),
    ThreadID: int(r, 500, 9000),
    Channel: channel,
    ...data,
    EventReceivedTime: when,
    SourceModuleName: 'eventlog',
    SourceModuleType: 'im_msvistalog',
  };
}

/** A forwarder shape, Winlogbeat three times in four. */
function shaped(r: Random, time: number, channel: string, provider: string, id: number, data: Values): JsonObject {
  return r() < 0.75 ? winlogbeat(r, time, channel, provider, id, data) : nxlog(r, time, channel, provider, id, data);
}

const IMAGE_LOADS: [string, string, string][] = [
  ['C:\\Windows\\System32\\svchost.exe', 'C:\\Windows\\System32\\wbem\\wbemsvc.dll', 'wbemsvc.dll'],
  ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe', 'C:\\Windows\\System32\\dwrite.dll', 'DWrite.dll'],
  ['C:\\Windows\\explorer.exe', 'C:\\Windows\\System32\\twinapi.appcore.dll', 'twinapi.appcore.dll'],
];
const FILES = [
  'C:\\Users\\{user}\\AppData\\Local\\Temp\\{h}.tmp',
  'C:\\Users\\{user}\\Downloads\\invoice-{n}.pdf',
  'C:\\Windows\\Prefetch\\CHROME.EXE-{h}.pf',
  'C:\\ProgramData\\Microsoft\\Windows Defender\\Scans\\History\\Service\\DetectionHistory\\{h}',
];
const REGISTRY: [string, string][] = [
  ['HKLM\\System\\CurrentControlSet\\Services\\bam\\State\\UserSettings\\S-1-5-21-{n}\\{h}', 'Binary Data'],
  ['HKU\\S-1-5-21-{n}\\Software\\Microsoft\\Windows\\CurrentVersion\\Explorer\\RecentDocs\\.pdf', 'Binary Data'],
  ['HKLM\\SOFTWARE\\Microsoft\\Windows Defender\\Signature Updates\\SignatureUpdateLastAttempted', 'QWORD (0x01da{h})'],
];
const DOMAINS = [
  'login.microsoftonline.com',
  'www.google.com',
  'outlook.office365.com',
  'update.googleapis.com',
  'wpad.corp.example.com',
];
const SCRIPT_BLOCKS = [
  'Get-ChildItem -Path C:\\Scripts -Filter *.log | Where-Object { $_.LastWriteTime -lt (Get-Date).AddDays(-30) } | Remove-Item',
  'Import-Module ActiveDirectory; Get-ADUser -Filter * -SearchBase "OU=Staff,DC=corp,DC=example,DC=com" | Select-Object Name',
  '$ErrorActionPreference = "Stop"; Test-NetConnection -ComputerName fs01 -Port 445',
  'prompt',
  '{ Set-StrictMode -Version 1; $_.PSMessageDetails }',
];

const fillIn = (text: string, r: Random) =>
  text.replace(/\{(n|h|user)\}/g, (_, slot: string) =>
    slot === 'n' ? String(int(r, 1000, 999_999)) : slot === 'h' ? hex(r, 16) : pick(r, USERS),
  );

/** Benign Windows events of every channel, each at a realistic share, from process/command lists. */
export function windowsEvent(r: Random, time: number, processes: readonly [string, string, string][]): JsonObject {
  const [image, commandLine, parent] = pick(r, processes);
  const user = `CORP\\${pick(r, USERS)}`;
  const process = { ProcessGuid: guid(r), ProcessId: int(r, 500, 30_000), Image: image, User: user };
  const roll = r();
  const sysmon = (id: number, data: Values) =>
    shaped(r, time, SYSMON_CHANNEL, SYSMON_PROVIDER, id, { RuleName: '-', UtcTime: utc(time), ...data });
  if (roll < 0.2)
    return sysmon(1, {
      ...process,
      FileVersion: '10.0.22621.1',
      Description: image.slice(image.lastIndexOf('\\') + 1),
      Product: 'Microsoft® Windows® Operating System',
      Company: 'Microsoft Corporation',
      OriginalFileName: image.slice(image.lastIndexOf('\\') + 1),
      CommandLine: fillIn(commandLine.replace('{n}', String(int(r, 1, 99_999))), r),
      CurrentDirectory: 'C:\\Windows\\system32\\',
      LogonGuid: guid(r),
      LogonId: `0x${hex(r, 6)}`,
      TerminalSessionId: 1,
      IntegrityLevel: pick(r, ['Medium', 'High', 'System']),
      Hashes: `SHA256=${hex(r, 64).toUpperCase()},IMPHASH=${hex(r, 32).toUpperCase()}`,
      ParentProcessGuid: guid(r),
      ParentProcessId: int(r, 500, 30_000),
      ParentImage: parent,
      ParentCommandLine: parent,
      ParentUser: user,
    });
  if (roll < 0.3)
    return sysmon(3, {
      ...process,
      Protocol: 'tcp',
      Initiated: 'true',
      SourceIsIpv6: 'false',
      SourceIp: `10.20.${int(r, 0, 255)}.${int(r, 1, 254)}`,
      SourceHostname: pick(r, HOSTS),
      SourcePort: int(r, 49152, 65535),
      SourcePortName: '-',
      DestinationIsIpv6: 'false',
      DestinationIp: ipv4(r),
      DestinationHostname: '-',
      DestinationPort: pick(r, [443, 443, 80, 445, 53]),
      DestinationPortName: pick(r, ['https', 'http', 'microsoft-ds', 'domain']),
    });
  if (roll < 0.42) {
    const [loader, loaded, name] = pick(r, IMAGE_LOADS);
    return sysmon(7, {
      ...process,
      Image: loader,
      ImageLoaded: loaded,
      FileVersion: '10.0.22621.1',
      Description: name,
      Product: 'Microsoft® Windows® Operating System',
      Company: 'Microsoft Corporation',
      OriginalFileName: name,
      Hashes: `SHA256=${hex(r, 64).toUpperCase()}`,
      Signed: 'true',
      Signature: 'Microsoft Windows',
      SignatureStatus: 'Valid',
    });
  }
  if (roll < 0.47)
    return sysmon(10, {
      SourceProcessGUID: guid(r),
      SourceProcessId: int(r, 500, 30_000),
      SourceThreadId: int(r, 500, 30_000),
      SourceImage: 'C:\\Windows\\System32\\svchost.exe',
      TargetProcessGUID: guid(r),
      TargetProcessId: int(r, 500, 30_000),
      TargetImage: image,
      GrantedAccess: pick(r, ['0x1000', '0x101000', '0x1400']),
      CallTrace: 'C:\\Windows\\SYSTEM32\\ntdll.dll+9d4c4|C:\\Windows\\System32\\KERNELBASE.dll+2c13e',
      SourceUser: 'NT AUTHORITY\\SYSTEM',
      TargetUser: user,
    });
  if (roll < 0.57)
    return sysmon(11, { ...process, TargetFilename: fillIn(pick(r, FILES), r), CreationUtcTime: utc(time) });
  if (roll < 0.66) {
    const [key, details] = pick(r, REGISTRY);
    return sysmon(13, { EventType: 'SetValue', ...process, TargetObject: fillIn(key, r), Details: fillIn(details, r) });
  }
  if (roll < 0.74)
    return sysmon(22, {
      ...process,
      QueryName: pick(r, DOMAINS),
      QueryStatus: '0',
      QueryResults: `type:  5 ${pick(r, DOMAINS)};::ffff:${ipv4(r)};`,
    });
  return securityOrPowerShell(r, time, image, commandLine, parent);
}

function securityOrPowerShell(r: Random, time: number, image: string, commandLine: string, parent: string): JsonObject {
  const user = pick(r, USERS);
  const subject = {
    SubjectUserSid: 'S-1-5-18',
    SubjectUserName: 'WS-0142$',
    SubjectDomainName: 'CORP',
    SubjectLogonId: '0x3e7',
  };
  const security = (id: number, data: Values) => shaped(r, time, 'Security', SECURITY_PROVIDER, id, data);
  const roll = r();
  if (roll < 0.35)
    return security(4624, {
      ...subject,
      TargetUserSid: `S-1-5-21-${int(r, 1e8, 9e8)}-${int(r, 1000, 9999)}`,
      TargetUserName: user,
      TargetDomainName: 'CORP',
      TargetLogonId: `0x${hex(r, 7)}`,
      LogonType: pick(r, [2, 3, 3, 3, 5, 7, 10]),
      LogonProcessName: pick(r, ['Kerberos', 'NtLmSsp ', 'User32 ', 'Advapi  ']),
      AuthenticationPackageName: pick(r, ['Kerberos', 'NTLM', 'Negotiate']),
      WorkstationName: '-',
      LogonGuid: guid(r),
      TransmittedServices: '-',
      LmPackageName: '-',
      KeyLength: 0,
      ProcessId: '0x0',
      ProcessName: '-',
      IpAddress: `10.20.${int(r, 0, 255)}.${int(r, 1, 254)}`,
      IpPort: int(r, 49152, 65535),
      ImpersonationLevel: '%%1833',
      ElevatedToken: '%%1843',
    });
  if (roll < 0.42)
    return security(4625, {
      ...subject,
      TargetUserSid: 'S-1-0-0',
      TargetUserName: user,
      TargetDomainName: 'CORP',
      Status: '0xc000006d',
      FailureReason: '%%2313',
      SubStatus: '0xc000006a',
      LogonType: 3,
      LogonProcessName: 'NtLmSsp ',
      AuthenticationPackageName: 'NTLM',
      WorkstationName: pick(r, ['WS-0377', 'LT-2231']),
      IpAddress: `10.20.${int(r, 0, 255)}.${int(r, 1, 254)}`,
      IpPort: 0,
    });
  if (roll < 0.55)
    return security(4672, {
      ...subject,
      PrivilegeList:
        'SeAssignPrimaryTokenPrivilege\n\t\t\tSeTcbPrivilege\n\t\t\tSeSecurityPrivilege\n\t\t\tSeBackupPrivilege',
    });
  if (roll < 0.8)
    return security(4688, {
      ...subject,
      NewProcessId: `0x${hex(r, 4)}`,
      NewProcessName: image,
      TokenElevationType: '%%1936',
      ProcessId: `0x${hex(r, 4)}`,
      CommandLine: fillIn(commandLine.replace('{n}', String(int(r, 1, 99_999))), r),
      TargetUserSid: 'S-1-0-0',
      TargetUserName: '-',
      TargetDomainName: '-',
      TargetLogonId: '0x0',
      ParentProcessName: parent,
      MandatoryLabel: 'S-1-16-8192',
    });
  return shaped(r, time, POWERSHELL_CHANNEL, 'Microsoft-Windows-PowerShell', 4104, {
    MessageNumber: 1,
    MessageTotal: 1,
    ScriptBlockText: pick(r, SCRIPT_BLOCKS),
    ScriptBlockId: guid(r).slice(1, -1).toLowerCase(),
    Path: r() < 0.5 ? '' : `C:\\Scripts\\maintenance-${int(r, 1, 40)}.ps1`,
  });
}
