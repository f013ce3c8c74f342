// Sysmon events (Windows and Sysmon for Linux) in the three JSON shapes forwarders produce:
// flat (NXLog, converted Sysmon-for-Linux XML), Winlogbeat/Elastic Agent (`winlog.*`), and XML
// rendered as JSON (`Event.System` + `Event.EventData`). EID 1 → process, EID 3 → network.
import type { LogSource } from './event.js';
import { endpointLogsources, freeze, PORT_FIELDS, productFromPath } from './endpoint.js';
import {
  applyMappings,
  asInt,
  firstString,
  fixedMappings,
  flagText,
  isObject,
  numbersWherePossible,
  setIfPresent,
  type Fields,
} from './fields.js';
import type { Recognised, Recogniser } from './recogniser.js';

const SYSMON = /sysmon/i;
const LINUX_CHANNEL = /^linux/i;
const WINDOWS_CHANNEL = /microsoft-windows/i;

/** The parts of a Sysmon event that differ in place between the shapes. */
interface SysmonHeader {
  eventId: unknown;
  /** Channel or provider name: tells Linux from Windows. */
  channel: string;
  computer: string | undefined;
  endpointId: string | null;
}

/**
 * Elastic's Sysmon integration may move event_data into ECS fields; these fill the Sysmon names
 * a Winlogbeat event lacks.
 */
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

/** Sysmon writes these as 'true'/'false'; converters that made them booleans are undone. */
const FLAG_FIELDS = ['Initiated', 'SourceIsIpv6', 'DestinationIsIpv6'] as const;

const OTHER_LOGSOURCES: Record<'windows' | 'linux', LogSource[]> = {
  windows: freeze([{ product: 'windows', service: 'sysmon' }]),
  linux: freeze([{ product: 'linux', service: 'sysmon' }]),
};

export const sysmonRecogniser: Recogniser = {
  name: 'sysmon',
  recognise(record, fields) {
    let header: SysmonHeader | undefined;
    if (record.EventID !== undefined) header = flatHeader(record);
    else if (isObject(record.winlog)) header = winlogHeader(record.winlog, fields);
    else if (isObject(record.Event)) header = xmlHeader(record.Event, fields);
    if (header === undefined) return undefined;
    return classify(header, fields);
  },
};

function flatHeader(record: Record<string, unknown>): SysmonHeader | undefined {
  const channel = sysmonName(record.Channel) ?? sysmonName(record.SourceName) ?? sysmonName(record.ProviderName);
  if (channel === undefined) return undefined;
  // The event data is already top-level under its Sysmon names. NXLog calls the computer Hostname.
  const computer =
    typeof record.Computer === 'string'
      ? record.Computer
      : typeof record.Hostname === 'string'
        ? record.Hostname
        : undefined;
  return { eventId: record.EventID, channel, computer, endpointId: null };
}

function winlogHeader(winlog: Record<string, unknown>, fields: Fields): SysmonHeader | undefined {
  const channel = sysmonName(winlog.channel) ?? sysmonName(winlog.provider_name);
  if (channel === undefined) return undefined;
  const data = winlog.event_data;
  if (isObject(data)) for (const name in data) setIfPresent(fields, name, data[name]);
  applyMappings(fields, ECS_FALLBACK);
  const computer =
    typeof winlog.computer_name === 'string'
      ? winlog.computer_name
      : firstString(fields, ['host.name', 'host.hostname']);
  const agent = fields['agent.id'];
  return {
    eventId: winlog.event_id ?? fields['event.code'],
    channel,
    computer,
    endpointId: typeof agent === 'string' ? agent : null,
  };
}

function xmlHeader(event: Record<string, unknown>, fields: Fields): SysmonHeader | undefined {
  const system = event.System;
  if (!isObject(system)) return undefined;
  const provider = system.Provider;
  const providerName = isObject(provider) ? (provider['@Name'] ?? provider.Name) : provider;
  const channel = sysmonName(textOf(system.Channel)) ?? sysmonName(providerName);
  if (channel === undefined) return undefined;
  copyEventData(event.EventData, fields);
  const computer = textOf(system.Computer);
  return {
    eventId: textOf(system.EventID),
    channel,
    computer: typeof computer === 'string' ? computer : undefined,
    endpointId: null,
  };
}

/**
 * EventData as converters render it: a name → value map; `{Data: [...]}` or a bare list of
 * `{"@Name"|"Name": …, "#text"|"Value": …}` items; `{Data: {...}}` when there is one item.
 * An empty element (`<Data Name="x"/>`) has no text: it is the empty string, as Windows shows it.
 */
function copyEventData(data: unknown, fields: Fields): void {
  if (isObject(data) && data.Data !== undefined) data = data.Data;
  if (Array.isArray(data)) {
    for (const item of data) copyDataItem(item, fields);
  } else if (isObject(data)) {
    if (data['@Name'] !== undefined || data.Name !== undefined) copyDataItem(data, fields);
    else
      for (const name in data)
        if (name.charCodeAt(0) !== 64 /* @ attributes */) setIfPresent(fields, name, textOf(data[name]));
  }
}

function copyDataItem(item: unknown, fields: Fields): void {
  if (!isObject(item)) return;
  const name = item['@Name'] ?? item.Name;
  if (typeof name !== 'string') return;
  const value = item['#text'] ?? item.Value ?? item['#value'];
  fields[name] =
    value === undefined || value === null
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : (value as string | number | boolean);
}

function classify(header: SysmonHeader, fields: Fields): Recognised {
  const product = LINUX_CHANNEL.test(header.channel)
    ? 'linux'
    : WINDOWS_CHANNEL.test(header.channel)
      ? 'windows'
      : (productFromPath(fields.Image) ?? 'windows');
  const eventId = asInt(header.eventId);
  if (eventId !== null) fields.EventID = eventId;
  if (header.computer !== undefined && fields.Computer === undefined) fields.Computer = header.computer;
  const host = header.computer ?? null;

  if (eventId === 1) {
    return {
      family: 'process',
      logsources: endpointLogsources('process_creation', product, 'sysmon'),
      keywords: typeof fields.CommandLine === 'string' ? fields.CommandLine : '',
      host,
      endpoint: { kind: 'process', format: 'sysmon', endpointId: header.endpointId },
    };
  }
  if (eventId === 3) {
    numbersWherePossible(fields, PORT_FIELDS);
    for (const name of FLAG_FIELDS) {
      const text = flagText(fields[name]);
      if (text !== undefined) fields[name] = text;
    }
    return {
      family: 'network',
      logsources: endpointLogsources('network_connection', product, 'sysmon'),
      keywords: '',
      host,
      endpoint: { kind: 'network', format: 'sysmon', endpointId: header.endpointId },
    };
  }
  return { family: 'other', logsources: OTHER_LOGSOURCES[product], keywords: '', host };
}

function sysmonName(value: unknown): string | undefined {
  return typeof value === 'string' && SYSMON.test(value) ? value : undefined;
}

/** XML-as-JSON puts an element's text beside its attributes: `{"#text": "1", "@Qualifiers": ""}`. */
function textOf(value: unknown): unknown {
  return isObject(value) ? value['#text'] : value;
}
