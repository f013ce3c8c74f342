// Windows event logs in the JSON shapes forwarders send, read into one header (event id,
// channel, provider, computer) with the event data copied to top-level fields under their
// Windows names. docs/telemetry-mapping.md shows an example of each shape:
//   - evtx rendered as JSON: {"Event": {"System": {...}, "EventData": {...}}}
//   - Winlogbeat / Elastic Agent: {"winlog": {"channel", "event_id", "provider_name", "event_data": {...}}, ECS…}
//   - NXLog im_msvistalog: flat EventID, Channel, SourceName, Hostname, event data top-level
//   - Fluent Bit winevtlog: flat EventID, Channel, ProviderName, Computer, positional StringInserts
//   - flat EventID / Channel / Provider_Name (evtx converters, SIEM exports)
import { applyMappings, fixedMappings, isObject, setIfPresent, type Fields } from './fields.js';
import { insertNames } from './windows-inserts.js';

export type WindowsShape = 'evtx_json' | 'winlogbeat' | 'nxlog' | 'fluentbit' | 'flat';

export interface WindowsHeader {
  shape: WindowsShape;
  eventId: unknown;
  /** The channel as written (`Microsoft-Windows-Sysmon/Operational`); empty when only the provider is known. */
  channel: string;
  provider: string;
  computer: string | undefined;
  endpointId: string | null;
}

/** Elastic's integrations may move event data into ECS fields; these fill the Windows names an event lacks. */
const ECS_FALLBACK = fixedMappings([
  ['Image', 'process.executable'],
  ['CommandLine', 'process.command_line'],
  ['ProcessId', 'process.pid'],
  ['ParentImage', 'process.parent.executable'],
  ['ParentCommandLine', 'process.parent.command_line'],
  ['ParentProcessId', 'process.parent.pid'],
  ['CurrentDirectory', 'process.working_directory'],
  ['User', 'user.name'],
  ['SourceIp', 'source.ip'],
  ['SourcePort', 'source.port'],
  ['DestinationIp', 'destination.ip'],
  ['DestinationPort', 'destination.port'],
  ['DestinationHostname', 'destination.domain'],
  ['Protocol', 'network.transport'],
]);

/** Reads a Windows event in any known shape; undefined when the record is none of them. */
export function readWindowsHeader(record: Record<string, unknown>, fields: Fields): WindowsHeader | undefined {
  if (record.EventID !== undefined) {
    const flat = flatHeader(record, fields);
    if (flat !== undefined) return flat;
  }
  if (isObject(record.winlog)) return winlogHeader(record.winlog, fields);
  if (isObject(record.Event)) return evtxHeader(record.Event, fields);
  return undefined;
}

function flatHeader(record: Record<string, unknown>, fields: Fields): WindowsHeader | undefined {
  const channel = text(record.Channel);
  const provider = text(record.Provider_Name) ?? text(record.ProviderName) ?? text(record.SourceName);
  if (channel === undefined && provider === undefined) return undefined;
  let shape: WindowsShape = 'flat';
  if (Array.isArray(record.StringInserts)) {
    shape = 'fluentbit';
    copyInserts(record.StringInserts, channel ?? provider ?? '', record.EventID, fields);
  } else if (record.SourceName !== undefined && record.Hostname !== undefined) shape = 'nxlog';
  // NXLog calls the computer Hostname; the others Computer.
  const computer = text(record.Computer) ?? text(record.Hostname);
  return { shape, eventId: record.EventID, channel: channel ?? '', provider: provider ?? '', computer, endpointId: null };
}

function winlogHeader(winlog: Record<string, unknown>, fields: Fields): WindowsHeader | undefined {
  const channel = text(winlog.channel);
  const provider = text(winlog.provider_name);
  if (channel === undefined && provider === undefined) return undefined;
  for (const part of [winlog.event_data, winlog.user_data]) {
    if (isObject(part)) for (const name in part) setIfPresent(fields, name, part[name]);
  }
  applyMappings(fields, ECS_FALLBACK);
  const agent = fields['agent.id'];
  return {
    shape: 'winlogbeat',
    eventId: winlog.event_id ?? fields['event.code'],
    channel: channel ?? '',
    provider: provider ?? '',
    computer: text(winlog.computer_name) ?? text(fields['host.name']) ?? text(fields['host.hostname']),
    endpointId: typeof agent === 'string' ? agent : null,
  };
}

function evtxHeader(event: Record<string, unknown>, fields: Fields): WindowsHeader | undefined {
  const system = event.System;
  if (!isObject(system)) return undefined;
  const providerValue = system.Provider;
  const provider = text(isObject(providerValue) ? (providerValue['@Name'] ?? providerValue.Name) : providerValue);
  const channel = text(textOf(system.Channel));
  if (channel === undefined && provider === undefined) return undefined;
  copyEventData(event.EventData, fields);
  copyEventData(event.UserData, fields);
  return {
    shape: 'evtx_json',
    eventId: textOf(system.EventID),
    channel: channel ?? '',
    provider: provider ?? '',
    computer: text(textOf(system.Computer)),
    endpointId: null,
  };
}

/**
 * EventData as converters render it: a name → value map; `{Data: [...]}` or a bare list of
 * `{"@Name"|"Name": …, "#text"|"Value": …}` items; `{Data: {...}}` when there is one item.
 * An empty element (`<Data Name="x"/>`) is the empty string, as Windows shows it. Items without
 * a name (classic PowerShell, many services) are joined, one per line, into `Data`.
 */
function copyEventData(data: unknown, fields: Fields): void {
  if (isObject(data) && data.Data !== undefined) data = data.Data;
  const unnamed: string[] = [];
  if (Array.isArray(data)) {
    for (const item of data) copyDataItem(item, fields, unnamed);
  } else if (isObject(data)) {
    if (data['@Name'] !== undefined || data.Name !== undefined || data['#text'] !== undefined)
      copyDataItem(data, fields, unnamed);
    else
      for (const name in data) {
        // `@` attributes are markup; a nested element (UserData's one child) is read through.
        if (name.charCodeAt(0) === 64) continue;
        const value = data[name];
        if (isObject(value) && value['#text'] === undefined) copyEventData(value, fields);
        else setIfPresent(fields, name, textOf(value));
      }
  } else if (typeof data === 'string') unnamed.push(data);
  if (unnamed.length > 0 && fields.Data === undefined) fields.Data = unnamed.join('\n');
}

function copyDataItem(item: unknown, fields: Fields, unnamed: string[]): void {
  if (typeof item === 'string') {
    unnamed.push(item);
    return;
  }
  if (!isObject(item)) return;
  const name = item['@Name'] ?? item.Name;
  const value = item['#text'] ?? item.Value ?? item['#value'];
  if (typeof name !== 'string') {
    if (typeof value === 'string') unnamed.push(value);
    return;
  }
  fields[name] =
    value === undefined || value === null
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : (value as string | number | boolean);
}

/** Fluent Bit sends event data by position; the documented templates name the positions. */
function copyInserts(inserts: unknown[], channel: string, eventId: unknown, fields: Fields): void {
  const names = insertNames(channel, eventId);
  const unnamed: string[] = [];
  inserts.forEach((value, index) => {
    const name = names?.[index];
    if (name === undefined) {
      if (typeof value === 'string') unnamed.push(value);
    } else setIfPresent(fields, name, value);
  });
  if (unnamed.length > 0 && fields.Data === undefined) fields.Data = unnamed.join('\n');
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** XML-as-JSON puts an element's text beside its attributes: `{"#text": "1", "@Qualifiers": ""}`. */
function textOf(value: unknown): unknown {
  return isObject(value) ? value['#text'] : value;
}
