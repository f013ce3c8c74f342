// Demo attacks seen in Windows event logs: an intruder on the finance workstation spraying
// passwords over NTLM and Kerberos, roasting a service account, sweeping the workstation's local
// groups, and running commands on the file server through Impacket's psexec.
import { campaign, entry, type Campaign } from './campaign.js';
import { winlogbeatEvent, WORKSTATION, type JsonObject } from './records.js';

const DC = 'DC-01';
const FILE_SERVER = 'FS-01';
const WORKSTATION_ADDRESS = '10.20.0.31';
const DOMAIN_SID = 'S-1-5-21-3623811015-3361044348-30300820';
const SPRAYED = ['a.berg', 'b.chan', 'c.diaz', 'd.evans', 'e.fox', 'f.garcia', 'g.hill', 'h.ito', 'i.jones', 'j.kim'];
/** What the sweep looks up: four local groups' members, then two users' groups. */
const LOOKED_UP = [
  { id: 4799, name: 'Administrators', sid: 'S-1-5-32-544' },
  { id: 4799, name: 'Remote Desktop Users', sid: 'S-1-5-32-555' },
  { id: 4799, name: 'Remote Management Users', sid: 'S-1-5-32-580' },
  { id: 4799, name: 'Backup Operators', sid: 'S-1-5-32-551' },
  { id: 4798, name: 'Administrator', sid: 'S-1-5-21-1299452318-1832051231-2834112407-500' },
  { id: 4798, name: 'helpdesk', sid: 'S-1-5-21-1299452318-1832051231-2834112407-1002' },
];

const security = (time: number, host: string, id: number, message: string, data: JsonObject) =>
  winlogbeatEvent(time, host, {
    channel: 'Security',
    provider: 'Microsoft-Windows-Security-Auditing',
    id,
    message,
    data,
  });

/** In schedule order (a campaign's position picks its attacker addresses). */
export const windowsAttacks: readonly Campaign[] = [
  campaign(
    'windows',
    'NTLM password spraying',
    8_000,
    (c) =>
      security(c.time, DC, 4776, 'The computer attempted to validate the credentials for an account.', {
        PackageName: 'MICROSOFT_AUTHENTICATION_PACKAGE_V1_0',
        TargetUserName: entry(SPRAYED, c.index),
        Workstation: WORKSTATION,
        Status: '0xc000006a',
      }),
    10,
    400,
  ),
  campaign('windows', 'Kerberoasting', 12_500, (c) =>
    security(c.time, DC, 4769, 'A Kerberos service ticket was requested.', {
      TargetUserName: 'j.doe@CORP.EXAMPLE.COM',
      TargetDomainName: 'CORP.EXAMPLE.COM',
      ServiceName: 'svc_sql',
      ServiceSid: `${DOMAIN_SID}-1187`,
      TicketOptions: '0x40810000',
      TicketEncryptionType: '0x17',
      IpAddress: `::ffff:${WORKSTATION_ADDRESS}`,
      IpPort: String(49_152 + (c.time % 16_000)),
      Status: '0x0',
      LogonGuid: '{9f1c2a6e-0b1d-4c3e-a1f2-9d8e7c6b5a40}',
      TransmittedServices: '-',
    }),
  ),
  campaign(
    'windows',
    'Kerberos password spraying',
    18_000,
    (c) =>
      security(c.time, DC, 4771, 'Kerberos pre-authentication failed.', {
        TargetUserName: entry(SPRAYED, c.index),
        TargetSid: `${DOMAIN_SID}-${1200 + c.index}`,
        ServiceName: 'krbtgt/CORP.EXAMPLE.COM',
        TicketOptions: '0x40810010',
        Status: '0x18',
        PreAuthType: '2',
        IpAddress: `::ffff:${WORKSTATION_ADDRESS}`,
        IpPort: String(49_152 + (c.time % 16_000)),
      }),
    10,
    500,
  ),
  campaign(
    'windows',
    'local group and account sweep',
    21_000,
    (c) => {
      const target = entry(LOOKED_UP, c.index);
      return security(
        c.time,
        WORKSTATION,
        target.id,
        target.id === 4799
          ? 'A security-enabled local group membership was enumerated.'
          : "A user's local group membership was enumerated.",
        {
          TargetUserName: target.name,
          TargetDomainName: target.id === 4799 ? 'Builtin' : WORKSTATION,
          TargetSid: target.sid,
          SubjectUserSid: `${DOMAIN_SID}-1131`,
          SubjectUserName: 'j.doe',
          SubjectDomainName: 'CORP',
          SubjectLogonId: '0x3e7a21',
          CallerProcessId: `0x${(0x2f00 + c.index * 8).toString(16)}`,
          CallerProcessName: 'C:\\Windows\\System32\\net1.exe',
        },
      );
    },
    6,
    300,
  ),
  campaign('windows', 'Impacket psexec on the file server', 25_000, (c) =>
    winlogbeatEvent(c.time, FILE_SERVER, {
      channel: 'Microsoft-Windows-Sysmon/Operational',
      provider: 'Microsoft-Windows-Sysmon',
      id: 17,
      message: 'Pipe Created:',
      data: {
        RuleName: '-',
        EventType: 'CreatePipe',
        UtcTime: new Date(c.time).toISOString().replace('T', ' ').replace('Z', ''),
        ProcessGuid: '{a1b2c3d4-5e6f-6570-0a00-000000003b00}',
        ProcessId: '5412',
        PipeName: '\\RemCom_communicaton',
        Image: 'C:\\Windows\\qRtVbNmk.exe',
        User: 'NT AUTHORITY\\SYSTEM',
      },
    }),
  ),
];
