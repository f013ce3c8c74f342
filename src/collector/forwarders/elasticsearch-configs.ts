// Copy-ready configurations for shippers' Elasticsearch outputs, sending to the collector's bulk
// API (docs/collector.md, Elasticsearch bulk): Fluent Bit `es`, Vector `elasticsearch`, Logstash
// `elasticsearch` and Filebeat `output.elasticsearch`. Each retries without a limit, keeps TLS
// verification on, turns off the index templates and lifecycle policies it would otherwise
// install, and sends the ingest key as HTTP Basic's password when the tenant requires one.
import {
  collectorTarget,
  forwarderSettings,
  INGEST_KEY_ENV,
  keyNote,
  section,
  type ForwarderConfig,
} from './forwarder-basics.js';

/** Versions the Elasticsearch outputs' options were checked against. */
export const elasticsearchOutputVersions = {
  fluentBit: '4.2',
  vector: '0.48',
  logstash: '8.19',
  filebeat: '8.19',
} as const;

/** The index name the configurations send: kept with each record as `_index`. */
export const BULK_INDEX = 'sightline';

const origin = (collectorUrl: string) => new URL(collectorUrl).origin;

export function fluentBitEsConfig(collectorUrl: string, keyed = false): ForwarderConfig {
  const target = collectorTarget(collectorUrl);
  const output = section('OUTPUT', [
    ['Name', 'es'],
    ['Match', '*'],
    ['Host', target.host],
    ['Port', target.port],
    ['Index', BULK_INDEX],
    // Elasticsearch 8 takes no mapping type on an action line.
    ['Suppress_Type_Name', 'On'],
    ['Write_Operation', 'create'],
    ...(target.tls
      ? ([
          ['tls', 'On'],
          ['tls.verify', 'On'],
        ] as [string, string][])
      : ([['tls', 'Off']] as [string, string][])),
    ...(keyed
      ? ([
          ['HTTP_User', 'sightline'],
          ['HTTP_Passwd', `\${${INGEST_KEY_ENV}}`],
        ] as [string, string][])
      : []),
    // Failed items are logged with Elasticsearch's reason.
    ['Trace_Error', 'On'],
    ['Retry_Limit', 'no_limits'],
    ['net.keepalive', 'On'],
    ['storage.total_limit_size', `${forwarderSettings.diskBufferMb}M`],
  ]);
  return {
    id: 'fluent-bit-es',
    name: 'Fluent Bit es output',
    version: elasticsearchOutputVersions.fluentBit,
    files: [{ path: '/etc/fluent-bit/fluent-bit.conf', text: `${output}\n` }],
    notes: [
      'This [OUTPUT] replaces the http output of the Fluent Bit configuration; keep its [SERVICE] and [INPUT] (the tail DB and filesystem storage lose nothing).',
      'Fluent Bit adds @timestamp to each record; the collector takes it as the event time.',
      ...(keyed ? [keyNote] : []),
    ],
  };
}

export function vectorEsConfig(collectorUrl: string, keyed = false): ForwarderConfig {
  const { diskBufferMb, maxRetryWaitSeconds, flushSeconds } = forwarderSettings;
  const tls = collectorTarget(collectorUrl).tls;
  const text = `sinks:
  sightline:
    type: elasticsearch
    inputs: [app_json]
    endpoints:
      - ${origin(collectorUrl)}
    # Named, so Vector does not ask the cluster for its version.
    api_version: v8
    mode: bulk
    bulk:
      action: create
      index: ${BULK_INDEX}
    compression: gzip
${keyed ? `    auth:\n      strategy: basic\n      user: sightline\n      password: "\${${INGEST_KEY_ENV}}"\n` : ''}    request:
      retry_initial_backoff_secs: 1
      retry_max_duration_secs: ${maxRetryWaitSeconds}
    batch:
      timeout_secs: ${flushSeconds}
    buffer:
      type: disk
      max_size: ${diskBufferMb * 1024 * 1024}
      when_full: block
    acknowledgements:
      enabled: true
${tls ? '    tls:\n      verify_certificate: true\n      verify_hostname: true\n' : ''}`;
  return {
    id: 'vector-es',
    name: 'Vector elasticsearch sink',
    version: elasticsearchOutputVersions.vector,
    files: [{ path: '/etc/vector/vector.yaml', text }],
    notes: [
      'This sink replaces the http sink of the Vector configuration; keep its data_dir, file source and app_json transform.',
      'Vector retries failed items without a limit; the healthcheck asks /_cluster/health, which the collector answers.',
      ...(keyed ? [keyNote] : []),
    ],
  };
}

export function logstashConfig(collectorUrl: string, logPath: string, keyed = false): ForwarderConfig {
  const text = `input {
  file {
    path => "${logPath}"
    codec => json
    # Where each file was read up to, so a restart neither skips nor repeats lines.
    sincedb_path => "/var/lib/logstash/sincedb-sightline"
  }
}

output {
  elasticsearch {
    hosts => ["${origin(collectorUrl)}"]
    index => "${BULK_INDEX}"
    action => "create"
    # Records do not live in indices: no template, lifecycle policy or data stream to set up.
    manage_template => false
    ilm_enabled => false
    data_stream => false
${keyed ? `    user => "sightline"\n    password => "\${${INGEST_KEY_ENV}}"\n` : ''}    http_compression => true
${collectorTarget(collectorUrl).tls ? '    ssl_enabled => true\n    ssl_verification_mode => "full"\n' : ''}  }
}
`;
  return {
    id: 'logstash',
    name: 'Logstash',
    version: elasticsearchOutputVersions.logstash,
    files: [{ path: '/etc/logstash/conf.d/sightline.conf', text }],
    notes: [
      'Logstash retries 429 and 5xx answers without a limit; turn on its persistent queue (queue.type: persisted in logstash.yml) so nothing waiting is lost on a restart.',
      ...(keyed ? [keyNote] : []),
    ],
  };
}

export function filebeatConfig(collectorUrl: string, logPath: string, keyed = false): ForwarderConfig {
  const text = `filebeat.inputs:
  - type: filestream
    id: sightline-app
    paths:
      - ${logPath}
    parsers:
      - ndjson:
          target: ""
          add_error_key: true

output.elasticsearch:
  hosts: ["${origin(collectorUrl)}"]
  compression_level: 1
${keyed ? `  username: sightline\n  password: "\${${INGEST_KEY_ENV}}"\n` : ''}  # The collector answers as Elasticsearch 8.x: newer Beats may send to it.
  allow_older_versions: true
${collectorTarget(collectorUrl).tls ? '  ssl.verification_mode: full\n' : ''}
# Records do not live in indices: no template or lifecycle policy to install.
setup.template.enabled: false
setup.ilm.enabled: false
`;
  return {
    id: 'filebeat',
    name: 'Filebeat',
    version: elasticsearchOutputVersions.filebeat,
    files: [{ path: '/etc/filebeat/filebeat.yml', text }],
    notes: [
      'Filebeat keeps its place in each file in its registry and retries without a limit; Winlogbeat takes the same output.elasticsearch section.',
      ...(keyed ? [keyNote] : []),
    ],
  };
}

/** The Elasticsearch-output configurations, in the order the UI shows them after the others. */
export function elasticsearchOutputConfigs(collectorUrl: string, logPath: string, keyed = false): ForwarderConfig[] {
  return [
    fluentBitEsConfig(collectorUrl, keyed),
    vectorEsConfig(collectorUrl, keyed),
    logstashConfig(collectorUrl, logPath, keyed),
    filebeatConfig(collectorUrl, logPath, keyed),
  ];
}
