// Container-runtime wrappers (docs/collector.md, Container wrappers). Docker's json-file
// driver writes `{"log": "<line>\n", "stream": "stdout", "time": "..."}`; the CRI format, as
// parsed by forwarders, gives `{"time", "stream", "logtag", "message"|"log"}`. When a forwarder
// sends the wrapper as is, we store the application's JSON object from inside it (or its plain
// text as `message`) and keep stream, time and logtag as metadata, not as record fields.

import { compactJson } from '../../core/exact-json.js';

const WRAPPER_KEYS = new Set(['log', 'message', 'stream', 'time', 'logtag']);

export interface Unwrapped {
  record: Record<string, unknown>;
  /** The record's JSON text: the application's own line as it wrote it, when it is an object. */
  text: string;
  meta: { stream?: string; time?: string; logtag?: string };
}

/** Returns the unwrapped record, or undefined when `value` is not a runtime wrapper. */
export function unwrapContainerRecord(value: Record<string, unknown>): Unwrapped | undefined {
  // A wrapper always names its stream (json-file, CRI) or its CRI log tag; an application record
  // with only `time` and `message` is a record, not a wrapper.
  if (typeof value.stream !== 'string' && typeof value.logtag !== 'string') return undefined;
  for (const key in value) if (!WRAPPER_KEYS.has(key)) return undefined;
  const payload =
    typeof value.log === 'string' ? value.log : typeof value.message === 'string' ? value.message : undefined;
  if (payload === undefined) return undefined;

  const meta: Unwrapped['meta'] = {};
  if (typeof value.stream === 'string') meta.stream = value.stream;
  if (typeof value.time === 'string') meta.time = value.time;
  if (typeof value.logtag === 'string') meta.logtag = value.logtag;

  const line = payload.replace(/\r?\n$/, '');
  const inner = parseObject(line);
  if (inner) return { record: inner, text: compactJson(line), meta };
  const record = { message: line };
  return { record, text: JSON.stringify(record), meta };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    // Text that merely starts with "{" is plain text to keep as the message, not an error.
    return undefined;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
