// Settings of outbound events (docs/webhooks.md): which addresses deliveries (and single
// sign-on's requests to identity providers) may reach, the CA that signs receivers'
// certificates, the per-attempt timeout and the retry schedule. Declared here and spread into
// the settings table; the defaults suit production, tests shorten the schedule.
import ipaddr from 'ipaddr.js';
import { setting } from './setting-spec.js';
import { boolean, duration, existingFile, parseDuration } from './value-parsers.js';

/** Like duration(), but also in milliseconds (`250ms`), so tests can run the schedule in seconds. */
function fineDuration(minMs: number, maxMs: number) {
  return (raw: string): number => {
    const match = /^(\d+)\s*ms$/.exec(raw.trim());
    const value = match ? Number(match[1]) : parseDuration(raw);
    if (value === undefined || value < minMs || value > maxMs) {
      throw new Error(`must be a span from ${minMs} ms to ${maxMs / 1000}s, such as 500ms, 30s or 1h`);
    }
    return value;
  };
}

/** Comma-separated CIDR ranges such as `10.20.0.0/16,fd00::/8`; a bare address is its own /32 or /128. */
export function cidrList(raw: string): string[] {
  const ranges: string[] = [];
  for (const entry of raw.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const withBits = entry.includes('/') ? entry : `${entry}/${ipaddr.IPv4.isValid(entry) ? 32 : 128}`;
    if (!ipaddr.isValidCIDR(withBits)) {
      throw new Error(`must be comma-separated CIDR ranges such as 10.20.0.0/16; ${JSON.stringify(entry)} is not one`);
    }
    ranges.push(withBits);
  }
  return ranges;
}

export const webhookSettings = {
  webhookAllowLoopback: setting({
    flag: 'webhook-allow-loopback',
    env: 'SIGHTLINE_WEBHOOK_ALLOW_LOOPBACK',
    default: false,
    parse: boolean,
    description:
      'Let webhooks and single sign-on reach loopback addresses (127.0.0.0/8, ::1), over https or plain http: for testing a receiver or an identity provider on this machine only.',
  }),
  webhookAllowedNetworks: setting({
    flag: 'webhook-allowed-networks',
    env: 'SIGHTLINE_WEBHOOK_ALLOWED_NETWORKS',
    default: [],
    parse: cidrList,
    description:
      'Private, link-local or other non-public ranges webhooks and single sign-on may reach, as CIDR ranges, comma-separated (e.g. 10.20.0.0/16 for an internal SOAR or identity provider). Empty: public addresses only.',
  }),
  webhookCaFile: setting({
    flag: 'webhook-ca-file',
    env: 'SIGHTLINE_WEBHOOK_CA_FILE',
    default: '',
    parse: existingFile,
    description:
      "PEM file of CA certificates trusted for webhook receivers, besides Node's bundled roots (an internal CA). Empty: the bundled roots only.",
  }),
  webhookTimeout: setting({
    flag: 'webhook-timeout',
    env: 'SIGHTLINE_WEBHOOK_TIMEOUT',
    default: 10_000,
    parse: fineDuration(100, 60_000),
    description: 'Time a receiver has to answer one delivery attempt, connection included; past it the attempt failed.',
  }),
  webhookRetryBase: setting({
    flag: 'webhook-retry-base',
    env: 'SIGHTLINE_WEBHOOK_RETRY_BASE',
    default: 30_000,
    parse: fineDuration(50, 3_600_000),
    description:
      'Wait before the first retry of a failed delivery; each later wait doubles (at most 1h), with random jitter.',
  }),
  webhookRetryWindow: setting({
    flag: 'webhook-retry-window',
    env: 'SIGHTLINE_WEBHOOK_RETRY_WINDOW',
    default: 86_400_000,
    parse: fineDuration(1_000, 7 * 86_400_000),
    description:
      'How long a failing delivery is retried, and how long a subscription may fail without a success before it is turned off.',
  }),
  webhookLogRetention: setting({
    flag: 'webhook-log-retention',
    env: 'SIGHTLINE_WEBHOOK_LOG_RETENTION',
    default: 30 * 86_400_000,
    parse: duration(3_600_000, 3650 * 86_400_000),
    description:
      'How long delivered and failed webhook deliveries, and events no delivery still needs, are kept, such as 30d (1h to 3650d; the retention purger deletes them).',
  }),
};
