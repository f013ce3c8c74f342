// Configuration: every setting is declared once here (flag, environment variable, default,
// meaning) and validated at start-up. A bad value stops the process with a message that names
// the setting, so a typo never turns into a silently different behaviour.
import fs from 'node:fs';
import path from 'node:path';
import { isIP } from 'node:net';
import { codeNameRule, isValidCodeName } from '../shared/code-name.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

interface Setting<T> {
  /** Long CLI flag without the dashes, e.g. `base-domain`. */
  flag: string;
  /** A secret: read from the environment only (never a flag, visible in `ps`), never echoed. */
  secret?: true;
  env: string;
  description: string;
  default: T;
  parse(raw: string): T;
}

const MiB = 1024 * 1024;

function integer(min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new Error(`must be an integer from ${min} to ${max}`);
    }
    return value;
  };
}

function bytes(min: number) {
  return (raw: string): number => {
    const match = /^(\d+)\s*(b|kb|kib|k|mb|mib|m|gb|gib|g)?$/i.exec(raw.trim());
    if (!match) throw new Error('must be a size such as 1048576, 512KiB or 10MiB');
    const unit = (match[2] ?? 'b').toLowerCase();
    const factor = unit.startsWith('g') ? 1024 * MiB : unit.startsWith('m') ? MiB : unit.startsWith('k') ? 1024 : 1;
    const value = Number(match[1]) * factor;
    if (value < min) throw new Error(`must be at least ${min} bytes`);
    return value;
  };
}

function boolean(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(value)) return false;
  throw new Error('must be true or false');
}

const text = (raw: string): string => raw;

function adminPassword(raw: string): string {
  if (raw !== '' && (raw.length < 12 || raw.length > 1024)) throw new Error('must be 12 to 1024 characters (or empty to generate one)');
  return raw;
}

/** A span such as `900s`, `15m`, `2h`, `7d` (a bare number is seconds), as milliseconds. */
export function parseDuration(raw: string): number | undefined {
  const match = /^(\d+)\s*(s|m|h|d)?$/.exec(raw.trim());
  if (!match) return undefined;
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(match[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

function duration(minMs: number, maxMs: number) {
  return (raw: string): number => {
    const value = parseDuration(raw);
    if (value === undefined || value < minMs || value > maxMs) {
      throw new Error(`must be a span from ${minMs / 1000}s to ${maxMs / 1000}s, such as 900s, 15m or 1h`);
    }
    return value;
  };
}

function email(raw: string): string {
  const value = raw.trim().toLowerCase();
  if (!isEmail(value)) throw new Error('must be an email address such as admin@example.com');
  return value;
}

export function isEmail(value: string): boolean {
  return value.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(value);
}

export type SummaryProviderName = 'builtin' | 'openai' | 'anthropic';

function summaryProvider(raw: string): SummaryProviderName {
  const value = raw.trim();
  if (value !== 'builtin' && value !== 'openai' && value !== 'anthropic') throw new Error('must be builtin, openai or anthropic');
  return value;
}

function monitoringSink(raw: string): 'local' | 'otlp' | 'none' {
  const value = raw.trim();
  if (value !== 'local' && value !== 'otlp' && value !== 'none') throw new Error('must be local, otlp or none');
  return value;
}

function httpUrl(raw: string): string {
  const value = raw.trim().replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new Error('must be an http:// or https:// URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('must be an http:// or https:// URL');
  return value;
}

function headerList(raw: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of raw.split(',').map((item) => item.trim()).filter((item) => item !== '')) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new Error('must be comma-separated name=value pairs');
    headers[entry.slice(0, at).trim()] = entry.slice(at + 1).trim();
  }
  return headers;
}

export type CaseGrouping = 'device' | 'device_rule';

function caseGrouping(raw: string): CaseGrouping {
  const value = raw.trim();
  if (value !== 'device' && value !== 'device_rule') throw new Error('must be device or device_rule');
  return value;
}

function onOff(raw: string): 'on' | 'off' {
  const value = raw.trim().toLowerCase();
  if (value === 'on' || value === 'off') return value;
  throw new Error('must be on or off');
}

function pathList(raw: string): string[] {
  const paths = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of paths) {
    if (!fs.existsSync(entry)) throw new Error(`names ${JSON.stringify(entry)}, which does not exist`);
  }
  return paths.map((entry) => path.resolve(entry));
}

function existingFile(raw: string): string {
  const value = raw.trim();
  if (value === '') return '';
  if (!fs.statSync(value, { throwIfNoEntry: false })?.isFile()) throw new Error(`names ${JSON.stringify(value)}, which is not a file`);
  return path.resolve(value);
}

function trustProxy(raw: string): string {
  const value = raw.trim();
  if (value === '' || value === 'true') return value;
  for (const entry of value.split(',')) {
    const [address, bits] = entry.trim().split('/');
    const family = isIP(address ?? '');
    if (family === 0 || (bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)))) {
      throw new Error('must be empty, true, or a comma-separated list of proxy addresses or CIDR ranges such as 10.0.0.0/8');
    }
  }
  return value;
}

function domain(raw: string): string {
  const value = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(value)) {
    throw new Error('must be a DNS domain such as example.com or localhost');
  }
  return value;
}

function logLevel(raw: string): string {
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  if (!levels.includes(raw)) throw new Error(`must be one of ${levels.join(', ')}`);
  return raw;
}

/** Every setting Sightline reads. The README's configuration table is this list. */
export const settings = {
  dataDir: {
    flag: 'data', env: 'SIGHTLINE_DATA', default: './data', parse: text,
    description: 'Directory for the embedded database and other local state.',
  },
  databaseUrl: {
    flag: 'database', env: 'SIGHTLINE_DATABASE_URL', default: '', parse: text,
    description: 'Database URL: postgres://user@host/db (optionally ?schema=NAME) for PostgreSQL, or sqlite:PATH. Empty: SQLite file sightline.db in the data directory.',
  },
  host: {
    flag: 'host', env: 'SIGHTLINE_HOST', default: '127.0.0.1', parse: text,
    description: 'Address to listen on. Plain HTTP is allowed only on a loopback address unless --insecure-http is given.',
  },
  port: {
    flag: 'port', env: 'SIGHTLINE_PORT', default: 8080, parse: integer(0, 65535),
    description: 'TCP port to listen on (0 picks a free port).',
  },
  tlsCert: {
    flag: 'tls-cert', env: 'SIGHTLINE_TLS_CERT', default: '', parse: text,
    description: 'PEM certificate (chain) file; with --tls-key, serve HTTPS.',
  },
  tlsKey: {
    flag: 'tls-key', env: 'SIGHTLINE_TLS_KEY', default: '', parse: text,
    description: 'PEM private key file for --tls-cert.',
  },
  insecureHttp: {
    flag: 'insecure-http', env: 'SIGHTLINE_INSECURE_HTTP', default: false, parse: boolean,
    description: 'Allow plain HTTP on a non-loopback address (only behind a TLS-terminating proxy).',
  },
  baseDomain: {
    flag: 'base-domain', env: 'SIGHTLINE_BASE_DOMAIN', default: 'localhost', parse: domain,
    description: 'Domain of the collector addresses: tenant acme posts to acme-collector.<base-domain>.',
  },
  defaultTenant: {
    flag: 'default-tenant', env: 'SIGHTLINE_DEFAULT_TENANT', default: 'demo', parse: text,
    description: 'Tenant for collector requests whose Host is not <code>-collector.<base-domain>. Empty: such requests get 404.',
  },
  maxBodyBytes: {
    flag: 'max-body-bytes', env: 'SIGHTLINE_MAX_BODY_BYTES', default: 10 * MiB, parse: bytes(1024),
    description: 'Largest collector request body, both as sent (compressed) and after decompression.',
  },
  maxRecordBytes: {
    flag: 'max-record-bytes', env: 'SIGHTLINE_MAX_RECORD_BYTES', default: 1 * MiB, parse: bytes(64),
    description: 'Largest single record (one NDJSON line or a single-object body).',
  },
  maxQueueBytes: {
    flag: 'max-queue-bytes', env: 'SIGHTLINE_MAX_QUEUE_BYTES', default: 64 * MiB, parse: bytes(1024),
    description: 'Accepted-but-not-yet-committed record bytes held in memory; past it the collector answers 503 with Retry-After.',
  },
  maxInflightBytes: {
    flag: 'max-inflight-bytes', env: 'SIGHTLINE_MAX_INFLIGHT_BYTES', default: 256 * MiB, parse: bytes(1024),
    description: 'Memory for collector request bodies being read and parsed at once (as sent plus decompressed); past it the collector answers 503 with Retry-After.',
  },
  trustProxy: {
    flag: 'trust-proxy', env: 'SIGHTLINE_TRUST_PROXY', default: '', parse: trustProxy,
    description: 'Proxies whose X-Forwarded-For names the client: empty (none), true (any), or addresses/CIDR ranges. The client address keys the failed-login limit and the audit log.',
  },
  adminEmail: {
    flag: 'admin-email', env: 'SIGHTLINE_ADMIN_EMAIL', default: 'admin@localhost', parse: email,
    description: 'Email of the platform operator account created on first start with an empty database.',
  },
  adminPassword: {
    flag: 'admin-password', env: 'SIGHTLINE_ADMIN_PASSWORD', default: '', parse: adminPassword, secret: true,
    description: 'Password of that first operator account (environment only). Empty: one is generated and printed once.',
  },
  authMaxFailures: {
    flag: 'auth-max-failures', env: 'SIGHTLINE_AUTH_MAX_FAILURES', default: 10, parse: integer(1, 100_000),
    description: 'Failed logins or bad credentials allowed per client address within --auth-failure-window; past it the address gets 429 with Retry-After.',
  },
  authFailureWindow: {
    flag: 'auth-failure-window', env: 'SIGHTLINE_AUTH_FAILURE_WINDOW', default: 15 * 60_000, parse: duration(1_000, 86_400_000),
    description: 'Window over which failed attempts are counted, such as 15m.',
  },
  detection: {
    flag: 'detection', env: 'SIGHTLINE_DETECTION', default: 'on' as 'on' | 'off', parse: onOff,
    description: 'Run the detection worker in this process (on or off). Off: records are stored and searchable but no observations are made here.',
  },
  detectionChunk: {
    flag: 'detection-chunk', env: 'SIGHTLINE_DETECTION_CHUNK', default: 1_000, parse: integer(1, 10_000),
    description: 'Records the detection worker reads, matches and commits in one transaction (1–10000). Smaller: less memory and latency per chunk; larger: more throughput.',
  },
  detectionRulePaths: {
    flag: 'rule-paths', env: 'SIGHTLINE_RULE_PATHS', default: [] as string[], parse: pathList,
    description: 'Extra Sigma rule directories or files, comma-separated (e.g. a SigmaHQ checkout), loaded beside the bundled rules/.',
  },
  detectionPipeline: {
    flag: 'detection-pipeline', env: 'SIGHTLINE_DETECTION_PIPELINE', default: '', parse: existingFile,
    description: 'Processing pipeline YAML (logsource routing, field mapping, placeholders). Empty: the bundled config/detection-pipeline.yml.',
  },
  caseWindow: {
    flag: 'case-window', env: 'SIGHTLINE_CASE_WINDOW', default: 24 * 3_600_000, parse: duration(60_000, 30 * 86_400_000),
    description: "How close a new observation must be to an open case's last observation to join it, such as 24h (see README, Cases).",
  },
  caseGrouping: {
    flag: 'case-grouping', env: 'SIGHTLINE_CASE_GROUPING', default: 'device' as CaseGrouping, parse: caseGrouping,
    description: 'What an open case collects: device (every observation on the device) or device_rule (one case per device and rule). Observations without a device group by rule and source either way.',
  },
  geoipDatabase: {
    flag: 'geoip-database', env: 'SIGHTLINE_GEOIP_DATABASE', default: [] as string[], parse: pathList,
    description: 'MaxMind-format (.mmdb) city databases for IP locations, comma-separated (e.g. GeoLite2-City.mmdb). Empty: the bundled DB-IP City Lite (IPv4 and IPv6).',
  },
  summaryProvider: {
    flag: 'summary-provider', env: 'SIGHTLINE_SUMMARY_PROVIDER', default: 'builtin' as SummaryProviderName, parse: summaryProvider,
    description: 'AI case summaries: builtin (no network, not an LLM), openai (any OpenAI-compatible endpoint) or anthropic. Operators can override it per tenant.',
  },
  openaiBaseUrl: {
    flag: 'openai-base-url', env: 'SIGHTLINE_OPENAI_BASE_URL', default: 'https://api.openai.com/v1', parse: httpUrl,
    description: 'OpenAI-compatible endpoint: OpenAI, an Azure OpenAI deployment, Ollama (http://127.0.0.1:11434/v1), vLLM, llama.cpp server.',
  },
  openaiModel: {
    flag: 'openai-model', env: 'SIGHTLINE_OPENAI_MODEL', default: '', parse: text,
    description: 'Model for the openai provider (e.g. gpt-4.1-mini, llama3.1:8b). Required when that provider is used.',
  },
  openaiApiKey: {
    flag: 'openai-api-key', env: 'SIGHTLINE_OPENAI_API_KEY', default: '', parse: text, secret: true,
    description: 'API key for the openai provider (environment only). Empty for servers that need none (Ollama).',
  },
  anthropicBaseUrl: {
    flag: 'anthropic-base-url', env: 'SIGHTLINE_ANTHROPIC_BASE_URL', default: 'https://api.anthropic.com', parse: httpUrl,
    description: 'Anthropic API endpoint (or a proxy of it).',
  },
  anthropicModel: {
    flag: 'anthropic-model', env: 'SIGHTLINE_ANTHROPIC_MODEL', default: '', parse: text,
    description: 'Model for the anthropic provider (e.g. claude-sonnet-4-5). Required when that provider is used.',
  },
  anthropicApiKey: {
    flag: 'anthropic-api-key', env: 'SIGHTLINE_ANTHROPIC_API_KEY', default: '', parse: text, secret: true,
    description: 'API key for the anthropic provider (environment only).',
  },
  summaryTimeout: {
    flag: 'summary-timeout', env: 'SIGHTLINE_SUMMARY_TIMEOUT', default: 60_000, parse: duration(1_000, 600_000),
    description: 'Time allowed for one provider call, such as 60s; past it the call is retried or answered 504.',
  },
  summaryRetries: {
    flag: 'summary-retries', env: 'SIGHTLINE_SUMMARY_RETRIES', default: 2, parse: integer(0, 5),
    description: 'Retries of a provider call that timed out or failed with 429/5xx, with exponential backoff.',
  },
  summaryCacheTtl: {
    flag: 'summary-cache-ttl', env: 'SIGHTLINE_SUMMARY_CACHE_TTL', default: 24 * 3_600_000, parse: duration(0, 24 * 3_600_000),
    description: 'How long model input and output are cached (at most 24h, seed §8); 0 disables the cache.',
  },
  summaryMonitoring: {
    flag: 'summary-monitoring', env: 'SIGHTLINE_SUMMARY_MONITORING', default: 'local' as 'local' | 'otlp' | 'none', parse: monitoringSink,
    description: 'Where the monitoring copy of model input, output and feedback goes: local (NDJSON files in the data directory), otlp (OpenTelemetry GenAI spans, e.g. to Langfuse) or none.',
  },
  summaryMonitoringRetention: {
    flag: 'summary-monitoring-retention', env: 'SIGHTLINE_SUMMARY_MONITORING_RETENTION', default: 0, parse: integer(0, 100_000),
    description: 'Days the local monitoring files are kept; 0 (the default) keeps them indefinitely, as the seed states.',
  },
  otlpEndpoint: {
    flag: 'otlp-endpoint', env: 'SIGHTLINE_OTLP_ENDPOINT', default: '', parse: text,
    description: 'OTLP/HTTP endpoint for --summary-monitoring otlp (spans go to <endpoint>/v1/traces), e.g. https://cloud.langfuse.com/api/public/otel.',
  },
  otlpHeaders: {
    flag: 'otlp-headers', env: 'SIGHTLINE_OTLP_HEADERS', default: {} as Record<string, string>, parse: headerList, secret: true,
    description: 'Headers for the OTLP endpoint, comma-separated name=value (environment only: they usually hold credentials), e.g. Authorization=Basic …',
  },
  logLevel: {
    flag: 'log-level', env: 'SIGHTLINE_LOG_LEVEL', default: 'info', parse: logLevel,
    description: 'Server log level: fatal, error, warn, info, debug, trace or silent.',
  },
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof settings;
export type Config = { [K in keyof Settings]: Settings[K]['default'] };
export type SettingName = keyof Settings;

/** Raw values as they come from the command line (commander's camelCase keys). */
export type CliValues = Partial<Record<SettingName, string | boolean | number | undefined>>;

/**
 * Resolve the configuration: command-line value, else environment variable, else default.
 * Throws ConfigError naming the setting when a value is invalid.
 */
export function loadConfig(cli: CliValues = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const config: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(settings) as [SettingName, Setting<unknown>][]) {
    const fromCli = spec.secret ? undefined : cli[name];
    const raw = fromCli !== undefined ? String(fromCli) : env[spec.env];
    if (raw === undefined) {
      config[name] = spec.default;
      continue;
    }
    try {
      config[name] = spec.parse(raw);
    } catch (error) {
      const origin = fromCli !== undefined ? `--${spec.flag}` : spec.env;
      const reason = error instanceof Error ? error.message : String(error);
      throw new ConfigError(`invalid configuration: ${origin} ${reason}${spec.secret ? '' : ` (got ${JSON.stringify(raw)})`}`);
    }
  }
  return validateTogether(config as Config);
}

function validateTogether(config: Config): Config {
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) {
    throw new ConfigError('invalid configuration: --tls-cert (SIGHTLINE_TLS_CERT) and --tls-key (SIGHTLINE_TLS_KEY) must be given together');
  }
  if (config.defaultTenant !== '' && !isValidCodeName(config.defaultTenant)) {
    throw new ConfigError(`invalid configuration: --default-tenant (SIGHTLINE_DEFAULT_TENANT) ${codeNameRule} (got ${JSON.stringify(config.defaultTenant)})`);
  }
  for (const [file, setting] of [[config.tlsCert, '--tls-cert (SIGHTLINE_TLS_CERT)'], [config.tlsKey, '--tls-key (SIGHTLINE_TLS_KEY)']] as const) {
    if (file && !isReadableFile(file)) throw new ConfigError(`invalid configuration: ${setting} ${JSON.stringify(file)} is not a readable file`);
  }
  if (config.summaryMonitoring === 'otlp' && config.otlpEndpoint === '') {
    throw new ConfigError('invalid configuration: --summary-monitoring otlp needs --otlp-endpoint (SIGHTLINE_OTLP_ENDPOINT)');
  }
  for (const [provider, model, setting] of [['openai', config.openaiModel, '--openai-model (SIGHTLINE_OPENAI_MODEL)'], ['anthropic', config.anthropicModel, '--anthropic-model (SIGHTLINE_ANTHROPIC_MODEL)']] as const) {
    if (config.summaryProvider === provider && model === '') throw new ConfigError(`invalid configuration: --summary-provider ${provider} needs ${setting}`);
  }
  if (config.maxRecordBytes > config.maxBodyBytes) {
    throw new ConfigError('invalid configuration: --max-record-bytes (SIGHTLINE_MAX_RECORD_BYTES) must not exceed --max-body-bytes (SIGHTLINE_MAX_BODY_BYTES)');
  }
  return { ...config, dataDir: path.resolve(config.dataDir) };
}

function isReadableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return fs.statSync(file).isFile();
  } catch {
    // Missing or unreadable: the caller reports the setting that names it.
    return false;
  }
}

/** Serving plain HTTP on a routable address would expose tokens and logs; refuse unless told. */
export function checkListenSafety(config: Config): void {
  const tls = Boolean(config.tlsCert);
  if (!tls && !config.insecureHttp && !isLoopback(config.host)) {
    throw new ConfigError(
      `invalid configuration: --host (SIGHTLINE_HOST) ${config.host} is not a loopback address and no TLS is configured; ` +
        'give --tls-cert and --tls-key, or --insecure-http when a TLS-terminating proxy sits in front',
    );
  }
}

export function isLoopback(host: string): boolean {
  const value = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (value === 'localhost' || value === '::1') return true;
  return isIP(value) === 4 && value.startsWith('127.');
}
