// What a Windows event is to Sigma once its shape is read: the categories of its event id
// (every Sysmon event, Security 4688/5156, PowerShell, Defender detections) and the renaming
// of native fields to the names SigmaHQ rules use for that category. docs/telemetry-mapping.md
// has the table.
import { asInt, flagText, numbersWherePossible, type Fields } from './fields.js';
import { PORT_FIELDS } from './endpoint.js';

/** Sysmon event id → Sigma categories (Windows and Sysmon for Linux number their events alike). */
export const SYSMON_CATEGORIES: ReadonlyMap<number, readonly string[]> = new Map([
  [1, ['process_creation']],
  [2, ['file_change']],
  [3, ['network_connection']],
  [4, ['sysmon_status']],
  [5, ['process_termination']],
  [6, ['driver_load']],
  [7, ['image_load']],
  [8, ['create_remote_thread']],
  [9, ['raw_access_thread', 'raw_access_read']],
  [10, ['process_access']],
  [11, ['file_event']],
  // 12 is split by EventType below (CreateKey → registry_add, DeleteKey → registry_delete).
  [12, ['registry_event']],
  [13, ['registry_set', 'registry_event']],
  [14, ['registry_rename', 'registry_event']],
  [15, ['create_stream_hash']],
  [16, ['sysmon_status']],
  [17, ['pipe_created']],
  [18, ['pipe_created']],
  [19, ['wmi_event']],
  [20, ['wmi_event']],
  [21, ['wmi_event']],
  [22, ['dns_query']],
  [23, ['file_delete']],
  [24, ['clipboard_capture']],
  [25, ['process_tampering']],
  [26, ['file_delete']],
  [27, ['file_block']],
  [28, ['file_block']],
  [29, ['file_executable_detected']],
  [255, ['sysmon_error']],
]);

export const REGISTRY_KEY_EVENTS: Readonly<Record<string, string>> = {
  CreateKey: 'registry_add',
  DeleteKey: 'registry_delete',
  DeleteValue: 'registry_delete',
};

/** PowerShell channels: event id → category. */
const POWERSHELL_OPERATIONAL: ReadonlyMap<number, string> = new Map([
  [4103, 'ps_module'],
  [4104, 'ps_script'],
]);
const POWERSHELL_CLASSIC: ReadonlyMap<number, string> = new Map([
  [400, 'ps_classic_start'],
  [403, 'ps_classic_start'],
  [600, 'ps_classic_provider_start'],
  [800, 'ps_classic_script'],
]);
/** Defender's detection events (malware found, action taken, …) are antivirus alerts. */
const DEFENDER_DETECTIONS = new Set([1006, 1007, 1008, 1015, 1116, 1117, 1118, 1119]);

/** Mandatory label SIDs as Sysmon names them (IntegrityLevel). */
const INTEGRITY_LEVELS: Readonly<Record<string, string>> = {
  'S-1-16-0': 'Untrusted',
  'S-1-16-4096': 'Low',
  'S-1-16-8192': 'Medium',
  'S-1-16-8448': 'Medium',
  'S-1-16-12288': 'High',
  'S-1-16-16384': 'System',
};

export type WindowsKind = 'sysmon' | 'security' | 'powershell' | 'powershell_classic' | 'defender' | 'other';

export function windowsKind(channel: string, provider: string): WindowsKind {
  const name = (channel === '' ? provider : channel).toLowerCase();
  if (name.includes('sysmon')) return 'sysmon';
  if (name === 'security' || provider === 'Microsoft-Windows-Security-Auditing') return 'security';
  if (name === 'microsoft-windows-powershell/operational') return 'powershell';
  if (name === 'windows powershell' || provider === 'PowerShell') return 'powershell_classic';
  if (name.startsWith('microsoft-windows-windows defender')) return 'defender';
  return 'other';
}

/** The categories of an event; fields are renamed in place for the ones that need it. */
export function categoriesOf(kind: WindowsKind, eventId: number | null, fields: Fields): readonly string[] {
  if (eventId === null) return [];
  switch (kind) {
    case 'sysmon': {
      const categories = SYSMON_CATEGORIES.get(eventId) ?? [];
      if (eventId === 3) sysmonNetwork(fields);
      if (eventId === 12) {
        const specific = REGISTRY_KEY_EVENTS[String(fields.EventType)];
        return specific === undefined ? categories : [specific, 'registry_event'];
      }
      return categories;
    }
    case 'security':
      if (eventId === 4688) {
        securityProcess(fields);
        return ['process_creation'];
      }
      if (eventId === 5156) {
        securityConnection(fields);
        return ['network_connection'];
      }
      return [];
    case 'powershell': {
      const category = POWERSHELL_OPERATIONAL.get(eventId);
      return category === undefined ? [] : [category];
    }
    case 'powershell_classic': {
      const category = POWERSHELL_CLASSIC.get(eventId);
      return category === undefined ? [] : [category];
    }
    case 'defender':
      if (!DEFENDER_DETECTIONS.has(eventId)) return [];
      copy(fields, 'Signature', 'Threat Name');
      copy(fields, 'Filename', 'Path');
      return ['antivirus'];
    case 'other':
      return [];
  }
}

/** Sysmon writes flags as 'true'/'false'; converters that made them booleans are undone. */
function sysmonNetwork(fields: Fields): void {
  numbersWherePossible(fields, PORT_FIELDS);
  for (const name of ['Initiated', 'SourceIsIpv6', 'DestinationIsIpv6']) {
    const flag = flagText(fields[name]);
    if (flag !== undefined) fields[name] = flag;
  }
}

/**
 * Security 4688 under Sysmon's names: NewProcessName → Image, ParentProcessName → ParentImage,
 * NewProcessId → ProcessId and the creator's ProcessId → ParentProcessId (hex → decimal),
 * SubjectDomainName\SubjectUserName → User, MandatoryLabel → IntegrityLevel, SubjectLogonId → LogonId.
 */
function securityProcess(fields: Fields): void {
  const creator = fields.ProcessId;
  copy(fields, 'Image', 'NewProcessName');
  copy(fields, 'ParentImage', 'ParentProcessName');
  const pid = hexOrDecimal(fields.NewProcessId);
  if (pid !== null) fields.ProcessId = pid;
  else delete fields.ProcessId;
  const parentPid = hexOrDecimal(creator);
  if (parentPid !== null && fields.ParentProcessId === undefined) fields.ParentProcessId = parentPid;
  const user = qualifiedUser(fields.SubjectDomainName, fields.SubjectUserName);
  if (user !== null && fields.User === undefined) fields.User = user;
  const label = fields.MandatoryLabel;
  if (typeof label === 'string' && INTEGRITY_LEVELS[label] !== undefined && fields.IntegrityLevel === undefined)
    fields.IntegrityLevel = INTEGRITY_LEVELS[label];
  copy(fields, 'LogonId', 'SubjectLogonId');
}

/**
 * Security 5156 (the filtering platform allowed a connection) under Sysmon's names:
 * Application → Image, SourceAddress/DestAddress → SourceIp/DestinationIp, DestPort →
 * DestinationPort, Protocol 6/17 → tcp/udp, Direction outbound → Initiated 'true'.
 */
function securityConnection(fields: Fields): void {
  copy(fields, 'Image', 'Application');
  copy(fields, 'SourceIp', 'SourceAddress');
  copy(fields, 'DestinationIp', 'DestAddress');
  copy(fields, 'DestinationPort', 'DestPort');
  copy(fields, 'ProcessId', 'ProcessID');
  numbersWherePossible(fields, [...PORT_FIELDS, 'ProcessId']);
  const protocol = asInt(fields.Protocol);
  if (protocol === 6) fields.Protocol = 'tcp';
  else if (protocol === 17) fields.Protocol = 'udp';
  const direction = String(fields.Direction ?? '').toLowerCase();
  // Windows renders the direction as %%14593 (outbound) / %%14592 (inbound) unless resolved.
  if (direction === '%%14593' || direction === 'outbound') fields.Initiated = 'true';
  else if (direction === '%%14592' || direction === 'inbound') fields.Initiated = 'false';
}

function copy(fields: Fields, target: string, source: string): void {
  const value = fields[source];
  if (fields[target] === undefined && value !== undefined && value !== null) fields[target] = value;
}

/** Windows writes process ids as hex (`0x1a2c`) in Security events and as decimal elsewhere. */
function hexOrDecimal(value: unknown): number | null {
  if (typeof value === 'string' && /^0x[0-9a-f]{1,12}$/i.test(value)) return Number.parseInt(value.slice(2), 16);
  return asInt(value);
}

function qualifiedUser(domain: unknown, name: unknown): string | null {
  if (typeof name !== 'string' || name === '' || name === '-') return null;
  return typeof domain === 'string' && domain !== '' && domain !== '-' ? `${domain}\\${name}` : name;
}
