// Observables: the indicators a case's evidence names (addresses, domains, URLs, file hashes,
// accounts, hosts, processes, command lines), each in one normalised spelling so that the same
// indicator in two records, or typed by an analyst, is one value. Extraction
// (observable-extract.ts) and the analysts' input (src/cases/) both go through normaliseObservable.
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { ipv4Number, ipv6Bits } from './sigma/cidr.js';
import { addressScope, type AddressScope } from '../devices/geoip.js';
import { hasControlCharacter } from '../core/control-characters.js';

export const OBSERVABLE_TYPES = [
  'ip',
  'domain',
  'url',
  'md5',
  'sha1',
  'sha256',
  'email',
  'user',
  'host',
  'process_path',
  'command_line',
] as const;
export type ObservableType = (typeof OBSERVABLE_TYPES)[number];

export const OBSERVABLE_LIMITS = {
  /** UTF-8 bytes of one value: command lines and URLs are cut there, anything else longer is refused. */
  valueBytes: 1024,
  /** Observables one case holds (removed ones included: they keep their place so that they stay removed). */
  perCase: 500,
  /** Observables taken from one observation's evidence. */
  perObservation: 32,
} as const;

/** An observable before it is stored: what extraction found, or what an analyst typed. */
export interface ObservableDraft {
  type: ObservableType;
  value: string;
  /** Tags extraction sets on its own (`internal` for private addresses). */
  tags: readonly string[];
}

const INTERNAL_SCOPES = new Set<AddressScope>(['private', 'loopback', 'link_local', 'unique_local', 'shared']);

/** Placeholders logs write where a value is missing; never an observable. */
const EMPTY = new Set(['', '-', '--', '?', 'n/a', 'na', 'none', 'null', '(null)', 'unknown', 'undefined']);

/** Windows' built-in service accounts: on nearly every Windows event, so they would tie every case to every other. */
const SERVICE_ACCOUNTS = new Set([
  'system',
  'local service',
  'network service',
  'nt authority\\system',
  'nt authority\\local service',
  'nt authority\\network service',
]);

const encoder = new TextEncoder();
const cut = new Uint8Array(OBSERVABLE_LIMITS.valueBytes);

/** The longest prefix of whole characters that fits the byte limit. */
export function truncateUtf8(text: string, bytes: number = OBSERVABLE_LIMITS.valueBytes): string {
  if (text.length * 3 <= bytes) return text;
  const target = bytes === cut.length ? cut : new Uint8Array(bytes);
  const { read } = encoder.encodeInto(text, target);
  return text.slice(0, read);
}

const fits = (text: string) => truncateUtf8(text) === text;

function formatIpv6(bits: bigint): string {
  // IPv4-mapped (::ffff:0:0/96) is the IPv4 address.
  if (bits >> 32n === 0xffffn) {
    const v4 = Number(bits & 0xffffffffn);
    return [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join('.');
  }
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((bits >> shift) & 0xffffn));
  // RFC 5952: the longest run of two or more zero groups (the first of equals) becomes `::`.
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > best.length && end - i >= 2) best = { start: i, length: end - i };
    i = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start === -1) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

function ip(raw: string): string | undefined {
  let text = raw;
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (ipv4Number(text) !== undefined) return text;
  if (!text.includes(':')) return undefined;
  const zoneless = text.split('%')[0] ?? '';
  if (isIP(zoneless) !== 6) return undefined;
  const bits = ipv6Bits(zoneless);
  return bits === undefined ? undefined : formatIpv6(bits);
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

function domain(raw: string): string | undefined {
  let text = raw.toLowerCase();
  if (text.endsWith('.')) text = text.slice(0, -1);
  // Internationalised names in their ASCII (punycode) form; '' when the name is not valid.
  if (!/^[\x21-\x7e]*$/.test(text)) text = domainToASCII(text);
  if (text.length === 0 || text.length > 253) return undefined;
  const labels = text.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return undefined;
  // A name whose last label is all digits is an address, not a domain.
  return /[a-z]/.test(labels.at(-1) ?? '') ? text : undefined;
}

const URL_SCHEME = /^(?:https?|ftp|wss?):\/\//i;

function url(raw: string): string | undefined {
  if (!URL_SCHEME.test(raw)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return undefined;
  }
  // A password in a URL is a secret, not an indicator.
  if (parsed.password) parsed.password = '';
  return truncateUtf8(parsed.href);
}

function hash(length: number): (raw: string) => string | undefined {
  const shape = new RegExp(`^[0-9a-f]{${length}}$`);
  return (raw) => {
    const text = raw.toLowerCase();
    // All zeros is what tools write when they did not compute the hash.
    return shape.test(text) && !/^0+$/.test(text) ? text : undefined;
  };
}

function email(raw: string): string | undefined {
  const text = raw.toLowerCase();
  const at = text.lastIndexOf('@');
  if (at < 1 || at > 64 || !fits(text)) return undefined;
  const local = text.slice(0, at);
  if (!/^[^\s@<>()[\]",;:\\]+$/.test(local)) return undefined;
  const host = domain(text.slice(at + 1));
  return host === undefined ? undefined : `${local}@${host}`;
}

function user(raw: string): string | undefined {
  const text = raw.toLowerCase();
  if (text.length > 256 || hasControlCharacter(text)) return undefined;
  return SERVICE_ACCOUNTS.has(text) ? undefined : text;
}

function host(raw: string): string | undefined {
  const text = raw.toLowerCase();
  return text.length <= 253 && !hasControlCharacter(text) && /^[^\s/\\]+$/.test(text) ? text : undefined;
}

function processPath(raw: string): string | undefined {
  if (!fits(raw) || hasControlCharacter(raw)) return undefined;
  // Windows paths compare without case; POSIX paths keep theirs.
  if (/^[a-z]:\\/i.test(raw) || raw.startsWith('\\')) return raw.toLowerCase();
  return raw.startsWith('/') ? raw : undefined;
}

const normalisers: Record<ObservableType, (raw: string) => string | undefined> = {
  ip,
  domain,
  url,
  md5: hash(32),
  sha1: hash(40),
  sha256: hash(64),
  email,
  user,
  host,
  process_path: processPath,
  command_line: (raw) => truncateUtf8(raw),
};

/** The value in its normalised spelling, or undefined when it is not a value of the type. */
export function normaliseObservable(type: ObservableType, raw: string): string | undefined {
  // PostgreSQL text holds no NUL; nothing meaningful does either.
  const text = raw.replaceAll('\u0000', '').trim();
  if (EMPTY.has(text.toLowerCase())) return undefined;
  return normalisers[type](text);
}

// IPv4's internal ranges as [first, last] numbers: a comparison each, where the scope lookup asks
// every special-purpose list (this runs for each address of each matching event).
const INTERNAL_V4_NETWORKS: [string, number][] = [
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
];
const INTERNAL_V4 = INTERNAL_V4_NETWORKS.map(([network, prefix]) => {
  const first = ipv4Number(network) ?? 0;
  return { first, last: first + 2 ** (32 - prefix) - 1 };
});

function internal(ip: string): boolean {
  const v4 = ipv4Number(ip);
  if (v4 !== undefined) return INTERNAL_V4.some((range) => v4 >= range.first && v4 <= range.last);
  const scope = addressScope(ip);
  return scope !== undefined && INTERNAL_SCOPES.has(scope);
}

/** Tags an observable gets from what it is: a private, loopback or link-local address is `internal`. */
export function automaticTags(type: ObservableType, value: string): string[] {
  return type === 'ip' && internal(value) ? ['internal'] : [];
}

/** What each type accepts, for the message that refuses a value. */
export const OBSERVABLE_FORMS: Record<ObservableType, string> = {
  ip: 'an IPv4 or IPv6 address',
  domain: 'a domain name with at least two labels (example.com)',
  url: 'an absolute http, https, ftp, ws or wss URL',
  md5: '32 hexadecimal digits',
  sha1: '40 hexadecimal digits',
  sha256: '64 hexadecimal digits',
  email: 'an email address (name@example.com)',
  user: 'a user name of up to 256 characters, without control characters (not a built-in Windows service account)',
  host: 'a host name of up to 253 characters, without spaces, slashes or control characters',
  process_path: `an absolute Windows (C:\\…) or POSIX (/…) path of up to ${OBSERVABLE_LIMITS.valueBytes} bytes`,
  command_line: `a command line (cut to ${OBSERVABLE_LIMITS.valueBytes} bytes)`,
};
