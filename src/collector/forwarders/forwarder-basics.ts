// What every printed forwarder configuration shares (forwarder-configs.ts, elasticsearch-configs.ts):
// the client settings, the versions checked against, where the ingest key comes from, the
// collector address taken apart, and the shape of a configuration. Pure and browser-safe.

/** The client settings of the recommended configurations. */
export const forwarderSettings = {
  flushSeconds: 5,
  memoryBufferMb: 5,
  maxLineKb: 32,
  httpTimeoutSeconds: 10,
  batchRecords: 500,
  /** Disk a forwarder may fill with records waiting for the collector, before it stops reading. */
  diskBufferMb: 1024,
  /** Longest wait between retries. */
  maxRetryWaitSeconds: 30,
} as const;

/** The forwarder versions whose documentation the options were checked against. */
export const forwarderVersions = {
  fluentBit: '4.2',
  vector: '0.48',
  syslogNg: '3.38',
  rsyslog: '8.2102',
} as const;

export const defaultLogPath = '/var/log/app/*.log';

/** Where the configurations take the ingest key from, when the tenant requires one. */
export const INGEST_KEY_ENV = 'SIGHTLINE_INGEST_KEY';
/** Where rsyslog, which cannot read the environment there, needs the key itself. */
export const INGEST_KEY_PLACEHOLDER = 'PASTE_INGEST_KEY_HERE';
export const keyNote = `The ingest key is read from the environment variable ${INGEST_KEY_ENV}: set it in the forwarder's service environment (for systemd, Environment= or EnvironmentFile= in an override).`;

/** Where a forwarder sends: taken apart from the tenant's collector URL. */
export interface CollectorTarget {
  /** `https://acme-collector.example.com/log_sink` */
  sinkUrl: string;
  host: string;
  port: number;
  tls: boolean;
}

export function collectorTarget(collectorUrl: string): CollectorTarget {
  const url = new URL(collectorUrl);
  const tls = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : tls ? 443 : 80;
  return { sinkUrl: `${url.protocol}//${url.host}/log_sink`, host: url.hostname, port, tls };
}

export interface ConfigFile {
  /** Where the file usually goes. */
  path: string;
  text: string;
}

export interface ForwarderConfig {
  id:
    | 'fluent-bit'
    | 'vector'
    | 'syslog-ng'
    | 'rsyslog'
    | 'fluent-bit-es'
    | 'vector-es'
    | 'logstash'
    | 'filebeat'
    | 'fluent-bit-hec'
    | 'vector-hec'
    | 'otel-collector'
    | 'fluent-bit-otlp';
  name: string;
  /** The version the options were checked against. */
  version: string;
  files: ConfigFile[];
  /** What to know before using it (plain sentences). */
  notes: string[];
}

/** Fluent Bit's `key value` lines, the values aligned as its documentation writes them. */
export function section(name: string, entries: [string, string | number][]): string {
  const width = Math.max(...entries.map(([key]) => key.length)) + 1;
  return [`[${name}]`, ...entries.map(([key, value]) => `    ${key.padEnd(width)}${value}`)].join('\n');
}
