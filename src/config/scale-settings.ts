// Settings of the scale-out mode (docs/scale.md): which roles this process plays and
// the NATS JetStream record log it shares with the other nodes. Empty --queue keeps the embedded
// single process; settings.ts spreads these into the table.
import { setting } from './setting-spec.js';
import { duration, integer, text } from './value-parsers.js';

export type Role = 'collector' | 'worker' | 'api';
export const ROLES: readonly Role[] = ['collector', 'worker', 'api'];

/** `all`, or a comma list of collector, worker and api. */
export function roleList(raw: string): Role[] {
  const words = raw
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  if (words.length === 0) throw new Error('must be all, or a comma list of collector, worker and api');
  if (words.includes('all')) {
    if (words.length > 1) throw new Error('all already includes every role; give it alone');
    return [...ROLES];
  }
  const roles: Role[] = [];
  for (const word of words) {
    const role = ROLES.find((known) => known === word);
    if (!role) throw new Error(`names an unknown role ${JSON.stringify(word)}: use all, collector, worker or api`);
    if (!roles.includes(role)) roles.push(role);
  }
  return roles;
}

/** Comma list of nats:// (or tls://) server URLs; empty for none. */
export function natsUrls(raw: string): string[] {
  const urls = raw
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  for (const url of urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      // The caller names the setting and the value.
      throw new Error('must be a comma list of nats://host:port URLs');
    }
    if (!['nats:', 'tls:'].includes(parsed.protocol) || parsed.hostname === '')
      throw new Error('must be a comma list of nats://host:port (or tls://host:port) URLs');
    if (parsed.username || parsed.password)
      throw new Error(
        'must not carry credentials (they would show in the process list): use --queue-credentials or SIGHTLINE_QUEUE_TOKEN',
      );
  }
  return urls;
}

/** A JetStream stream name: letters, digits, `-` and `_`. */
function streamName(raw: string): string {
  const value = raw.trim();
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(value)) throw new Error('must be 1–64 letters, digits, - or _');
  return value;
}

export const scaleSettings = {
  role: setting({
    flag: 'role',
    env: 'SIGHTLINE_ROLE',
    default: [...ROLES] as Role[],
    parse: roleList,
    description:
      'What this process does: all, or a comma list of collector, worker and api. Anything but all needs --queue and a postgres:// --database.',
  }),
  queue: setting({
    flag: 'queue',
    env: 'SIGHTLINE_QUEUE',
    default: [] as string[],
    parse: natsUrls,
    description:
      'NATS JetStream servers holding the record log, comma-separated (nats://h1:4222,nats://h2:4222). Empty: the embedded record log.',
  }),
  queueCredentials: setting({
    flag: 'queue-credentials',
    env: 'SIGHTLINE_QUEUE_CREDENTIALS',
    default: '',
    parse: text,
    description: 'NATS credentials file (.creds: user JWT and NKey seed) for --queue.',
  }),
  queueToken: setting({
    flag: 'queue-token',
    secret: true,
    env: 'SIGHTLINE_QUEUE_TOKEN',
    default: '',
    parse: text,
    description: 'NATS authentication token for --queue (environment only).',
  }),
  queueTlsCa: setting({
    flag: 'queue-tls-ca',
    env: 'SIGHTLINE_QUEUE_TLS_CA',
    default: '',
    parse: text,
    description: 'PEM CA file that signed the NATS servers\u2019 certificates; given, connections to --queue use TLS.',
  }),
  queueStream: setting({
    flag: 'queue-stream',
    env: 'SIGHTLINE_QUEUE_STREAM',
    default: 'SIGHTLINE_RECORDS',
    parse: streamName,
    description:
      'Name of the JetStream stream holding the record log (its subjects, one per stream partition, are <name>.p.<n>).',
  }),
  queuePartitions: setting({
    flag: 'queue-partitions',
    env: 'SIGHTLINE_QUEUE_PARTITIONS',
    default: 16,
    parse: integer(1, 1024),
    description:
      'Stream partitions of the record log (the stream\u2019s subjects), fixed when the stream is created; every node must give the same number. At most this many workers share the work.',
  }),
  queueReplicas: setting({
    flag: 'queue-replicas',
    env: 'SIGHTLINE_QUEUE_REPLICAS',
    default: 0,
    parse: integer(0, 5),
    description:
      'Copies JetStream keeps of each record, used when the stream is created. 0: 3 when --queue lists three or more servers, else 1.',
  }),
  queueLease: setting({
    flag: 'queue-lease',
    env: 'SIGHTLINE_QUEUE_LEASE',
    default: 60_000,
    parse: duration(2_000, 3_600_000),
    description:
      'How long a worker may fall silent towards PostgreSQL (paused, hung, cut off) before it loses its stream partitions to the other workers. Longer than any batch takes to apply.',
  }),
};
