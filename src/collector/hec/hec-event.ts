// Turns HEC events into stored records (docs/collector.md, Splunk HEC). The event itself is the
// record, exactly as the same object sent to /log_sink would be, so recognisers and Sigma rules
// see the same fields; HEC's metadata (host, source, sourcetype, index, fields, time) is added
// under the reserved key `hec`, where search can reach it.
import { AppError } from '../../core/errors.js';
import { compactJson } from '../../core/exact-json.js';
import { eventTimeOf, parseTime } from '../intake/event-time.js';
import type { ParsedBody } from '../intake/parse.js';
import { isPlainObject } from '../intake/unwrap.js';
import { invalidEvent, memberTexts, type StreamObject } from './hec-stream.js';

/** The key of a record under which HEC's metadata is kept. */
export const HEC_KEY = 'hec';

/** The metadata names HEC takes per event, and per request from the query string. */
export const METADATA_NAMES = ['host', 'source', 'sourcetype', 'index'] as const;
export type HecDefaults = Partial<Record<(typeof METADATA_NAMES)[number] | 'time', string>>;

/** What one event becomes before it is stored. */
interface Mapped {
  /** The event's record text, without the metadata. */
  text: string;
  /** The record as an object, when the event was one (for its own time and the reserved key). */
  record: Record<string, unknown> | undefined;
}

export function emptyParsedBody(): ParsedBody {
  return { records: [], eventTimes: [], metas: [], bytes: 0 };
}

/** Adds one event envelope of /services/collector/event; throws HEC's error naming it. */
export function addEnvelope(parsed: ParsedBody, envelope: StreamObject, number: number, defaults: HecDefaults): void {
  const { value } = envelope;
  const members = memberTexts(envelope.text);
  const eventText = members.get('event');
  if (eventText === undefined || value.event === null) {
    throw new AppError('hec_event_missing', `event ${number}: has no "event" member`, {
      extensions: { event_number: number },
    });
  }
  if (isBlank(value.event)) {
    throw new AppError('hec_event_blank', `event ${number}: "event" is empty`, {
      extensions: { event_number: number },
    });
  }
  const mapped = mapEvent(value.event, eventText);
  const metadata: string[] = [];
  for (const name of METADATA_NAMES) {
    const given = value[name];
    if (given !== undefined && given !== null && typeof given !== 'string')
      throw invalidEvent(number, `"${name}" must be a string`);
    const chosen = given ?? defaults[name];
    if (chosen !== undefined) metadata.push(`${JSON.stringify(name)}:${JSON.stringify(chosen)}`);
  }
  const fieldsText = members.get('fields');
  if (fieldsText !== undefined && value.fields !== null) {
    if (!isPlainObject(value.fields)) throw invalidEvent(number, '"fields" must be a JSON object');
    metadata.push(`"fields":${compactJson(fieldsText)}`);
  }
  const timeText = members.get('time');
  const time = timeText !== undefined && value.time !== null ? value.time : defaults.time;
  const hecTime = time === undefined ? undefined : parseTime(time);
  if (time !== undefined && hecTime === undefined) throw invalidEvent(number, '"time" is not epoch seconds');
  if (timeText !== undefined && value.time !== null) metadata.push(`"time":${timeText}`);
  addRecord(parsed, mapped, metadata, hecTime);
}

/** Adds one line of /services/collector/raw, with the request's metadata. */
export function addRawLine(parsed: ParsedBody, line: string, defaults: HecDefaults): void {
  const metadata: string[] = [];
  for (const name of METADATA_NAMES) {
    const chosen = defaults[name];
    if (chosen !== undefined) metadata.push(`${JSON.stringify(name)}:${JSON.stringify(chosen)}`);
  }
  const hecTime = defaults.time === undefined ? undefined : parseTime(defaults.time);
  addRecord(parsed, textEvent(line), metadata, hecTime);
}

/** Whether an event value carries nothing: an empty or white-space string, or an empty object. */
function isBlank(event: unknown): boolean {
  if (typeof event === 'string') return event.trim() === '';
  return isPlainObject(event) && Object.keys(event).length === 0;
}

function mapEvent(event: unknown, eventText: string): Mapped {
  if (isPlainObject(event)) return { text: compactJson(eventText), record: event };
  if (typeof event === 'string') return textEvent(event);
  // A number, boolean or array: kept as the message, digits and all.
  return { text: `{"message":${compactJson(eventText)}}`, record: undefined };
}

/**
 * A text event: a JSON object written as text (a forwarder that serialised the record, a raw
 * line of JSON) is stored as that object, as /log_sink would store the line; other text as
 * `{"message": <text>}`, the form the collector gives any plain line.
 */
function textEvent(text: string): Mapped {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const record = parseObjectText(trimmed);
    if (record) return { text: compactJson(trimmed), record };
  }
  return { text: JSON.stringify({ message: text }), record: undefined };
}

function parseObjectText(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    // Text that merely starts with "{" is a message like any other, not an error.
    return undefined;
  }
}

function addRecord(parsed: ParsedBody, mapped: Mapped, metadata: string[], hecTime: number | undefined): void {
  const eventTime = hecTime ?? (mapped.record ? eventTimeOf(mapped.record) : undefined) ?? Number.NaN;
  let text = mapped.text;
  let meta: string | null = null;
  if (metadata.length > 0) {
    const hec = `{${metadata.join(',')}}`;
    // An event with a `hec` member of its own keeps it; the metadata goes beside the record then.
    if (mapped.record && HEC_KEY in mapped.record) meta = `{"${HEC_KEY}":${hec}}`;
    else text = text === '{}' ? `{"${HEC_KEY}":${hec}}` : `${text.slice(0, -1)},"${HEC_KEY}":${hec}}`;
  }
  parsed.records.push(text);
  parsed.eventTimes.push(eventTime);
  parsed.metas.push(meta);
  parsed.bytes += text.length + (meta?.length ?? 0);
}
