// One Windows event, as its XML defines it, written in every JSON shape a forwarder or converter
// sends, for the Windows normalisation tests. Each builder follows its tool's own output: evtx_dump
// (the Rust evtx crate, `-o json`), xmltodict over python-evtx's XML, Winlogbeat 7 and 8, NXLog
// im_msvistalog with to_json(), Fluent Bit's winevtlog input, and the flat form of converters.

/** The parts of an event's XML (System, EventData or UserData) the shapes carry. */
export interface WindowsEvent {
  channel: string;
  provider: string;
  providerGuid?: string;
  /** Classic event sources (Service Control Manager, MSSQL) write an EventID Qualifiers attribute. */
  qualifiers?: number;
  eventId: number;
  version: number;
  level: number;
  task: number;
  keywords: string;
  /** TimeCreated SystemTime, UTC. */
  time: string;
  recordId: number;
  processId: number;
  threadId: number;
  computer: string;
  /** Security UserID, when the event has one. */
  userId?: string;
  /** Named `<Data Name="…">` values, in template order. */
  data?: [string, string][];
  /** `<Data>` values without a name. */
  unnamed?: string[];
  /** EventData's Binary element (hex). */
  binary?: string;
  /** UserData's one element and its values. */
  userData?: { element: string; xmlns: string; data: [string, string][] };
  message: string;
}

const EVENT_XMLNS = 'http://schemas.microsoft.com/win/2004/08/events/event';

/** evtx_dump -o json: attributes under `#attributes`, named data as a map, unnamed under Data.#text. */
export function evtxDump(event: WindowsEvent): Record<string, unknown> {
  const provider: Record<string, unknown> = { Name: event.provider };
  if (event.providerGuid !== undefined) provider.Guid = event.providerGuid;
  const record: Record<string, unknown> = {
    '#attributes': { xmlns: EVENT_XMLNS },
    System: {
      Provider: { '#attributes': provider },
      EventID:
        event.qualifiers === undefined
          ? event.eventId
          : { '#attributes': { Qualifiers: event.qualifiers }, '#text': event.eventId },
      Version: event.version,
      Level: event.level,
      Task: event.task,
      Opcode: 0,
      Keywords: event.keywords,
      TimeCreated: { '#attributes': { SystemTime: event.time } },
      EventRecordID: event.recordId,
      Correlation: null,
      Execution: { '#attributes': { ProcessID: event.processId, ThreadID: event.threadId } },
      Channel: event.channel,
      Computer: event.computer,
      Security: event.userId === undefined ? null : { '#attributes': { UserID: event.userId } },
    },
  };
  if (event.data !== undefined || event.unnamed !== undefined) {
    const eventData: Record<string, unknown> = Object.fromEntries(event.data ?? []);
    if (event.unnamed !== undefined)
      eventData.Data = { '#text': event.unnamed.length === 1 ? event.unnamed[0] : event.unnamed };
    if (event.binary !== undefined) eventData.Binary = event.binary;
    record.EventData = eventData;
  }
  if (event.userData !== undefined) {
    const { element, xmlns, data } = event.userData;
    record.UserData = { [element]: { '#attributes': { xmlns }, ...Object.fromEntries(data) } };
  }
  return { Event: record };
}

/** xmltodict.parse over python-evtx's record.xml(): `@` attributes, `#text`, all values text. */
export function pythonEvtx(event: WindowsEvent): Record<string, unknown> {
  const provider: Record<string, unknown> = { '@Name': event.provider };
  if (event.providerGuid !== undefined) provider['@Guid'] = event.providerGuid;
  const record: Record<string, unknown> = {
    '@xmlns': EVENT_XMLNS,
    System: {
      Provider: provider,
      EventID: {
        '@Qualifiers': event.qualifiers === undefined ? '' : String(event.qualifiers),
        '#text': String(event.eventId),
      },
      Version: String(event.version),
      Level: String(event.level),
      Task: String(event.task),
      Opcode: '0',
      Keywords: event.keywords,
      // python-evtx renders FILETIME with isoformat(' '): UTC, no zone letter.
      TimeCreated: { '@SystemTime': event.time.replace('T', ' ').replace('Z', '') },
      EventRecordID: String(event.recordId),
      Correlation: { '@ActivityID': '', '@RelatedActivityID': '' },
      Execution: { '@ProcessID': String(event.processId), '@ThreadID': String(event.threadId) },
      Channel: event.channel,
      Computer: event.computer,
      Security: event.userId === undefined ? null : { '@UserID': event.userId },
    },
  };
  // xmltodict gives a repeated element as a list and a lone one as itself.
  const items: unknown[] = [
    ...(event.data ?? []).map(([name, text]) => ({ '@Name': name, '#text': text })),
    ...(event.unnamed ?? []),
  ];
  if (items.length > 0) {
    const eventData: Record<string, unknown> = { Data: items.length === 1 ? items[0] : items };
    if (event.binary !== undefined) eventData.Binary = event.binary;
    record.EventData = eventData;
  }
  if (event.userData !== undefined) {
    const { element, xmlns, data } = event.userData;
    record.UserData = { [element]: { '@xmlns': xmlns, ...Object.fromEntries(data) } };
  }
  return { Event: record };
}

/** Winlogbeat's event_data: unnamed values are param1…paramN by position, empty values dropped. */
function winlogbeatData(event: WindowsEvent): Record<string, string> {
  const data: Record<string, string> = Object.fromEntries(event.data ?? []);
  (event.unnamed ?? []).forEach((value, index) => {
    data[`param${(event.data?.length ?? 0) + index + 1}`] = value;
  });
  return data;
}

function winlog(event: WindowsEvent, eventId: number | string): Record<string, unknown> {
  const winlog: Record<string, unknown> = {
    api: 'wineventlog',
    channel: event.channel,
    computer_name: event.computer,
    event_id: eventId,
    provider_name: event.provider,
    record_id: event.recordId,
    process: { pid: event.processId, thread: { id: event.threadId } },
  };
  if (event.providerGuid !== undefined) winlog.provider_guid = event.providerGuid;
  if (event.userId !== undefined) winlog.user = { identifier: event.userId };
  if (event.userData !== undefined) winlog.user_data = Object.fromEntries(event.userData.data);
  else winlog.event_data = winlogbeatData(event);
  return winlog;
}

/** Winlogbeat 7.x: numeric event_id and event.code. */
export function winlogbeat7(event: WindowsEvent): Record<string, unknown> {
  return {
    '@timestamp': event.time,
    agent: { id: '0c6b3e5a-7f21-4d0e-9a55-3f0d2b8e1c47', type: 'winlogbeat', version: '7.17.22' },
    ecs: { version: '1.12.0' },
    event: { code: event.eventId, kind: 'event', provider: event.provider, created: event.time },
    host: { name: event.computer.split('.')[0]?.toLowerCase() },
    log: { level: 'information' },
    message: event.message,
    winlog: winlog(event, event.eventId),
  };
}

/** Winlogbeat 8.x / Elastic Agent: event_id and ECS event.code as text. */
export function winlogbeat8(event: WindowsEvent): Record<string, unknown> {
  return {
    '@timestamp': event.time,
    agent: { id: '8a3f1c9e-5b2d-4e6f-8a71-2c4d6e8f0a13', type: 'winlogbeat', version: '8.15.0' },
    ecs: { version: '8.0.0' },
    event: { code: String(event.eventId), kind: 'event', provider: event.provider, created: event.time },
    host: { name: event.computer.split('.')[0]?.toLowerCase() },
    log: { level: 'information' },
    message: event.message,
    winlog: winlog(event, String(event.eventId)),
  };
}

/**
 * NXLog im_msvistalog with to_json(): the System fields flat under NXLog's names, then the named
 * event data (EventData or UserData) flat. NXLog documents no field for unnamed values.
 */
export function nxlog(event: WindowsEvent): Record<string, unknown> {
  const when = event.time.replace('T', ' ').slice(0, 19);
  const header: Record<string, unknown> = {
    EventTime: when,
    Hostname: event.computer,
    Keywords: event.keywords,
    EventType: 'INFO',
    SeverityValue: 2,
    Severity: 'INFO',
    EventID: event.eventId,
    SourceName: event.provider,
    Version: event.version,
    Task: event.task,
    OpcodeValue: 0,
    RecordNumber: event.recordId,
    ProcessID: event.processId,
    ThreadID: event.threadId,
    Channel: event.channel,
    Message: event.message,
  };
  if (event.providerGuid !== undefined) header.ProviderGuid = event.providerGuid;
  if (event.userId !== undefined) header.UserID = event.userId;
  return {
    ...header,
    ...Object.fromEntries(event.data ?? event.userData?.data ?? []),
    EventReceivedTime: when,
    SourceModuleName: 'eventlog',
    SourceModuleType: 'im_msvistalog',
  };
}

/**
 * Fluent Bit's winevtlog input: the System values flat, TimeCreated in local time with its offset,
 * UserID resolved to DOMAIN\account where Windows can, and the event's values by position.
 */
export function fluentBit(event: WindowsEvent, resolvedUser?: string): Record<string, unknown> {
  const inserts = [...(event.data ?? event.userData?.data ?? []).map(([, value]) => value), ...(event.unnamed ?? [])];
  return {
    ProviderName: event.provider,
    ProviderGuid: event.providerGuid ?? '',
    Qualifiers: event.qualifiers ?? '',
    EventID: event.eventId,
    Version: event.version,
    Level: event.level,
    Task: event.task,
    Opcode: 0,
    Keywords: event.keywords,
    TimeCreated: `${event.time.replace('T', ' ').slice(0, 19)} +0000`,
    EventRecordID: event.recordId,
    ActivityID: '',
    RelatedActivityID: '',
    ProcessID: event.processId,
    ThreadID: event.threadId,
    Channel: event.channel,
    Computer: event.computer,
    UserID: resolvedUser ?? event.userId ?? '',
    Message: event.message,
    StringInserts: inserts,
  };
}

/** The flat form of evtx converters and SIEM exports: Sigma's header names, data top-level. */
export function flat(event: WindowsEvent): Record<string, unknown> {
  const record: Record<string, unknown> = {
    EventID: event.eventId,
    Channel: event.channel,
    Provider_Name: event.provider,
    Computer: event.computer,
    ...Object.fromEntries(event.data ?? event.userData?.data ?? []),
  };
  if (event.userId !== undefined) record.Security_UserID = event.userId;
  if (event.unnamed !== undefined) record.Data = event.unnamed;
  return record;
}
