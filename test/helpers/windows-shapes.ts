// Windows events in the shapes forwarders send them (docs/telemetry-mapping.md shows each): evtx rendered as JSON
// (xmltodict's `@` attributes, and evtx_dump's `#attributes`), Winlogbeat / Elastic Agent, NXLog
// im_msvistalog, Fluent Bit winevtlog and a flat form. Each builder takes the channel, provider,
// event id and the event data as Microsoft documents them.
const now = () => new Date().toISOString();
const HOST = 'WS-042.corp.example';

/** Raw evtx rendered as JSON (the shape of evtx_dump / xmltodict): System header and EventData Data items. */
export function evtx(channel: string, provider: string, eventId: number, data: Record<string, string> | string[]) {
  return {
    Event: {
      '@xmlns': 'http://schemas.microsoft.com/win/2004/08/events/event',
      System: {
        Provider: { '@Name': provider, '@Guid': '{54849625-5478-4994-a5ba-3e3b0328c30d}' },
        EventID: eventId,
        Version: 2,
        Level: 0,
        Task: 13312,
        Opcode: 0,
        Keywords: '0x8020000000000000',
        TimeCreated: { '@SystemTime': now() },
        EventRecordID: 184523,
        Execution: { '@ProcessID': 4, '@ThreadID': 7612 },
        Channel: channel,
        Computer: HOST,
        Security: null,
      },
      EventData: {
        Data: Array.isArray(data)
          ? data
          : Object.entries(data).map(([name, text]) => ({ '@Name': name, '#text': text })),
      },
    },
  };
}

/**
 * evtx_dump -o json (the Rust evtx crate): attributes under `#attributes`, named data as a map,
 * values without a name under `Data: {"#text": [...]}` beside Binary.
 */
export function evtxDump(
  channel: string,
  provider: string,
  eventId: number,
  data: Record<string, string> | { unnamed: string[]; binary: string },
) {
  return {
    Event: {
      '#attributes': { xmlns: 'http://schemas.microsoft.com/win/2004/08/events/event' },
      System: {
        Provider: { '#attributes': { Name: provider } },
        EventID: { '#attributes': { Qualifiers: 16384 }, '#text': eventId },
        Version: 0,
        Level: 4,
        Task: 0,
        Opcode: 0,
        Keywords: '0x80000000000000',
        TimeCreated: { '#attributes': { SystemTime: now() } },
        EventRecordID: 40112,
        Correlation: null,
        Execution: { '#attributes': { ProcessID: 784, ThreadID: 5120 } },
        Channel: channel,
        Computer: HOST,
        Security: { '#attributes': { UserID: 'S-1-5-21-1004336348-1177238915-682003330-1104' } },
      },
      EventData: 'unnamed' in data ? { Data: { '#text': data.unnamed }, Binary: data.binary } : data,
    },
  };
}

/** Winlogbeat 8 / Elastic Agent: ECS beside winlog.*; log.level must not make it an application log. */
export function winlogbeat(channel: string, provider: string, eventId: number, data: Record<string, string>) {
  return {
    '@timestamp': now(),
    agent: { id: '1f0d2a7c-5b1e-4c55-9d6e-3c1b2f9e8a10', type: 'winlogbeat', version: '8.11.1' },
    ecs: { version: '8.0.0' },
    event: { code: String(eventId), kind: 'event', provider, created: now() },
    host: { name: HOST.toLowerCase(), os: { family: 'windows' } },
    log: { level: 'information' },
    message: `Event ${eventId} from ${provider}`,
    winlog: {
      api: 'wineventlog',
      channel,
      computer_name: HOST,
      event_id: String(eventId),
      provider_name: provider,
      record_id: 99182,
      process: { pid: 4, thread: { id: 5120 } },
      event_data: data,
    },
  };
}

/** NXLog im_msvistalog with to_json(): header fields flat, event data as top-level fields. */
export function nxlog(channel: string, sourceName: string, eventId: number, data: Record<string, string>) {
  return {
    EventTime: now().replace('T', ' ').slice(0, 19),
    Hostname: HOST,
    Keywords: '-9223372036854775808',
    EventType: 'INFO',
    SeverityValue: 2,
    Severity: 'INFO',
    EventID: eventId,
    SourceName: sourceName,
    ProviderGuid: '{5770385F-C22A-43E0-BF4C-06F5698FFBD9}',
    Version: 5,
    Task: 1,
    OpcodeValue: 0,
    RecordNumber: 771234,
    ProcessID: 3124,
    ThreadID: 4456,
    Channel: channel,
    Domain: 'NT AUTHORITY',
    AccountName: 'SYSTEM',
    UserID: 'S-1-5-18',
    AccountType: 'User',
    Message: `Event ${eventId}`,
    EventReceivedTime: now().replace('T', ' ').slice(0, 19),
    SourceModuleName: 'eventlog',
    SourceModuleType: 'im_msvistalog',
    ...data,
  };
}

/** Fluent Bit's winevtlog input: flat header and the event data as positional StringInserts. */
export function fluentBit(channel: string, provider: string, eventId: number, inserts: string[]) {
  return {
    ProviderName: provider,
    ProviderGuid: '{5770385F-C22A-43E0-BF4C-06F5698FFBD9}',
    Qualifiers: '',
    EventID: eventId,
    Version: 2,
    Level: 4,
    Task: 13,
    Opcode: 0,
    Keywords: '0x8000000000000000',
    TimeCreated: now(),
    EventRecordID: 55012,
    ActivityID: '',
    RelatedActivityID: '',
    ProcessID: 3124,
    ThreadID: 4456,
    Channel: channel,
    Computer: HOST,
    UserID: 'S-1-5-18',
    Message: `Registry value set: ${inserts[6] ?? ''}`,
    StringInserts: inserts,
  };
}

/** The flat form evtx converters and SIEM exports use: EventID, Channel, Provider_Name, data top-level. */
export function flat(channel: string, provider: string, eventId: number, data: Record<string, string>) {
  return { EventID: eventId, Channel: channel, Provider_Name: provider, Computer: HOST, ...data };
}

export const SYSMON = 'Microsoft-Windows-Sysmon/Operational';
export const SYSMON_PROVIDER = 'Microsoft-Windows-Sysmon';
export const SECURITY_PROVIDER = 'Microsoft-Windows-Security-Auditing';
export const PS_OPERATIONAL = 'Microsoft-Windows-PowerShell/Operational';
