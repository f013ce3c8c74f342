// The same Windows events in every JSON shape (evtx_dump, python-evtx via xmltodict, Winlogbeat 7
// and 8, NXLog, Fluent Bit, flat) normalise to the same Sigma fields, logsources, host and
// process row. Events are written from Microsoft's event documentation (Security 4688 and 1102,
// System 7045, MSSQL 15457) and Sysmon's schema (events 1 and 20).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldValue, NormalisedEvent } from './event.js';
import { FLATTEN_LIMITS, TRUNCATED_FIELD } from './flatten.js';
import { normalise } from './test-normalise.js';
import {
  LOG_CLEARED,
  MSSQL_OPTION_CHANGED,
  PROCESS_CREATED,
  SERVICE_INSTALLED,
  SYSMON_PROCESS,
  WMI_CONSUMER,
} from './test-windows-events.js';
import {
  evtxDump,
  flat,
  fluentBit,
  nxlog,
  pythonEvtx,
  winlogbeat7,
  winlogbeat8,
  type WindowsEvent,
} from './test-windows-shapes.js';

type Shape = (event: WindowsEvent) => Record<string, unknown> | undefined;

const SHAPES: Record<string, Shape> = {
  evtx_dump: evtxDump,
  python_evtx: pythonEvtx,
  winlogbeat_7: winlogbeat7,
  winlogbeat_8: winlogbeat8,
  // NXLog's documentation names no field for values without a name: the table has no NXLog form of such events.
  nxlog: (event) => (event.unnamed === undefined ? nxlog(event) : undefined),
  fluent_bit: (event) => fluentBit(event, event.userId === 'S-1-5-18' ? 'NT AUTHORITY\\SYSTEM' : undefined),
  flat,
};

/**
 * What Sigma reads of an event: the header, the named values (EventData or UserData), `Data`, and
 * the names an event's category maps its values to (`mapped`, docs/telemetry-mapping.md).
 */
function sigmaFields(event: WindowsEvent, mapped: Record<string, FieldValue> = {}): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {
    EventID: event.eventId,
    Channel: event.channel,
    Provider_Name: event.provider,
    Computer: event.computer,
    ...Object.fromEntries(event.data ?? event.userData?.data ?? []),
    ...mapped,
  };
  if (event.unnamed !== undefined) fields.Data = event.unnamed;
  return fields;
}

function pick(event: NormalisedEvent, names: readonly string[]): Record<string, FieldValue | undefined> {
  return Object.fromEntries(names.map((name) => [name, event.fields[name]]));
}

/** Security 4688 under Sysmon's names: the new process is ProcessId, its creator ParentProcessId. */
const PROCESS_CREATED_MAPPED: Record<string, FieldValue> = {
  Image: 'C:\\Windows\\System32\\rundll32.exe',
  ParentImage: 'C:\\Windows\\explorer.exe',
  ProcessId: 0x2bc,
  ParentProcessId: 0xe74,
  User: 'CONTOSO\\dadmin',
  IntegrityLevel: 'Medium',
  LogonId: '0x4a5af0',
};

const EVENTS: [string, WindowsEvent, Record<string, FieldValue>?][] = [
  ['Security 4688 process creation', PROCESS_CREATED, PROCESS_CREATED_MAPPED],
  ['Security 1102 log cleared (UserData)', LOG_CLEARED],
  ['System 7045 service installed', SERVICE_INSTALLED],
  ['Sysmon 1 process creation', SYSMON_PROCESS],
  ['Sysmon 20 WMI consumer (a field called Name)', WMI_CONSUMER],
  ['MSSQL 15457 option changed (unnamed Data)', MSSQL_OPTION_CHANGED],
];

for (const [title, windowsEvent, mapped] of EVENTS) {
  test(`${title}: every shape gives the same Sigma fields, logsources, host and rows`, () => {
    const expected = sigmaFields(windowsEvent, mapped);
    const names = Object.keys(expected);
    let first: { shape: string; event: NormalisedEvent } | undefined;
    for (const [shape, build] of Object.entries(SHAPES)) {
      const record = build(windowsEvent);
      if (record === undefined) continue;
      const event = normalise(record);
      assert.deepEqual(pick(event, names), expected, `${shape}: Sigma fields`);
      if (windowsEvent.unnamed === undefined) assert.equal(event.fields.Data, undefined, `${shape}: no Data`);
      for (const name of Object.keys(event.fields))
        assert.ok(!name.includes('#') || name.startsWith('Event.'), `${shape}: ${name} is markup made a field`);
      assert.equal(event.host, windowsEvent.computer, `${shape}: host`);
      first ??= { shape, event };
      const against = `${shape} against ${first.shape}`;
      assert.equal(event.family, first.event.family, `${against}: family`);
      assert.deepEqual(event.logsources, first.event.logsources, `${against}: logsources`);
      assert.deepEqual(
        withoutEndpointId(event.process),
        withoutEndpointId(first.event.process),
        `${against}: process row`,
      );
    }
  });
}

function withoutEndpointId(row: NormalisedEvent['process']) {
  if (row === undefined) return undefined;
  const { endpoint_id: _endpointId, ...rest } = row;
  return rest;
}

test('the logsources and rows the shapes agree on are the expected ones', () => {
  const cleared = normalise(evtxDump(LOG_CLEARED));
  assert.deepEqual(cleared.logsources, [{ product: 'windows' }, { product: 'windows', service: 'security' }]);
  const service = normalise(pythonEvtx(SERVICE_INSTALLED));
  assert.deepEqual(service.logsources, [{ product: 'windows' }, { product: 'windows', service: 'system' }]);
  const mssql = normalise(evtxDump(MSSQL_OPTION_CHANGED));
  assert.deepEqual(mssql.logsources, [{ product: 'windows' }, { product: 'windows', service: 'application' }]);
  const wmi = normalise(evtxDump(WMI_CONSUMER));
  assert.deepEqual(wmi.logsources.slice(2), [{ category: 'wmi_event' }, { category: 'wmi_event', product: 'windows' }]);
  const sysmon = normalise(evtxDump(SYSMON_PROCESS));
  assert.equal(sysmon.process?.process_name, 'powershell.exe');
  assert.equal(sysmon.process.parent_pid, 5120);
  const security = normalise(winlogbeat7(PROCESS_CREATED));
  assert.equal(security.process?.process_name, 'rundll32.exe');
  assert.equal(security.process.pid, 0x2bc);
  assert.equal(security.process.user, 'CONTOSO\\dadmin');
});

test('the System attributes become Sigma names: Provider_Guid, Security_UserID, Execution_ProcessID/ThreadID', () => {
  for (const build of [evtxDump, pythonEvtx]) {
    const event = normalise(build(SERVICE_INSTALLED));
    assert.deepEqual(pick(event, ['Provider_Guid', 'Security_UserID', 'Execution_ProcessID', 'Execution_ThreadID']), {
      Provider_Guid: SERVICE_INSTALLED.providerGuid,
      Security_UserID: SERVICE_INSTALLED.userId,
      Execution_ProcessID: 784,
      Execution_ThreadID: 5120,
    });
  }
  // Winlogbeat, NXLog and the flat form carry the SID too; Fluent Bit's UserID is an account name
  // when Windows resolves it, and a SID only when it cannot.
  for (const build of [winlogbeat7, winlogbeat8, nxlog, flat])
    assert.equal(normalise(build(SYSMON_PROCESS)).fields.Security_UserID, 'S-1-5-18');
  assert.equal(normalise(fluentBit(SYSMON_PROCESS, 'NT AUTHORITY\\SYSTEM')).fields.Security_UserID, undefined);
  assert.equal(normalise(fluentBit(SERVICE_INSTALLED)).fields.Security_UserID, SERVICE_INSTALLED.userId);
});

test('unnamed values: Binary stays its own field, a single value is a one-item Data, empty values are dropped', () => {
  const dumped = normalise(evtxDump(MSSQL_OPTION_CHANGED));
  assert.equal(dumped.fields.Binary, MSSQL_OPTION_CHANGED.binary);
  assert.equal(normalise(pythonEvtx(MSSQL_OPTION_CHANGED)).fields.Binary, MSSQL_OPTION_CHANGED.binary);
  const single = { ...MSSQL_OPTION_CHANGED, unnamed: ['xp_cmdshell'] };
  for (const build of [evtxDump, pythonEvtx, winlogbeat8, flat])
    assert.deepEqual(normalise(build(single)).fields.Data, ['xp_cmdshell'], build.name);
  assert.deepEqual(normalise({ ...flat(single), Data: 'xp_cmdshell' }).fields.Data, ['xp_cmdshell'], 'flat text');
  const withEmpty = evtxDump({ ...MSSQL_OPTION_CHANGED, unnamed: ['xp_cmdshell', '', '1'] });
  assert.deepEqual(normalise(withEmpty).fields.Data, ['xp_cmdshell', '1']);
  // Winlogbeat drops the empty value and keeps the others' positions.
  const gap = winlogbeat8(MSSQL_OPTION_CHANGED);
  const eventData = (gap.winlog as { event_data: Record<string, string> }).event_data;
  delete eventData.param2;
  assert.deepEqual(normalise(gap).fields.Data, ['xp_cmdshell', '1']);
  assert.ok(normalise(evtxDump(MSSQL_OPTION_CHANGED)).keywords.includes('xp_cmdshell\n0\n1'));
});

test("Fluent Bit's winlog input sends the binary data as Data: it is read as Binary, the inserts as Data", () => {
  const record = {
    RecordNumber: 9071,
    TimeGenerated: '2026-11-22 10:20:40 +0000',
    TimeWritten: '2026-11-22 10:20:40 +0000',
    EventID: 15457,
    Qualifiers: 16384,
    EventType: 'Information',
    EventCategory: 2,
    Channel: 'Application',
    SourceName: 'MSSQLSERVER',
    ComputerName: 'SQL01.corp.example',
    Data: '613C00000A000000',
    Sid: '',
    Message: MSSQL_OPTION_CHANGED.message,
    StringInserts: ['xp_cmdshell', '0', '1'],
  };
  const event = normalise(record);
  assert.deepEqual(event.fields.Data, ['xp_cmdshell', '0', '1']);
  assert.equal(event.fields.Binary, '613C00000A000000');
  assert.equal(event.fields.Provider_Name, 'MSSQLSERVER');
  assert.equal(event.host, 'SQL01.corp.example');
});

test('a list of unnamed values longer than the flattening cap is cut at it, and the event marked truncated', () => {
  const values = Array.from({ length: FLATTEN_LIMITS.maxArrayValues + 500 }, (_, index) => `value ${index}`);
  const event = normalise(evtxDump({ ...MSSQL_OPTION_CHANGED, unnamed: values }));
  assert.deepEqual(event.fields.Data, values.slice(0, FLATTEN_LIMITS.maxArrayValues));
  assert.equal(event.fields[TRUNCATED_FIELD], true);
});
