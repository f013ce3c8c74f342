// One stored record per OTLP LogRecord (docs/collector.md, OTLP). A body that is a map, or a
// string holding a JSON object, becomes the record itself, so a Windows or CloudTrail event sent
// over OTLP reads (and is detected) as it would through /log_sink; the OTLP context (times,
// severity, ids, attributes, resource, scope) sits beside it under the reserved key `otlp`.
import { compactJson } from '../../core/exact-json.js';
import { eventTimeOf } from '../intake/event-time.js';
import { MAX_NESTING_DEPTH, type ParsedBody } from '../intake/parse.js';
import { isPlainObject } from '../intake/unwrap.js';
import {
  anyValueText,
  badData,
  field,
  idText,
  integerText,
  keyValuesText,
  listField,
  NestedTooDeep,
  nestsDeeper,
  numberField,
  objectField,
  stringField,
  type Json,
} from './otlp-values.js';

export const OTLP_KEY = 'otlp';

export interface MappedLogs extends ParsedBody {
  /** LogRecords refused one by one (too large, nested too deep): OTLP's partial success. */
  rejected: number;
  /** Why the first of them was refused, for the partial success's error_message. */
  rejection: string;
}

export interface MapOptions {
  maxRecordBytes: number;
  /** How the request carries trace and span ids: OTLP/JSON in hex, protobuf as bytes (base64 here). */
  ids: 'hex' | 'base64';
}

const NANOS_PER_MS = 1_000_000n;

/** Maps an ExportLogsServiceRequest (OTLP/JSON's shape) to records; throws invalid_otlp on bad data. */
export function mapExportRequest(request: unknown, options: MapOptions): MappedLogs {
  if (!isPlainObject(request)) throw badData('the body must be an ExportLogsServiceRequest object');
  const mapped: MappedLogs = { records: [], eventTimes: [], metas: [], bytes: 0, rejected: 0, rejection: '' };
  for (const resourceLogs of listField(request, 'resourceLogs', 'resource_logs')) {
    if (!isPlainObject(resourceLogs)) throw badData('resourceLogs must hold objects');
    const resource = shallowEnough(() => resourceText(resourceLogs), 'resource');
    for (const scopeLogs of listField(resourceLogs, 'scopeLogs', 'scope_logs')) {
      if (!isPlainObject(scopeLogs)) throw badData('scopeLogs must hold objects');
      const context = { resource, scope: shallowEnough(() => scopeText(scopeLogs), 'scope') };
      for (const logRecord of listField(scopeLogs, 'logRecords', 'log_records')) {
        if (!isPlainObject(logRecord)) throw badData('logRecords must hold objects');
        addRecord(mapped, logRecord, context, options);
      }
    }
  }
  return mapped;
}

/** Resource and scope attributes nested too deep spoil every record under them: bad data. */
function shallowEnough(text: () => string, what: string): string {
  try {
    return text();
  } catch (error) {
    if (error instanceof NestedTooDeep)
      throw badData(`${what} attributes nest deeper than ${MAX_NESTING_DEPTH} levels`);
    throw error;
  }
}

interface Context {
  resource: string;
  scope: string;
}

function addRecord(mapped: MappedLogs, logRecord: Json, context: Context, options: MapOptions): void {
  const number = mapped.records.length + mapped.rejected + 1;
  let stored: StoredText;
  try {
    stored = recordText(field(logRecord, 'body', 'body'), otlpText(logRecord, context, options));
  } catch (error) {
    if (!(error instanceof NestedTooDeep)) throw error;
    reject(mapped, `log record ${number} nests deeper than ${MAX_NESTING_DEPTH} levels`);
    return;
  }
  const bytes = Buffer.byteLength(stored.text);
  if (bytes > options.maxRecordBytes) {
    reject(
      mapped,
      `log record ${number} is ${bytes} bytes as stored; the largest accepted record is ${options.maxRecordBytes} bytes`,
    );
    return;
  }
  mapped.records.push(stored.text);
  mapped.eventTimes.push(eventTime(logRecord, stored));
  mapped.metas.push(null);
  mapped.bytes += stored.text.length;
}

function reject(mapped: MappedLogs, why: string): void {
  if (mapped.rejected === 0) mapped.rejection = why;
  mapped.rejected++;
}

interface StoredText {
  text: string;
  /** Whether the body's members are the record's: then its own time field counts. */
  objectBody: boolean;
  /** The body as parsed, when it came as JSON text. */
  parsed?: Json;
}

/**
 * The record's text: the body's members and `otlp` when the body is a map (or a JSON object in a
 * string) without its own `otlp` member; else `message` (a string body) or `body` (any other).
 */
function recordText(value: unknown, otlp: string): StoredText {
  const object = objectBody(value);
  if (object) {
    const members = object.text.slice(1, -1);
    const text = `{${members}${members === '' ? '' : ','}"${OTLP_KEY}":${otlp}}`;
    return { text, objectBody: true, ...(object.parsed ? { parsed: object.parsed } : {}) };
  }
  if (value === undefined || value === null) return { text: `{"${OTLP_KEY}":${otlp}}`, objectBody: false };
  const stringValue = isPlainObject(value) ? field(value, 'stringValue', 'string_value') : undefined;
  const name = typeof stringValue === 'string' ? 'message' : 'body';
  return { text: `{"${name}":${anyValueText(value)},"${OTLP_KEY}":${otlp}}`, objectBody: false };
}

/** The body as a JSON object's text when it is one; `parsed` only when it came as a string (for its time). */
function objectBody(value: unknown): { text: string; parsed?: Json } | undefined {
  if (!isPlainObject(value)) return undefined;
  const kvlist = objectField(value, 'kvlistValue', 'kvlist_value');
  if (kvlist) {
    const pairs = listField(kvlist, 'values', 'values');
    if (pairs.some((pair) => isPlainObject(pair) && pair.key === OTLP_KEY)) return undefined;
    return { text: `{${keyValuesText(pairs, 1)}}` };
  }
  const text = field(value, 'stringValue', 'string_value');
  if (typeof text !== 'string' || !text.trimStart().startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // A message that merely starts with "{" is text, stored as the message.
    return undefined;
  }
  if (!isPlainObject(parsed) || OTLP_KEY in parsed) return undefined;
  if (nestsDeeper(parsed, MAX_NESTING_DEPTH)) throw new NestedTooDeep();
  // Kept as written, numbers and all; only the whitespace between tokens goes.
  return { text: compactJson(text.trim()), parsed };
}

/**
 * The record's time: its own (time_unix_nano), else the time field of a JSON body as /log_sink
 * would read it, else when the OTLP pipeline first saw it (observed_time_unix_nano), else none
 * (NaN: the receive time). A map body's time is read from the stored text, only when needed.
 */
function eventTime(logRecord: Json, stored: StoredText): number {
  const own = nanosToMs(field(logRecord, 'timeUnixNano', 'time_unix_nano'));
  if (own !== undefined) return own;
  if (stored.objectBody) {
    const fromBody = eventTimeOf(stored.parsed ?? (JSON.parse(stored.text) as Json));
    if (fromBody !== undefined) return fromBody;
  }
  return nanosToMs(field(logRecord, 'observedTimeUnixNano', 'observed_time_unix_nano')) ?? Number.NaN;
}

/** Epoch ms from a fixed64 of nanoseconds; 0 (OTLP's "unknown") and absence are undefined. */
function nanosToMs(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const nanos = BigInt(integerText(value, 'time_unix_nano', true));
  return nanos === 0n ? undefined : Number(nanos / NANOS_PER_MS);
}

/** The `otlp` member: the LogRecord's own fields and its resource and scope, empty ones left out. */
function otlpText(logRecord: Json, context: Context, options: MapOptions): string {
  const members: string[] = [];
  const add = (name: string, text: string) => members.push(`"${name}":${text}`);
  for (const [camel, snake] of [
    ['timeUnixNano', 'time_unix_nano'],
    ['observedTimeUnixNano', 'observed_time_unix_nano'],
  ] as const) {
    const value = field(logRecord, camel, snake);
    if (value !== undefined && value !== null) add(snake, JSON.stringify(integerText(value, snake, true)));
  }
  const severityNumber = numberField(logRecord, 'severityNumber', 'severity_number');
  if (severityNumber !== 0) add('severity_number', String(severityNumber));
  addString(add, 'severity_text', stringField(logRecord, 'severityText', 'severity_text'));
  addString(add, 'event_name', stringField(logRecord, 'eventName', 'event_name'));
  addString(add, 'trace_id', idText(field(logRecord, 'traceId', 'trace_id'), 'traceId', options.ids));
  addString(add, 'span_id', idText(field(logRecord, 'spanId', 'span_id'), 'spanId', options.ids));
  const flags = numberField(logRecord, 'flags', 'flags');
  if (flags !== 0) add('flags', String(flags));
  addAttributes(add, logRecord);
  if (context.resource !== '{}') add('resource', context.resource);
  if (context.scope !== '{}') add('scope', context.scope);
  return `{${members.join(',')}}`;
}

type Add = (name: string, text: string) => void;

function addString(add: Add, name: string, value: string): void {
  if (value !== '') add(name, JSON.stringify(value));
}

/** `attributes` as an object (one member per key) and `dropped_attributes_count` when not 0. */
function addAttributes(add: Add, object: Json): void {
  const attributes = listField(object, 'attributes', 'attributes');
  if (attributes.length > 0) add('attributes', `{${keyValuesText(attributes, 1)}}`);
  const dropped = numberField(object, 'droppedAttributesCount', 'dropped_attributes_count');
  if (dropped !== 0) add('dropped_attributes_count', String(dropped));
}

function resourceText(resourceLogs: Json): string {
  const members: string[] = [];
  const add: Add = (name, text) => members.push(`"${name}":${text}`);
  const resource = objectField(resourceLogs, 'resource', 'resource');
  if (resource) addAttributes(add, resource);
  addString(add, 'schema_url', stringField(resourceLogs, 'schemaUrl', 'schema_url'));
  return `{${members.join(',')}}`;
}

function scopeText(scopeLogs: Json): string {
  const members: string[] = [];
  const add: Add = (name, text) => members.push(`"${name}":${text}`);
  const scope = objectField(scopeLogs, 'scope', 'scope');
  if (scope) {
    addString(add, 'name', stringField(scope, 'name', 'name'));
    addString(add, 'version', stringField(scope, 'version', 'version'));
    addAttributes(add, scope);
  }
  addString(add, 'schema_url', stringField(scopeLogs, 'schemaUrl', 'schema_url'));
  return `{${members.join(',')}}`;
}
