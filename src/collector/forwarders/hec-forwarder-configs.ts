// Copy-ready configurations for forwarders already set up for Splunk: Fluent Bit's `splunk`
// output and Vector's `splunk_hec_logs` sink, pointed at the collector's HEC endpoint
// (docs/collector.md, Splunk HEC). Same client settings as the /log_sink configurations beside
// them: TLS verified, gzip, disk buffer, retries without a limit; the ingest key from the
// environment when the tenant requires one. Pure and browser-safe: imports only its sibling.
import {
  collectorTarget,
  forwarderSettings,
  forwarderVersions,
  INGEST_KEY_ENV,
  type ForwarderConfig,
} from './forwarder-basics.js';

/** The HEC event endpoint: each record goes as one event object, metadata beside it. */
export const HEC_EVENT_PATH = '/services/collector/event';

/** Fluent Bit's [OUTPUT] for its `splunk` plugin; `keyed` adds the ingest key as the HEC token. */
export function fluentBitSplunkOutput(collectorUrl: string, keyed = false): string {
  const target = collectorTarget(collectorUrl);
  const entries: [string, string | number][] = [
    ['Name', 'splunk'],
    ['Match', '*'],
    ['Host', target.host],
    ['Port', target.port],
    ...(keyed ? ([['splunk_token', `\${${INGEST_KEY_ENV}}`]] as [string, string][]) : []),
    ['compress', 'gzip'],
    ...(target.tls
      ? ([
          ['tls', 'On'],
          ['tls.verify', 'On'],
          ['tls.verify_hostname', 'On'],
        ] as [string, string][])
      : ([['tls', 'Off']] as [string, string][])),
    // Kept under hec.sourcetype in each record: a name to search the records by.
    ['event_sourcetype', 'fluent-bit'],
    ['Retry_Limit', 'no_limits'],
    ['net.keepalive', 'On'],
    ['storage.total_limit_size', `${forwarderSettings.diskBufferMb}M`],
  ];
  const width = Math.max(...entries.map(([key]) => key.length)) + 1;
  return ['[OUTPUT]', ...entries.map(([key, value]) => `    ${key.padEnd(width)}${value}`)].join('\n');
}

export function fluentBitSplunkConfig(collectorUrl: string, keyed = false): ForwarderConfig {
  return {
    id: 'fluent-bit-hec',
    name: 'Fluent Bit (Splunk output)',
    version: forwarderVersions.fluentBit,
    files: [{ path: '/etc/fluent-bit/fluent-bit.conf', text: `${fluentBitSplunkOutput(collectorUrl, keyed)}\n` }],
    notes: [
      'Replace the [OUTPUT] of a Fluent Bit already sending to Splunk; its inputs and storage settings stay.',
      'Each record is sent as the HEC event and stored as it is, its Splunk metadata under hec.',
      ...(keyed ? [`The ingest key is read from the environment variable ${INGEST_KEY_ENV}.`] : []),
    ],
  };
}

/** Vector's `splunk_hec_logs` sink, reading from `input`. */
export function vectorSplunkHecSink(collectorUrl: string, keyed = false, input = 'app_logs'): string {
  const target = collectorTarget(collectorUrl);
  const { flushSeconds, httpTimeoutSeconds, diskBufferMb, maxRetryWaitSeconds } = forwarderSettings;
  const origin = `${target.tls ? 'https' : 'http'}://${target.host}:${target.port}`;
  return `sinks:
  sightline_hec:
    type: splunk_hec_logs
    inputs: [${input}]
    endpoint: ${origin}
    endpoint_target: event
${
  keyed
    ? `    default_token: "\${${INGEST_KEY_ENV}}"\n`
    : '    # Vector requires a token; this collector needs none, and ignores one it does not know.\n    default_token: not-required\n'
}    sourcetype: vector
    compression: gzip
    encoding:
      codec: json
    request:
      timeout_secs: ${httpTimeoutSeconds}
      # retry_attempts is left unset: Vector then retries 429, 5xx and outages without a limit.
      retry_max_duration_secs: ${maxRetryWaitSeconds}
    batch:
      timeout_secs: ${flushSeconds}
      max_bytes: 1048576
    buffer:
      type: disk
      max_size: ${diskBufferMb * 1024 * 1024}
      when_full: block
    acknowledgements:
      # The collector answers only once records are durable; it hands out no HEC ack ids to poll.
      enabled: true
      indexer_acknowledgements_enabled: false
${target.tls ? '    tls:\n      verify_certificate: true\n      verify_hostname: true\n' : ''}`;
}

export function vectorSplunkHecConfig(collectorUrl: string, keyed = false): ForwarderConfig {
  return {
    id: 'vector-hec',
    name: 'Vector (Splunk HEC sink)',
    version: forwarderVersions.vector,
    files: [{ path: '/etc/vector/sightline-hec.yaml', text: vectorSplunkHecSink(collectorUrl, keyed) }],
    notes: [
      'Add this sink beside an existing configuration; set inputs to the sources or transforms to send.',
      'indexer_acknowledgements_enabled is off: a 200 from the collector already means the records are durable.',
      ...(keyed ? [`The ingest key is read from the environment variable ${INGEST_KEY_ENV}.`] : []),
    ],
  };
}

/** Both HEC configurations for this collector. */
export function hecForwarderConfigs(collectorUrl: string, keyed = false): ForwarderConfig[] {
  return [fluentBitSplunkConfig(collectorUrl, keyed), vectorSplunkHecConfig(collectorUrl, keyed)];
}
