// Copy-ready OTLP/HTTP configurations for a tenant's collector (docs/collector.md, OTLP): the
// OpenTelemetry Collector's otlphttp exporter and Fluent Bit's opentelemetry output, each reading
// JSON-lines files and sending each line as a log body, which the intake stores as the record.
// Set up like the /log_sink configurations to lose nothing: progress and queue on disk, retries
// without a limit. Pure and browser-safe.
import {
  collectorTarget,
  defaultLogPath,
  forwarderSettings,
  INGEST_KEY_ENV,
  type ConfigFile,
} from './forwarder-basics.js';

export const otlpForwarderVersions = { otelCollector: '0.130', fluentBit: '4.2' } as const;

export interface OtlpForwarderConfig {
  id: 'otel-collector' | 'fluent-bit-otlp';
  name: string;
  version: string;
  files: ConfigFile[];
  notes: string[];
}

/** The tenant's OTLP logs endpoint: `https://acme-collector.example.com/v1/logs`. */
export function otlpLogsEndpoint(collectorUrl: string): string {
  const url = new URL(collectorUrl);
  return `${url.protocol}//${url.host}/v1/logs`;
}

/** The OpenTelemetry Collector (contrib: filelog and file_storage) with the otlphttp exporter. */
export function otelCollectorConfig(
  collectorUrl: string,
  options: { logPath?: string; encoding?: 'proto' | 'json'; keyed?: boolean; stateDir?: string } = {},
): OtlpForwarderConfig {
  const { logPath = defaultLogPath, encoding = 'proto', keyed = false, stateDir = '/var/lib/otelcol' } = options;
  const { maxRetryWaitSeconds, flushSeconds, batchRecords } = forwarderSettings;
  const headers = keyed ? `    headers:\n      authorization: "Bearer \${env:${INGEST_KEY_ENV}}"\n` : '';
  const text = `extensions:
  # Where each file was read up to and the export queue: both survive a restart.
  file_storage:
    directory: ${stateDir}/file_storage

receivers:
  filelog:
    include: [${logPath}]
    start_at: beginning
    storage: file_storage

processors:
  batch:
    timeout: ${flushSeconds}s
    send_batch_size: ${batchRecords}

exporters:
  otlphttp/sightline:
    logs_endpoint: ${otlpLogsEndpoint(collectorUrl)}
    encoding: ${encoding}
    compression: gzip
${headers}    retry_on_failure:
      enabled: true
      max_interval: ${maxRetryWaitSeconds}s
      # 0: a batch is retried until the collector takes it.
      max_elapsed_time: 0
    sending_queue:
      enabled: true
      storage: file_storage

service:
  extensions: [file_storage]
  pipelines:
    logs:
      receivers: [filelog]
      processors: [batch]
      exporters: [otlphttp/sightline]
`;
  return {
    id: 'otel-collector',
    name: 'OpenTelemetry Collector',
    version: otlpForwarderVersions.otelCollector,
    files: [{ path: '/etc/otelcol-contrib/config.yaml', text }],
    notes: [
      'Each line is sent as the log body; a line holding a JSON object is stored as that object, with the OTLP context under `otlp`.',
      `encoding: proto is the default; encoding: json sends OTLP/JSON to the same endpoint.`,
      ...(keyed
        ? [`The ingest key is read from the environment variable ${INGEST_KEY_ENV} of the collector's service.`]
        : []),
    ],
  };
}

/** Fluent Bit's tail input to its opentelemetry output: each line is the log body, as read. */
export function fluentBitOtlpConfig(
  collectorUrl: string,
  options: { logPath?: string; keyed?: boolean; stateDir?: string } = {},
): OtlpForwarderConfig {
  const { logPath = defaultLogPath, keyed = false, stateDir = '/var/lib/fluent-bit' } = options;
  const target = collectorTarget(collectorUrl);
  const { flushSeconds, diskBufferMb, maxRetryWaitSeconds, memoryBufferMb } = forwarderSettings;
  const tls = target.tls
    ? ['    tls                  On', '    tls.verify           On']
    : ['    tls                  Off'];
  const text = [
    '[SERVICE]',
    `    Flush                ${flushSeconds}`,
    `    storage.path         ${stateDir}/storage/`,
    `    scheduler.cap        ${maxRetryWaitSeconds}`,
    '',
    '[INPUT]',
    '    Name                 tail',
    `    Path                 ${logPath}`,
    `    DB                   ${stateDir}/sightline-otlp-tail.db`,
    `    Mem_Buf_Limit        ${memoryBufferMb}MB`,
    '    storage.type         filesystem',
    '',
    '[OUTPUT]',
    '    Name                 opentelemetry',
    '    Match                *',
    `    Host                 ${target.host}`,
    `    Port                 ${target.port}`,
    '    Logs_uri             /v1/logs',
    // The line as read (tail's `log` key) is the body; the intake parses a JSON object in it.
    '    Logs_body_key        log',
    '    http2                Off',
    ...tls,
    '    compress             gzip',
    ...(keyed ? [`    Header               Authorization Bearer \${${INGEST_KEY_ENV}}`] : []),
    '    Retry_Limit          no_limits',
    `    storage.total_limit_size ${diskBufferMb}M`,
    '',
  ].join('\n');
  return {
    id: 'fluent-bit-otlp',
    name: 'Fluent Bit (OpenTelemetry)',
    version: otlpForwarderVersions.fluentBit,
    files: [{ path: '/etc/fluent-bit/fluent-bit.conf', text }],
    notes: [
      'Sends protobuf (OTLP/HTTP) with gzip; the /log_sink configuration remains the simpler choice for JSON files.',
      ...(keyed ? [`The ingest key is read from the environment variable ${INGEST_KEY_ENV}.`] : []),
    ],
  };
}
