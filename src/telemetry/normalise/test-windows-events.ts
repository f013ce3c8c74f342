// Windows events written from Microsoft's event documentation (Security 4688 and 1102, System
// 7045, MSSQL 15457 and 18456, MsiInstaller 1040) and Sysmon's schema (events 1 and 20), for the
// tests that send them in every shape (test-windows-shapes.ts renders them).
import type { WindowsEvent } from './test-windows-shapes.js';

const SECURITY_PROVIDER = 'Microsoft-Windows-Security-Auditing';
const SECURITY_GUID = '{54849625-5478-4994-A5BA-3E3B0328C30D}';
const SYSMON_PROVIDER = 'Microsoft-Windows-Sysmon';
const SYSMON_GUID = '{5770385F-C22A-43E0-BF4C-06F5698FFBD9}';
const SYSMON = 'Microsoft-Windows-Sysmon/Operational';

export const PROCESS_CREATED: WindowsEvent = {
  channel: 'Security',
  provider: SECURITY_PROVIDER,
  providerGuid: SECURITY_GUID,
  eventId: 4688,
  version: 2,
  level: 0,
  task: 13312,
  keywords: '0x8020000000000000',
  time: '2026-11-22T10:15:00.123456Z',
  recordId: 2814,
  processId: 4,
  threadId: 6456,
  computer: 'DC01.contoso.local',
  data: [
    ['SubjectUserSid', 'S-1-5-21-1377283216-344919071-3415362939-500'],
    ['SubjectUserName', 'dadmin'],
    ['SubjectDomainName', 'CONTOSO'],
    ['SubjectLogonId', '0x4a5af0'],
    ['NewProcessId', '0x2bc'],
    ['NewProcessName', 'C:\\Windows\\System32\\rundll32.exe'],
    ['TokenElevationType', '%%1938'],
    ['ProcessId', '0xe74'],
    ['CommandLine', 'rundll32.exe C:\\Users\\dadmin\\AppData\\Local\\Temp\\upd.dll,Start'],
    ['TargetUserSid', 'S-1-0-0'],
    ['TargetUserName', '-'],
    ['TargetDomainName', '-'],
    ['TargetLogonId', '0x0'],
    ['ParentProcessName', 'C:\\Windows\\explorer.exe'],
    ['MandatoryLabel', 'S-1-16-8192'],
  ],
  message: 'A new process has been created.',
};

export const LOG_CLEARED: WindowsEvent = {
  channel: 'Security',
  provider: 'Microsoft-Windows-Eventlog',
  providerGuid: '{fc65ddd8-d6ef-4962-83d5-6e5cfe9ce148}',
  eventId: 1102,
  version: 0,
  level: 4,
  task: 104,
  keywords: '0x4020000000000000',
  time: '2026-11-22T10:16:30.000000Z',
  recordId: 1087729,
  processId: 820,
  threadId: 2644,
  computer: 'DC01.contoso.local',
  userData: {
    element: 'LogFileCleared',
    xmlns: 'http://manifests.microsoft.com/win/2004/08/windows/eventlog',
    data: [
      ['SubjectUserSid', 'S-1-5-21-3457937927-2839227994-823803824-1104'],
      ['SubjectUserName', 'dadmin'],
      ['SubjectDomainName', 'CONTOSO'],
      ['SubjectLogonId', '0x55cd0d'],
    ],
  },
  message: 'The audit log was cleared.',
};

export const SERVICE_INSTALLED: WindowsEvent = {
  channel: 'System',
  provider: 'Service Control Manager',
  providerGuid: '{555908d1-a6d7-4695-8e1e-26931d2012f4}',
  qualifiers: 16384,
  eventId: 7045,
  version: 0,
  level: 4,
  task: 0,
  keywords: '0x8080000000000000',
  time: '2026-11-22T10:17:05.500000Z',
  recordId: 40112,
  processId: 784,
  threadId: 5120,
  computer: 'WS-017.corp.example',
  userId: 'S-1-5-21-1004336348-1177238915-682003330-1104',
  data: [
    ['ServiceName', 'PSEXESVC'],
    ['ImagePath', '%SystemRoot%\\PSEXESVC.exe'],
    ['ServiceType', 'user mode service'],
    ['StartType', 'demand start'],
    ['AccountName', 'LocalSystem'],
  ],
  message: 'A service was installed in the system.',
};

export const SYSMON_PROCESS: WindowsEvent = {
  channel: SYSMON,
  provider: SYSMON_PROVIDER,
  providerGuid: SYSMON_GUID,
  eventId: 1,
  version: 5,
  level: 4,
  task: 1,
  keywords: '0x8000000000000000',
  time: '2026-11-22T10:18:00.250000Z',
  recordId: 88231,
  processId: 2960,
  threadId: 3876,
  computer: 'WS-017.corp.example',
  userId: 'S-1-5-18',
  data: [
    ['RuleName', '-'],
    ['UtcTime', '2026-11-22 10:18:00.248'],
    ['ProcessGuid', '{5770385f-c22a-6546-2b00-000000001a00}'],
    ['ProcessId', '6412'],
    ['Image', 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe'],
    ['FileVersion', '10.0.19041.3996'],
    ['Description', 'Windows PowerShell'],
    ['Product', 'Microsoft® Windows® Operating System'],
    ['Company', 'Microsoft Corporation'],
    ['OriginalFileName', 'PowerShell.EXE'],
    ['CommandLine', 'powershell.exe -nop -w hidden -enc SQBFAFgA'],
    ['CurrentDirectory', 'C:\\Users\\alice\\'],
    ['User', 'CORP\\alice'],
    ['LogonGuid', '{5770385f-c1f0-6546-e7c8-0f0000000000}'],
    ['LogonId', '0xfc8e7'],
    ['TerminalSessionId', '1'],
    ['IntegrityLevel', 'Medium'],
    ['Hashes', 'SHA256=9F914D42706FE215501044ACD85A32D58AAEF1419D404FDDFA5D3B48F66CCD9F'],
    ['ParentProcessGuid', '{5770385f-c1f0-6546-1f00-000000001a00}'],
    ['ParentProcessId', '5120'],
    ['ParentImage', 'C:\\Windows\\System32\\cmd.exe'],
    ['ParentCommandLine', '"C:\\Windows\\system32\\cmd.exe" /c run.bat'],
    ['ParentUser', 'CORP\\alice'],
  ],
  message: 'Process Create:',
};

/** Sysmon 20: its own data has a field called Name (the consumer's). */
export const WMI_CONSUMER: WindowsEvent = {
  channel: SYSMON,
  provider: SYSMON_PROVIDER,
  providerGuid: SYSMON_GUID,
  eventId: 20,
  version: 3,
  level: 4,
  task: 20,
  keywords: '0x8000000000000000',
  time: '2026-11-22T10:19:12.000000Z',
  recordId: 88240,
  processId: 2960,
  threadId: 3876,
  computer: 'WS-017.corp.example',
  userId: 'S-1-5-18',
  data: [
    ['RuleName', '-'],
    ['EventType', 'WmiConsumerEvent'],
    ['UtcTime', '2026-11-22 10:19:11.998'],
    ['Operation', 'Created'],
    ['User', 'CORP\\alice'],
    ['Name', '"Updater"'],
    ['Type', 'Command Line'],
    ['Destination', '"C:\\Users\\Public\\upd.exe"'],
  ],
  message: 'WmiEventConsumer activity detected:',
};

/** MSSQL 15457: a classic event source, its values unnamed, the error number and severity in Binary. */
export const MSSQL_OPTION_CHANGED: WindowsEvent = {
  channel: 'Application',
  provider: 'MSSQLSERVER',
  qualifiers: 16384,
  eventId: 15457,
  version: 0,
  level: 4,
  task: 2,
  keywords: '0x80000000000000',
  time: '2026-11-22T10:20:40.000000Z',
  recordId: 9071,
  processId: 0,
  threadId: 0,
  computer: 'SQL01.corp.example',
  unnamed: ['xp_cmdshell', '0', '1'],
  binary: '613C00000A000000',
  message: "Configuration option 'xp_cmdshell' changed from 0 to 1. Run the RECONFIGURE statement to install.",
};

/** MSSQL 18456, a failed login: user, reason and client address as three unnamed values. */
export function mssqlFailedLogin(client: string): WindowsEvent {
  return {
    ...MSSQL_OPTION_CHANGED,
    qualifiers: 49152,
    eventId: 18456,
    level: 0,
    task: 4,
    keywords: '0x90000000000000',
    recordId: 9102,
    unnamed: ['sa', ' Reason: Password did not match that for the login provided.', ` [CLIENT: ${client}]`],
    binary: '184800000E000000',
    message: `Login failed for user 'sa'. Reason: Password did not match that for the login provided. [CLIENT: ${client}]`,
  };
}

/** MsiInstaller 1040: a Windows Installer transaction begins for a package, by a client process. */
export function msiTransaction(packagePath: string): WindowsEvent {
  return {
    channel: 'Application',
    provider: 'MsiInstaller',
    qualifiers: 0,
    eventId: 1040,
    version: 0,
    level: 4,
    task: 0,
    keywords: '0x80000000000000',
    time: '2026-11-22T10:22:00.000000Z',
    recordId: 9120,
    processId: 7436,
    threadId: 7440,
    computer: 'WS-017.corp.example',
    userId: 'S-1-5-21-1004336348-1177238915-682003330-1104',
    unnamed: [packagePath, '7436'],
    message: `Beginning a Windows Installer transaction: ${packagePath}. Client Process Id: 7436.`,
  };
}
