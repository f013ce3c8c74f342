// A case to investigate, from Sysmon events in the documented shape (flat, as NXLog forwards
// them: EventID 1 process creation, EventID 3 network connection): Word starts an encoded
// PowerShell (a detection), which starts notepad and connects to a backdoor port (a second
// detection) and to a web server (context); Word itself was started by explorer, whose own
// creation is not in the logs. A second host connects to another backdoor port.
import assert from 'node:assert/strict';
import type { TestServer } from './server.js';
import type { ApiClient } from './api.js';
import { postRecords } from './summaries.js';

/** Sysmon's UtcTime: `YYYY-MM-DD HH:MM:SS.mmm`. */
const sysmonTime = (time: number) => new Date(time).toISOString().replace('T', ' ').slice(0, 23);

function sysmon(host: string, eventId: 1 | 3, time: number, data: Record<string, unknown>): Record<string, unknown> {
  return {
    EventTime: sysmonTime(time).slice(0, 19),
    Hostname: host,
    EventID: eventId,
    SourceName: 'Microsoft-Windows-Sysmon',
    Channel: 'Microsoft-Windows-Sysmon/Operational',
    Computer: host,
    UtcTime: sysmonTime(time),
    ...data,
  };
}

const WORD = 'C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE';
const POWERSHELL = 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe';

export function processCreation(
  host: string,
  time: number,
  process: {
    pid: number;
    image: string;
    commandLine: string;
    parentPid: number;
    parentImage: string;
    parentCommandLine?: string;
  },
): Record<string, unknown> {
  return sysmon(host, 1, time, {
    ProcessGuid: `{5770385f-c22a-6546-2b00-${String(process.pid).padStart(12, '0')}}`,
    ProcessId: String(process.pid),
    Image: process.image,
    CommandLine: process.commandLine,
    CurrentDirectory: 'C:\\Users\\bob\\',
    User: 'CORP\\bob',
    IntegrityLevel: 'Medium',
    ParentProcessId: String(process.parentPid),
    ParentImage: process.parentImage,
    ParentCommandLine: process.parentCommandLine ?? process.parentImage,
  });
}

export function networkConnection(
  host: string,
  time: number,
  connection: { pid: number; image: string; destinationIp: string; destinationPort: number },
): Record<string, unknown> {
  return sysmon(host, 3, time, {
    ProcessGuid: `{5770385f-c22a-6546-2b00-${String(connection.pid).padStart(12, '0')}}`,
    ProcessId: String(connection.pid),
    Image: connection.image,
    User: 'CORP\\bob',
    Protocol: 'tcp',
    Initiated: 'true',
    SourceIsIpv6: 'false',
    SourceIp: '10.1.2.17',
    SourceHostname: host,
    SourcePort: String(50_000 + (connection.destinationPort % 1000)),
    DestinationIsIpv6: 'false',
    DestinationIp: connection.destinationIp,
    DestinationHostname: '-',
    DestinationPort: String(connection.destinationPort),
  });
}

export const INVESTIGATION = {
  wordPid: 4100,
  explorerPid: 3000,
  powershellPid: 4242,
  notepadPid: 4300,
  backdoorIp: '198.51.100.7',
  backdoorPort: 4444,
  // An internal web proxy: no rule fires on it (documentation ranges are on the bad-destination list).
  webIp: '10.1.2.50',
  otherBackdoorIp: '198.51.100.99',
  otherBackdoorPort: 31337,
} as const;

/** Posts the first host's records and waits for detection; `minutesAgo` places them in time. */
export async function postInvestigationRecords(
  server: TestServer,
  client: ApiClient,
  codeName: string,
  hosts: { main: string; other?: string },
  minutesAgo = 30,
): Promise<void> {
  const t0 = Date.now() - minutesAgo * 60_000;
  const { main, other } = hosts;
  const i = INVESTIGATION;
  await postRecords(
    server,
    client,
    codeName,
    [
      processCreation(main, t0, {
        pid: i.wordPid,
        image: WORD,
        commandLine: '"WINWORD.EXE" /n "C:\\Users\\bob\\Downloads\\invoice.docm"',
        parentPid: i.explorerPid,
        parentImage: 'C:\\Windows\\explorer.exe',
      }),
      processCreation(main, t0 + 1_000, {
        pid: i.powershellPid,
        image: POWERSHELL,
        commandLine: 'powershell.exe -NoP -W Hidden -enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoAZQBjAHQAKQA=',
        parentPid: i.wordPid,
        parentImage: WORD,
      }),
      processCreation(main, t0 + 2_000, {
        pid: i.notepadPid,
        image: 'C:\\Windows\\System32\\notepad.exe',
        commandLine: 'notepad.exe C:\\Users\\bob\\notes.txt',
        parentPid: i.powershellPid,
        parentImage: POWERSHELL,
      }),
      networkConnection(main, t0 + 3_000, {
        pid: i.powershellPid,
        image: POWERSHELL,
        destinationIp: i.backdoorIp,
        destinationPort: i.backdoorPort,
      }),
      networkConnection(main, t0 + 4_000, {
        pid: i.powershellPid,
        image: POWERSHELL,
        destinationIp: i.webIp,
        destinationPort: 443,
      }),
    ],
    main,
  );
  if (other) {
    await postRecords(
      server,
      client,
      codeName,
      [
        networkConnection(other, t0 + 5_000, {
          pid: 5150,
          image: 'C:\\Windows\\System32\\rundll32.exe',
          destinationIp: i.otherBackdoorIp,
          destinationPort: i.otherBackdoorPort,
        }),
      ],
      other,
    );
  }
}

/** GET /v1/observations/{id}: the raw triggering records, to tell which observation rests on which event. */
export async function observationRecords(client: ApiClient, id: string): Promise<Record<string, unknown>[]> {
  const response = await client.get<{ evidence: { record: Record<string, unknown> | null }[] }>(
    `/v1/observations/${id}`,
  );
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.evidence.flatMap((item) => (item.record ? [item.record] : []));
}
