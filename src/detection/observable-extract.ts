// Which observables an observation's evidence names: read from the triggering event as
// normalisation left it (the process and network rows, and the Sigma taxonomy and vendor fields
// of every family), or from the fields an external writer sent. Runs for matching events only,
// while detection prepares a batch: a fixed list of field lookups per event, at most
// OBSERVABLE_LIMITS.perObservation observables kept.
import type { FieldValue, NormalisedEvent } from '../telemetry/normalise/event.js';
import {
  automaticTags,
  normaliseObservable,
  OBSERVABLE_LIMITS,
  type ObservableDraft,
  type ObservableType,
} from './observable-values.js';

/** Values read from one multi-valued field. */
const MAX_LIST_VALUES = 16;

// Field names per type, as the record families carry them (docs/telemetry-mapping.md): Sigma's
// taxonomy names first, then the vendors' own (CloudTrail, Okta, Entra ID, Google, GitHub,
// Microsoft 365, Kubernetes audit, Zeek, ECS).
const IP_FIELDS = [
  'c-ip',
  'SourceIp',
  'DestinationIp',
  'src_ip',
  'dst_ip',
  'IpAddress',
  'sourceIPAddress',
  'client.ipAddress',
  'IPAddress',
  'ipAddress',
  'callerIpAddress',
  'protoPayload.requestMetadata.callerIp',
  'ClientIP',
  'actor_ip',
  'sourceIPs',
  'source.ip',
  'destination.ip',
  'client.ip',
];
/** Proxies append to it: `client, proxy1, proxy2`. */
const FORWARDED_FIELDS = ['c-forwarded-for'];
const DOMAIN_FIELDS = [
  'cs-host',
  'r-dns',
  'query',
  'QueryName',
  'dns.question.name',
  'url.domain',
  'DestinationHostname',
];
const URL_FIELDS = ['c-uri', 'cs-uri', 'cs-referer', 'url.original', 'url.full'];
const HASH_FIELDS = [
  'Hashes',
  'Hash',
  'hashes',
  'md5',
  'sha1',
  'sha256',
  'file.hash.md5',
  'file.hash.sha1',
  'file.hash.sha256',
  'process.hash.md5',
  'process.hash.sha1',
  'process.hash.sha256',
];
const USER_FIELDS = [
  'User',
  'user.name',
  'cs-username',
  'TargetUserName',
  'SubjectUserName',
  'userIdentity.userName',
  'user.username',
  'actor.alternateId',
  'userPrincipalName',
  'UserPrincipalName',
  'UserId',
  'protoPayload.authenticationInfo.principalEmail',
  'actor.email',
  'actor',
  'username',
];
const EMAIL_FIELDS = ['email', 'user.email'];
const PATH_FIELDS = ['Image', 'ParentImage', 'process.executable'];
const COMMAND_FIELDS = ['CommandLine', 'process.command_line'];

const HASH_TYPES: Record<number, ObservableType> = { 32: 'md5', 40: 'sha1', 64: 'sha256' };

/** Collects one observation's observables: each once, in the order found, up to the bound. */
class Found {
  private readonly seen = new Set<string>();
  readonly items: ObservableDraft[] = [];

  get full(): boolean {
    return this.items.length >= OBSERVABLE_LIMITS.perObservation;
  }

  add(type: ObservableType, raw: string | null | undefined): void {
    if (raw === null || raw === undefined || this.full) return;
    const value = normaliseObservable(type, raw);
    if (value === undefined) return;
    const key = `${type}\u0000${value}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push({ type, value, tags: automaticTags(type, value) });
  }

  /** A field's text values: the value itself, or the first values of a list. */
  each(value: FieldValue | undefined, use: (text: string) => void): void {
    if (typeof value === 'string') use(value);
    else if (Array.isArray(value))
      for (const item of value.slice(0, MAX_LIST_VALUES)) if (typeof item === 'string') use(item);
  }

  /** A host name: a domain when it has dots (`evil.example.com`), a host otherwise. */
  name(raw: string): void {
    if (normaliseObservable('ip', raw) !== undefined) this.add('ip', raw);
    else if (raw.includes('.')) this.add('domain', raw);
    else this.add('host', raw);
  }

  /** A URL, and the domain or address it names. */
  url(raw: string): void {
    const before = this.items.length;
    this.add('url', raw);
    if (this.items.length === before) return;
    try {
      this.name(new URL(raw.trim()).hostname);
    } catch {
      // add('url') accepted it, so it parses; nothing else to take.
    }
  }

  /** An account: an email address when it is one, a user name otherwise. */
  account(raw: string): void {
    if (raw.includes('@') && normaliseObservable('email', raw) !== undefined) this.add('email', raw);
    else this.add('user', raw);
  }

  /** `SHA256=…,MD5=…,IMPHASH=…` (Sysmon), or one bare hash. */
  hashes(raw: string): void {
    for (const part of raw.split(',')) {
      const text = part.slice(part.indexOf('=') + 1).trim();
      const type = HASH_TYPES[text.length];
      // IMPHASH is an MD5 of the import table, not of the file.
      if (type !== undefined && !/^\s*imphash=/i.test(part)) this.add(type, text);
    }
  }
}

function fromFields(found: Found, fields: Readonly<Record<string, FieldValue>>): void {
  for (const name of IP_FIELDS) found.each(fields[name], (text) => found.add('ip', text));
  for (const name of FORWARDED_FIELDS)
    found.each(fields[name], (text) => text.split(',').forEach((part) => found.add('ip', part)));
  for (const name of URL_FIELDS) found.each(fields[name], (text) => found.url(text));
  for (const name of DOMAIN_FIELDS) found.each(fields[name], (text) => found.name(text));
  for (const name of HASH_FIELDS) found.each(fields[name], (text) => found.hashes(text));
  for (const name of USER_FIELDS) found.each(fields[name], (text) => found.account(text));
  for (const name of EMAIL_FIELDS) found.each(fields[name], (text) => found.add('email', text));
  for (const name of PATH_FIELDS) found.each(fields[name], (text) => found.add('process_path', text));
  for (const name of COMMAND_FIELDS) found.each(fields[name], (text) => found.add('command_line', text));
}

/** The observables of a triggering event. */
export function observablesOfEvent(event: NormalisedEvent): ObservableDraft[] {
  const found = new Found();
  const { process, network } = event;
  if (process) {
    found.add('process_path', process.executable_path);
    found.add('command_line', process.command_line);
    if (process.user !== null) found.account(process.user);
    found.add('process_path', process.parent_executable_path);
  }
  if (network) {
    found.add('ip', network.destination_ip);
    found.add('ip', network.source_ip);
    if (network.destination_hostname !== null) found.name(network.destination_hostname);
    found.add('process_path', network.executable_path);
    if (network.user !== null) found.account(network.user);
  }
  fromFields(found, event.fields);
  return found.items;
}

/** The observables of fields an external observation sent (any names; the known ones are read). */
export function observablesOfFields(fields: Readonly<Record<string, FieldValue>>): ObservableDraft[] {
  const found = new Found();
  fromFields(found, fields);
  return found.items;
}
