// The settings table: every setting Sightline reads, declared once with its flag, environment
// variable, default, help text and parser. The CLI builds its options and help from it, and the
// docs/operations.md's Configuration table is this list written out.
import { setting } from './setting-spec.js';
import { summarySettings } from './summary-settings.js';
import { scaleSettings } from './scale-settings.js';
import { webhookSettings } from './webhook-settings.js';
import { exportSettings } from './export-settings.js';
import {
  MiB,
  adminPassword,
  boolean,
  bytes,
  caseGrouping,
  domain,
  duration,
  optionalDuration,
  email,
  existingFile,
  integer,
  listenAddress,
  logLevel,
  onOff,
  pathList,
  publicUrl,
  sharedSecret,
  text,
  trustProxy,
} from './value-parsers.js';

/** Every setting Sightline reads, in the order `sightline serve --help` lists them. */
export const settings = {
  dataDir: setting({
    flag: 'data',
    env: 'SIGHTLINE_DATA',
    default: './data',
    parse: text,
    description: 'Directory for the embedded database and other local state.',
  }),
  databaseUrl: setting({
    flag: 'database',
    env: 'SIGHTLINE_DATABASE_URL',
    default: '',
    parse: text,
    description:
      'Database URL: postgres://user@host/db (optionally ?schema=NAME) for PostgreSQL, or sqlite:PATH. Empty: SQLite file sightline.db in the data directory.',
  }),
  host: setting({
    flag: 'host',
    env: 'SIGHTLINE_HOST',
    default: '127.0.0.1',
    parse: text,
    description:
      'Address to listen on. Plain HTTP is allowed only on a loopback address unless --insecure-http is given.',
  }),
  port: setting({
    flag: 'port',
    env: 'SIGHTLINE_PORT',
    default: 8080,
    parse: integer(0, 65535),
    description: 'TCP port to listen on (0 picks a free port).',
  }),
  tlsCert: setting({
    flag: 'tls-cert',
    env: 'SIGHTLINE_TLS_CERT',
    default: '',
    parse: text,
    description: 'PEM certificate (chain) file; with --tls-key, serve HTTPS.',
  }),
  tlsKey: setting({
    flag: 'tls-key',
    env: 'SIGHTLINE_TLS_KEY',
    default: '',
    parse: text,
    description: 'PEM private key file for --tls-cert.',
  }),
  insecureHttp: setting({
    flag: 'insecure-http',
    env: 'SIGHTLINE_INSECURE_HTTP',
    default: false,
    parse: boolean,
    description: 'Allow plain HTTP on a non-loopback address (only behind a TLS-terminating proxy).',
  }),
  baseDomain: setting({
    flag: 'base-domain',
    env: 'SIGHTLINE_BASE_DOMAIN',
    default: 'localhost',
    parse: domain,
    description: 'Domain of the collector addresses: tenant acme posts to acme-collector.<base-domain>.',
  }),
  publicUrl: setting({
    flag: 'public-url',
    env: 'SIGHTLINE_PUBLIC_URL',
    default: '',
    parse: publicUrl,
    description:
      'Scheme and port clients reach this server on, such as https://sightline.example.com:8443 (a TLS proxy in front): printed collector addresses use them. Empty: what the server listens on.',
  }),
  defaultTenant: setting({
    flag: 'default-tenant',
    env: 'SIGHTLINE_DEFAULT_TENANT',
    default: 'demo',
    parse: text,
    description:
      'Tenant for collector requests whose Host is not <code>-collector.<base-domain>. Empty: such requests get 404.',
  }),
  maxBodyBytes: setting({
    flag: 'max-body-bytes',
    env: 'SIGHTLINE_MAX_BODY_BYTES',
    default: 10 * MiB,
    parse: bytes(1024),
    description: 'Largest collector request body, both as sent (compressed) and after decompression.',
  }),
  maxRecordBytes: setting({
    flag: 'max-record-bytes',
    env: 'SIGHTLINE_MAX_RECORD_BYTES',
    default: 1 * MiB,
    parse: bytes(64),
    description: 'Largest single record (one NDJSON line or a single-object body).',
  }),
  maxQueueBytes: setting({
    flag: 'max-queue-bytes',
    env: 'SIGHTLINE_MAX_QUEUE_BYTES',
    default: 32 * MiB,
    parse: bytes(1024),
    description:
      'Accepted-but-not-yet-committed record bytes held in memory; past it the collector answers 503 with Retry-After.',
  }),
  maxInflightBytes: setting({
    flag: 'max-inflight-bytes',
    env: 'SIGHTLINE_MAX_INFLIGHT_BYTES',
    default: 64 * MiB,
    parse: bytes(1024),
    description:
      'Memory for collector request bodies being read and parsed at once (as sent plus decompressed); past it the collector answers 503 with Retry-After.',
  }),
  headerTimeout: setting({
    flag: 'header-timeout',
    env: 'SIGHTLINE_HEADER_TIMEOUT',
    default: 10_000,
    parse: duration(1_000, 600_000),
    description:
      'Time a client has to send the request line and headers (a slow sender is cut off: 408); at most --request-timeout.',
  }),
  requestTimeout: setting({
    flag: 'request-timeout',
    env: 'SIGHTLINE_REQUEST_TIMEOUT',
    default: 12_000,
    parse: duration(1_000, 600_000),
    description:
      'Time a client has to send a whole request, headers and body (408 after it). Raise it for large batches over slow links.',
  }),
  trustProxy: setting({
    flag: 'trust-proxy',
    env: 'SIGHTLINE_TRUST_PROXY',
    default: '',
    parse: trustProxy,
    description:
      'Proxies whose X-Forwarded-For names the client: empty (none), true (any), or addresses/CIDR ranges. The client address keys the failed-login limit and the audit log.',
  }),
  adminEmail: setting({
    flag: 'admin-email',
    env: 'SIGHTLINE_ADMIN_EMAIL',
    default: 'admin@localhost',
    parse: email,
    description: 'Email of the platform operator account created on first start with an empty database.',
  }),
  adminPassword: setting({
    flag: 'admin-password',
    env: 'SIGHTLINE_ADMIN_PASSWORD',
    default: '',
    parse: adminPassword,
    secret: true,
    description:
      'Password of that first operator account (environment only). Empty: one is generated and printed once.',
  }),
  passwordHashCost: setting({
    flag: 'password-hash-cost',
    env: 'SIGHTLINE_PASSWORD_HASH_COST',
    default: 15,
    parse: integer(10, 20),
    description:
      'Work factor of new password hashes (scrypt), as log2 of N: 15 costs 32 MiB and tens of milliseconds a hash, each step up doubles both. Stored hashes keep the factor they were made with. It is also what guessing a stolen hash costs: lower it only where the passwords are throwaway (test deployments).',
  }),
  authMaxFailures: setting({
    flag: 'auth-max-failures',
    env: 'SIGHTLINE_AUTH_MAX_FAILURES',
    default: 10,
    parse: integer(1, 100_000),
    description:
      'Failed logins or bad credentials allowed per client address within --auth-failure-window; past it the address gets 429 with Retry-After.',
  }),
  authFailureWindow: setting({
    flag: 'auth-failure-window',
    env: 'SIGHTLINE_AUTH_FAILURE_WINDOW',
    default: 15 * 60_000,
    parse: duration(1_000, 86_400_000),
    description: 'Window over which failed attempts are counted, such as 15m.',
  }),
  metricsToken: setting({
    flag: 'metrics-token',
    env: 'SIGHTLINE_METRICS_TOKEN',
    default: '',
    parse: sharedSecret,
    secret: true,
    description:
      'Bearer token a Prometheus scraper sends for /metrics on the main port (environment only; 24+ characters). Empty: /metrics there answers 401.',
  }),
  metricsListen: setting({
    flag: 'metrics-listen',
    env: 'SIGHTLINE_METRICS_LISTEN',
    default: '',
    parse: listenAddress,
    description:
      'A separate host:port serving /metrics without credentials, for a scraper on a private network, such as 127.0.0.1:9464. Empty: none.',
  }),
  tokenLifetime: setting({
    flag: 'token-lifetime',
    env: 'SIGHTLINE_TOKEN_LIFETIME',
    default: 30 * 86_400_000,
    parse: duration(60_000, 3_650 * 86_400_000),
    description: 'Lifetime of an API token created without an expiry (API, web UI and CLI alike), such as 30d.',
  }),
  tokenMaxLifetime: setting({
    flag: 'token-max-lifetime',
    env: 'SIGHTLINE_TOKEN_MAX_LIFETIME',
    default: 365 * 86_400_000,
    parse: optionalDuration(60_000, 3_650 * 86_400_000),
    description:
      'Longest lifetime an API token may be given, such as 365d; none allows tokens that never expire. At least --token-lifetime.',
  }),
  detection: setting({
    flag: 'detection',
    env: 'SIGHTLINE_DETECTION',
    default: 'on',
    parse: onOff,
    description:
      'Run detection in this process (on or off): the detection thread, or on a scale-out worker the detection of each batch. Off: records are stored and searchable but no observations are made here.',
  }),
  detectionChunk: setting({
    flag: 'detection-chunk',
    env: 'SIGHTLINE_DETECTION_CHUNK',
    default: 3_000,
    parse: integer(1, 10_000),
    description:
      'Most records the detection thread reads, matches and commits in one transaction (1–10000); a chunk holds what arrived since the last, up to this. Smaller: shorter write transactions (on SQLite ingest waits for them); larger: more throughput under load.',
  }),
  detectionRulePaths: setting({
    flag: 'rule-paths',
    env: 'SIGHTLINE_RULE_PATHS',
    default: [],
    parse: pathList,
    description:
      'Extra Sigma rule directories or files, comma-separated (e.g. a SigmaHQ checkout), loaded beside the bundled rules/.',
  }),
  detectionPipeline: setting({
    flag: 'detection-pipeline',
    env: 'SIGHTLINE_DETECTION_PIPELINE',
    default: '',
    parse: existingFile,
    description:
      'Processing pipeline YAML (logsource routing, field mapping, placeholders). Empty: the bundled config/detection-pipeline.yml.',
  }),
  retentionInterval: setting({
    flag: 'retention-interval',
    env: 'SIGHTLINE_RETENTION_INTERVAL',
    default: 600_000,
    parse: duration(10_000, 86_400_000),
    description:
      "How often the background purger deletes raw telemetry past each tenant's retention, such as 10m (see docs/operations.md, Retention).",
  }),
  caseWindow: setting({
    flag: 'case-window',
    env: 'SIGHTLINE_CASE_WINDOW',
    default: 24 * 3_600_000,
    parse: duration(60_000, 30 * 86_400_000),
    description:
      "How close a new observation must be to an open case's last observation to join it, such as 24h (see docs/cases.md).",
  }),
  caseGrouping: setting({
    flag: 'case-grouping',
    env: 'SIGHTLINE_CASE_GROUPING',
    default: 'device',
    parse: caseGrouping,
    description:
      'What an open case collects: device (every observation on the device) or device_rule (one case per device and rule). Observations without a device group by rule and source either way.',
  }),
  geoipDatabase: setting({
    flag: 'geoip-database',
    env: 'SIGHTLINE_GEOIP_DATABASE',
    default: [],
    parse: pathList,
    description:
      'MaxMind-format (.mmdb) city databases for IP locations, comma-separated (e.g. GeoLite2-City.mmdb). Empty: the bundled DB-IP City Lite (IPv4 and IPv6).',
  }),
  // The AI summary settings sit here in the help; summary-settings.ts declares them.
  ...summarySettings,
  // The scale-out settings (roles and the JetStream record log); scale-settings.ts declares them.
  ...scaleSettings,
  // Outbound events; webhook-settings.ts declares them.
  ...webhookSettings,
  // Export to object storage; export-settings.ts declares them.
  ...exportSettings,
  logLevel: setting({
    flag: 'log-level',
    env: 'SIGHTLINE_LOG_LEVEL',
    default: 'info',
    parse: logLevel,
    description: 'Server log level: fatal, error, warn, info, debug, trace or silent.',
  }),
};

type Settings = typeof settings;
export type Config = { [K in keyof Settings]: Settings[K]['default'] };
export type SettingName = keyof Settings;

/** Raw values as they come from the command line (commander's camelCase keys). */
export type CliValues = Partial<Record<SettingName, string | boolean | number | undefined>>;
