// Names for the positional event data (StringInserts) that Fluent Bit's winevtlog input sends,
// taken from the events' published templates (Sysmon's schema, the Security, Eventlog, Service
// Control Manager and PowerShell manifests). Events not listed keep their inserts as the
// multi-valued `Data`, and their `Message`.

const SYSMON_PROCESS_CREATE = [
  'RuleName',
  'UtcTime',
  'ProcessGuid',
  'ProcessId',
  'Image',
  'FileVersion',
  'Description',
  'Product',
  'Company',
  'OriginalFileName',
  'CommandLine',
  'CurrentDirectory',
  'User',
  'LogonGuid',
  'LogonId',
  'TerminalSessionId',
  'IntegrityLevel',
  'Hashes',
  'ParentProcessGuid',
  'ParentProcessId',
  'ParentImage',
  'ParentCommandLine',
  'ParentUser',
];
const SYSMON_NETWORK_CONNECT = [
  'RuleName',
  'UtcTime',
  'ProcessGuid',
  'ProcessId',
  'Image',
  'User',
  'Protocol',
  'Initiated',
  'SourceIsIpv6',
  'SourceIp',
  'SourceHostname',
  'SourcePort',
  'SourcePortName',
  'DestinationIsIpv6',
  'DestinationIp',
  'DestinationHostname',
  'DestinationPort',
  'DestinationPortName',
];
const SYSMON_FILE_CREATE = [
  'RuleName',
  'UtcTime',
  'ProcessGuid',
  'ProcessId',
  'Image',
  'TargetFilename',
  'CreationUtcTime',
  'User',
];
const SYSMON_REGISTRY_SET = [
  'RuleName',
  'EventType',
  'UtcTime',
  'ProcessGuid',
  'ProcessId',
  'Image',
  'TargetObject',
  'Details',
  'User',
];
const SYSMON_IMAGE_LOAD = [
  'RuleName',
  'UtcTime',
  'ProcessGuid',
  'ProcessId',
  'Image',
  'ImageLoaded',
  'FileVersion',
  'Description',
  'Product',
  'Company',
  'OriginalFileName',
  'Hashes',
  'Signed',
  'Signature',
  'SignatureStatus',
  'User',
];
const SYSMON_DNS_QUERY = [
  'RuleName',
  'UtcTime',
  'ProcessGuid',
  'ProcessId',
  'QueryName',
  'QueryStatus',
  'QueryResults',
  'Image',
  'User',
];
const SYSMON_WMI_FILTER = ['RuleName', 'EventType', 'UtcTime', 'Operation', 'User', 'EventNamespace', 'Name', 'Query'];
const SYSMON_WMI_CONSUMER = ['RuleName', 'EventType', 'UtcTime', 'Operation', 'User', 'Name', 'Type', 'Destination'];
const SYSMON_WMI_BINDING = ['RuleName', 'EventType', 'UtcTime', 'Operation', 'User', 'Consumer', 'Filter'];
const SECURITY_PROCESS_CREATE = [
  'SubjectUserSid',
  'SubjectUserName',
  'SubjectDomainName',
  'SubjectLogonId',
  'NewProcessId',
  'NewProcessName',
  'TokenElevationType',
  'ProcessId',
  'CommandLine',
  'TargetUserSid',
  'TargetUserName',
  'TargetDomainName',
  'TargetLogonId',
  'ParentProcessName',
  'MandatoryLabel',
];
/** Security 1102 (Microsoft-Windows-Eventlog): UserData's LogFileCleared element. */
const SECURITY_LOG_CLEARED = ['SubjectUserSid', 'SubjectUserName', 'SubjectDomainName', 'SubjectLogonId'];
const SYSTEM_SERVICE_INSTALLED = ['ServiceName', 'ImagePath', 'ServiceType', 'StartType', 'AccountName'];
const POWERSHELL_SCRIPT_BLOCK = ['MessageNumber', 'MessageTotal', 'ScriptBlockText', 'ScriptBlockId', 'Path'];
const POWERSHELL_MODULE = ['ContextInfo', 'UserData', 'Payload'];

const TEMPLATES = new Map<string, readonly string[]>([
  ['sysmon|1', SYSMON_PROCESS_CREATE],
  ['sysmon|3', SYSMON_NETWORK_CONNECT],
  ['sysmon|7', SYSMON_IMAGE_LOAD],
  ['sysmon|11', SYSMON_FILE_CREATE],
  ['sysmon|13', SYSMON_REGISTRY_SET],
  ['sysmon|19', SYSMON_WMI_FILTER],
  ['sysmon|20', SYSMON_WMI_CONSUMER],
  ['sysmon|21', SYSMON_WMI_BINDING],
  ['sysmon|22', SYSMON_DNS_QUERY],
  ['security|1102', SECURITY_LOG_CLEARED],
  ['security|4688', SECURITY_PROCESS_CREATE],
  ['system|7045', SYSTEM_SERVICE_INSTALLED],
  ['microsoft-windows-powershell/operational|4104', POWERSHELL_SCRIPT_BLOCK],
  ['microsoft-windows-powershell/operational|4103', POWERSHELL_MODULE],
]);

/** The insert names of an event, or undefined when its template is not listed. */
export function insertNames(channel: string, eventId: unknown): readonly string[] | undefined {
  const lower = channel.toLowerCase();
  const key = lower.includes('sysmon') ? 'sysmon' : lower;
  return TEMPLATES.get(`${key}|${String(eventId)}`);
}
