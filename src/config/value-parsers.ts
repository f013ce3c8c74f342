// Value parsers for settings: each turns the raw text of a flag or environment variable into a
// typed value, or throws an Error whose message completes "<setting> …" in the start-up error,
// so a parser says what a valid value looks like and the loader adds where the value came from.
import fs from 'node:fs';
import path from 'node:path';
import { isIP } from 'node:net';

export const MiB = 1024 * 1024;

export type SummaryProviderName = 'builtin' | 'openai' | 'anthropic';
export type MonitoringSink = 'local' | 'otlp' | 'none';
export type CaseGrouping = 'device' | 'device_rule';
export type OnOff = 'on' | 'off';

/** Free text, taken as given (paths and URLs whose validity only their user can judge). */
export function text(raw: string): string {
  return raw;
}

export function integer(min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    // Digits only: Number() alone would also accept '', '0x10', '1e3' and ' 12 '.
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(`must be an integer from ${min} to ${max}`);
    }
    return value;
  };
}

/** A size in bytes: a bare number, or one with a binary unit (`512KiB`, `10MiB`, `1G`). */
/** A parser that also says how to print its values back, for the defaults `--help` shows. */
function withShow<R>(
  parse: (raw: string) => R,
  show: (value: R) => string,
): ((raw: string) => R) & { show: (value: R) => string } {
  return Object.assign(parse, { show });
}

/** 10485760 → "10MiB", 1536 → "1536" (bytes), as the size parser reads them back. */
export function showBytes(value: number): string {
  for (const [unit, factor] of [
    ['GiB', 1024 * MiB],
    ['MiB', MiB],
    ['KiB', 1024],
  ] as const) {
    if (value >= factor && value % factor === 0) return `${value / factor}${unit}`;
  }
  return String(value);
}

/** 900000 → "15m", 86400000 → "1d", 1500 → "1500ms"... as the span parser reads them back. */
export function showDuration(ms: number): string {
  if (ms === 0) return '0s';
  for (const [unit, factor] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms % factor === 0) return `${ms / factor}${unit}`;
  }
  return `${ms / 1000}s`;
}

export function bytes(min: number) {
  return withShow((raw: string): number => {
    const match = /^(\d+)\s*(b|kb|kib|k|mb|mib|m|gb|gib|g)?$/i.exec(raw.trim());
    if (!match) throw new Error('must be a size such as 1048576, 512KiB or 10MiB');
    const unit = (match[2] ?? 'b').toLowerCase();
    const factor = unit.startsWith('g') ? 1024 * MiB : unit.startsWith('m') ? MiB : unit.startsWith('k') ? 1024 : 1;
    const value = Number(match[1]) * factor;
    if (value < min) throw new Error(`must be at least ${min} bytes`);
    return value;
  }, showBytes);
}

export function boolean(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  // An empty variable (`SIGHTLINE_INSECURE_HTTP=`) reads as "not set to true".
  if (['0', 'false', 'no', 'off', ''].includes(value)) return false;
  throw new Error('must be true or false');
}

const durationUnits = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A span such as `900s`, `15m`, `2h`, `7d` (a bare number is seconds), as milliseconds. */
export function parseDuration(raw: string): number | undefined {
  const match = /^(\d+)\s*(s|m|h|d)?$/.exec(raw.trim());
  if (!match) return undefined;
  const unit = (match[2] ?? 's') as keyof typeof durationUnits;
  return Number(match[1]) * durationUnits[unit];
}

export function duration(minMs: number, maxMs: number) {
  return withShow((raw: string): number => {
    const value = parseDuration(raw);
    if (value === undefined || value < minMs || value > maxMs) {
      throw new Error(`must be a span from ${minMs / 1000}s to ${maxMs / 1000}s, such as 900s, 15m or 1h`);
    }
    return value;
  }, showDuration);
}

/** A span, or `none` for no limit (null). */
export function optionalDuration(minMs: number, maxMs: number) {
  const span = duration(minMs, maxMs);
  return withShow(
    (raw: string): number | null => (raw.trim().toLowerCase() === 'none' ? null : span(raw)),
    (value) => (value === null ? 'none' : showDuration(value)),
  );
}

export function isEmail(value: string): boolean {
  return value.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(value);
}

/** Lower-cased, as account emails are stored and compared lower-cased. */
export function email(raw: string): string {
  const value = raw.trim().toLowerCase();
  if (!isEmail(value)) throw new Error('must be an email address such as admin@example.com');
  return value;
}

export function adminPassword(raw: string): string {
  if (raw !== '' && (raw.length < 12 || raw.length > 1024)) {
    throw new Error('must be 12 to 1024 characters (or empty to generate one)');
  }
  return raw;
}

/** A shared secret someone else presents (a scraper's bearer token): long enough not to be guessed. */
export function sharedSecret(raw: string): string {
  if (raw !== '' && (raw.length < 24 || raw.length > 1024 || /\s/.test(raw))) {
    throw new Error('must be 24 to 1024 characters without spaces (or empty for none)');
  }
  return raw;
}

/** `host:port` to listen on, or empty for none. */
export function listenAddress(raw: string): string {
  const value = raw.trim();
  if (value === '') return '';
  const match = /^(\[[0-9a-fA-F:]+\]|[^\s:]+):(\d{1,5})$/.exec(value);
  if (!match || Number(match[2]) > 65_535) throw new Error('must be host:port, such as 127.0.0.1:9464 (or empty)');
  return value;
}

/** A parser accepting exactly the listed words, typed as their union. */
function oneOf<Word extends string>(words: readonly Word[], hint: string) {
  return (raw: string): Word => {
    const trimmed = raw.trim();
    const value = words.find((word) => word === trimmed);
    if (value === undefined) throw new Error(`must be ${hint}`);
    return value;
  };
}

export const summaryProvider = oneOf<SummaryProviderName>(
  ['builtin', 'openai', 'anthropic'],
  'builtin, openai or anthropic',
);
export const monitoringSink = oneOf<MonitoringSink>(['local', 'otlp', 'none'], 'local, otlp or none');
export const caseGrouping = oneOf<CaseGrouping>(['device', 'device_rule'], 'device or device_rule');

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function logLevel(raw: string): string {
  if (!logLevels.includes(raw)) throw new Error(`must be one of ${logLevels.join(', ')}`);
  return raw;
}

export function onOff(raw: string): OnOff {
  const value = raw.trim().toLowerCase();
  if (value === 'on' || value === 'off') return value;
  throw new Error('must be on or off');
}

/** Kept without trailing slashes, so a path appended to it gets exactly one. */
export function httpUrl(raw: string): string {
  const value = raw.trim().replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new Error('must be an http:// or https:// URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error('must be an http:// or https:// URL');
  return value;
}

/** A server's public base: an http(s) origin, with no path, query or credentials; empty allowed. */
export function publicUrl(raw: string): string {
  if (raw.trim() === '') return '';
  const value = httpUrl(raw);
  const parsed = new URL(value);
  if (parsed.pathname !== '/' || parsed.search !== '' || parsed.hash !== '' || parsed.username !== '')
    throw new Error('must be a scheme, host and optional port only, such as https://sightline.example.com:8443');
  return parsed.origin;
}

/** `name=value,name=value`; a value may itself contain `=` (Base64 credentials do). */
export function headerList(raw: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of commaList(raw)) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new Error('must be comma-separated name=value pairs');
    headers[entry.slice(0, at).trim()] = entry.slice(at + 1).trim();
  }
  return headers;
}

/** Existing files or directories, comma-separated: a typo fails start-up instead of loading nothing. */
export function pathList(raw: string): string[] {
  const paths = commaList(raw);
  for (const entry of paths) {
    if (!fs.existsSync(entry)) throw new Error(`names ${JSON.stringify(entry)}, which does not exist`);
  }
  return paths.map((entry) => path.resolve(entry));
}

/** An existing file, checked at start-up like pathList; empty means "use the bundled one". */
export function existingFile(raw: string): string {
  const value = raw.trim();
  if (value === '') return '';
  if (!fs.statSync(value, { throwIfNoEntry: false })?.isFile()) {
    throw new Error(`names ${JSON.stringify(value)}, which is not a file`);
  }
  return path.resolve(value);
}

/** Empty (trust no proxy), `true` (trust any), or proxy addresses and CIDR ranges, comma-separated. */
export function trustProxy(raw: string): string {
  const value = raw.trim();
  if (value === '' || value === 'true') return value;
  for (const entry of value.split(',')) {
    const [address = '', bits] = entry.trim().split('/');
    const family = isIP(address);
    const maxBits = family === 4 ? 32 : 128;
    if (family === 0 || (bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > maxBits))) {
      throw new Error(
        'must be empty, true, or a comma-separated list of proxy addresses or CIDR ranges such as 10.0.0.0/8',
      );
    }
  }
  return value;
}

/** Lower-cased and without the root dot: collector Host headers are matched against it. */
export function domain(raw: string): string {
  const value = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(value)) {
    throw new Error('must be a DNS domain such as example.com or localhost');
  }
  return value;
}

function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}
