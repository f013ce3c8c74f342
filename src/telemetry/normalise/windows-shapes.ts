// Windows event logs in the JSON shapes forwarders send, read into one header (event id,
// channel, provider, computer) with the event data copied to top-level fields under their
// Windows names. docs/telemetry-mapping.md shows an example of each shape:
//   - evtx rendered as JSON: {"Event": {"System": {...}, "EventData": {...}}}
//   - Winlogbeat / Elastic Agent: {"winlog": {"channel", "event_id", "provider_name", "event_data": {...}}, ECS…}
//   - NXLog im_msvistalog: flat EventID, Channel, SourceName, Hostname, event data top-level
//   - Fluent Bit winevtlog: flat EventID, Channel, ProviderName, Computer, positional StringInserts
//   - flat EventID / Channel / Provider_Name (evtx converters, SIEM exports)
import { applyMappings, asInt, fixedMappings, isObject, setIfPresent, type Fields } from './fields.js';
import {
  copyEventData,
  normaliseDataField,
  setUnnamed,
  unnamedValues,
  winlogbeatParams,
} from './windows-event-data.js';
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
    // Fluent Bit's `winlog` input (the classic API) sends the event's binary data as `Data`.
    if (record.ComputerName !== undefined && fields.Binary === undefined && fields.Data !== undefined) {
      fields.Binary = fields.Data;
      delete fields.Data;
    }
    copyInserts(record.StringInserts, channel ?? provider ?? '', record.EventID, fields);
  } else {
    if (record.SourceName !== undefined && record.Hostname !== undefined) shape = 'nxlog';
    normaliseDataField(fields);
  }
  setSid(fields, record.UserID);
  // NXLog calls the computer Hostname, Fluent Bit's `winlog` input ComputerName; the others Computer.
  const computer = text(record.Computer) ?? text(record.Hostname) ?? text(record.ComputerName);
  return {
    shape,
    eventId: record.EventID,
    channel: channel ?? '',
    provider: provider ?? '',
    computer,
    endpointId: null,
  };
}

function winlogHeader(winlog: Record<string, unknown>, fields: Fields): WindowsHeader | undefined {
  const channel = text(winlog.channel);
  const provider = text(winlog.provider_name);
  if (channel === undefined && provider === undefined) return undefined;
  const eventData = winlog.event_data;
  if (isObject(eventData)) {
    for (const name in eventData) setIfPresent(fields, name, eventData[name]);
    setUnnamed(fields, winlogbeatParams(eventData));
  }
  const userData = winlog.user_data;
  if (isObject(userData)) for (const name in userData) setIfPresent(fields, name, userData[name]);
  applyMappings(fields, ECS_FALLBACK);
  setSid(fields, fields['winlog.user.identifier']);
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

/**
 * The event XML as JSON. Attributes are `@Name` (xmltodict, over python-evtx's XML), `#attributes`
 * (evtx_dump) or a sibling `Provider_attributes` (evtx_dump --separate-json-attributes); the
 * System attributes become Sigma's `Element_Attribute` names (`Provider_Name`, `Security_UserID`).
 */
function evtxHeader(event: Record<string, unknown>, fields: Fields): WindowsHeader | undefined {
  const system = event.System;
  if (!isObject(system)) return undefined;
  const provider = text(
    systemAttribute(system, 'Provider', 'Provider_attributes', '@Name', 'Name') ??
      (isObject(system.Provider) ? undefined : system.Provider),
  );
  const channel = text(textOf(system.Channel));
  if (channel === undefined && provider === undefined) return undefined;
  copyEventData(event.EventData, fields);
  copyEventData(event.UserData, fields);
  setSystemAttributes(system, fields);
  return {
    shape: 'evtx_json',
    eventId: textOf(system.EventID),
    channel: channel ?? '',
    provider: provider ?? '',
    computer: text(textOf(system.Computer)),
    endpointId: null,
  };
}

function setSystemAttributes(system: Record<string, unknown>, fields: Fields): void {
  setText(fields, 'Provider_Guid', systemAttribute(system, 'Provider', 'Provider_attributes', '@Guid', 'Guid'));
  setSid(fields, systemAttribute(system, 'Security', 'Security_attributes', '@UserID', 'UserID'));
  const pid = systemAttribute(system, 'Execution', 'Execution_attributes', '@ProcessID', 'ProcessID');
  const tid = systemAttribute(system, 'Execution', 'Execution_attributes', '@ThreadID', 'ThreadID');
  // evtx_dump writes them as numbers and xmltodict as text: numbers, as Sigma compares them.
  setIfPresent(fields, 'Execution_ProcessID', asInt(pid) ?? pid);
  setIfPresent(fields, 'Execution_ThreadID', asInt(tid) ?? tid);
}

/** An attribute of a System element in any of the three spellings. */
function systemAttribute(
  system: Record<string, unknown>,
  element: string,
  separate: string,
  at: string,
  bare: string,
): unknown {
  const value = system[element];
  if (isObject(value)) {
    const direct = value[at] ?? value[bare];
    if (direct !== undefined) return direct;
    const attributes = value['#attributes'];
    if (isObject(attributes) && attributes[bare] !== undefined) return attributes[bare];
  }
  const attributes = system[separate];
  return isObject(attributes) ? attributes[bare] : undefined;
}

/** Fluent Bit sends event data by position; the documented templates name the positions. */
function copyInserts(inserts: unknown[], channel: string, eventId: unknown, fields: Fields): void {
  const names = insertNames(channel, eventId) ?? NO_NAMES;
  const named = Math.min(names.length, inserts.length);
  for (let index = 0; index < named; index++) {
    const name = names[index];
    if (name !== undefined) setIfPresent(fields, name, inserts[index]);
  }
  if (inserts.length > named) setUnnamed(fields, unnamedValues(inserts, named));
}

const NO_NAMES: readonly string[] = [];

/**
 * The user the event was logged under, as SigmaHQ's common Windows field `Security_UserID`: a
 * SID, as the rules write it. Fluent Bit resolves it to `DOMAIN\\account` when it can; that stays
 * only in its own `UserID`.
 */
function setSid(fields: Fields, value: unknown): void {
  if (typeof value === 'string' && value.startsWith('S-1-')) setText(fields, 'Security_UserID', value);
}

function setText(fields: Fields, name: string, value: unknown): void {
  if (typeof value === 'string' && value !== '' && fields[name] === undefined) fields[name] = value;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** XML-as-JSON puts an element's text beside its attributes: `{"#text": "1", "@Qualifiers": ""}`. */
function textOf(value: unknown): unknown {
  return isObject(value) ? value['#text'] : value;
}
