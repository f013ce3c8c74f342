// Windows events as a forwarder sends them, for suites that need ordinary endpoint telemetry:
// Sysmon event ID 1 (process creation) in Winlogbeat's shape, its event data named as
// Microsoft's Sysmon documentation lists them (RuleName, UtcTime, ProcessGuid, … ParentUser).

/** A benign process start on a Windows workstation, shipped by Winlogbeat 8. */
export function winlogbeatSysmonProcessCreation(host: string, image: string, commandLine: string) {
  const now = new Date();
  return {
    '@timestamp': now.toISOString(),
    agent: { id: '6a1f4d9e-2c3b-4f7a-9e51-0d8c7b6a5f42', type: 'winlogbeat', version: '8.11.1' },
    ecs: { version: '8.0.0' },
    event: { code: '1', kind: 'event', provider: 'Microsoft-Windows-Sysmon', created: now.toISOString() },
    host: { name: host.toLowerCase(), os: { family: 'windows' } },
    log: { level: 'information' },
    message: `Process Create:\nImage: ${image}\nCommandLine: ${commandLine}`,
    winlog: {
      api: 'wineventlog',
      channel: 'Microsoft-Windows-Sysmon/Operational',
      computer_name: host,
      event_id: '1',
      provider_name: 'Microsoft-Windows-Sysmon',
      record_id: 20_318,
      process: { pid: 3_412, thread: { id: 4_120 } },
      user: { identifier: 'S-1-5-18', domain: 'NT AUTHORITY', name: 'SYSTEM', type: 'User' },
      event_data: {
        RuleName: '-',
        UtcTime: now.toISOString().replace('T', ' ').replace('Z', ''),
        ProcessGuid: '{a1b2c3d4-5e6f-6570-0a00-000000002a00}',
        ProcessId: '7124',
        Image: image,
        FileVersion: '10.0.19041.1 (WinBuild.160101.0800)',
        Description: 'Notepad',
        Product: 'Microsoft® Windows® Operating System',
        Company: 'Microsoft Corporation',
        OriginalFileName: 'NOTEPAD.EXE',
        CommandLine: commandLine,
        CurrentDirectory: 'C:\\Users\\alice\\',
        User: 'CORP\\alice',
        LogonGuid: '{a1b2c3d4-5e6f-6570-0000-0020e7c80f00}',
        LogonId: '0xfc8e7',
        TerminalSessionId: '1',
        IntegrityLevel: 'Medium',
        Hashes: 'SHA256=2F2A9D4E3A4F3B3C0C4D0E1D2B7A5C9E8F1A2B3C4D5E6F708192A3B4C5D6E7F8',
        ParentProcessGuid: '{a1b2c3d4-5e6f-6570-0900-000000002a00}',
        ParentProcessId: '5820',
        ParentImage: 'C:\\Windows\\explorer.exe',
        ParentCommandLine: 'C:\\Windows\\Explorer.EXE',
        ParentUser: 'CORP\\alice',
      },
    },
  };
}
