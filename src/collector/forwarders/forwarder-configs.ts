// Copy-ready forwarder configurations for a tenant's collector: Fluent Bit, Vector, syslog-ng and
// rsyslog (docs/collector.md, Forwarder configuration). Each sends one JSON object per line with no date key
// of its own, verifies TLS, keeps connections alive, flushes every 5 s from a 5 MB input buffer
// and skips lines over 32 KB; and each is set up to lose nothing: its progress in the files it
// reads survives restarts, it buffers on disk while the collector is away, it waits (flow
// control) rather than drops when full, and it retries 503s and outages without a limit.
// When the tenant requires ingest keys, each also sends the key: read from the environment
// variable SIGHTLINE_INGEST_KEY where the forwarder can, else written into the file.
// Every option is checked against the forwarder version named beside it. The web UI
// (Settings › Collector) shows these; docs/collector.md's Fluent Bit block is checked against them.
// Pure and browser-safe. The Elasticsearch outputs are in elasticsearch-configs.ts.
import {
  collectorTarget,
  defaultLogPath,
  forwarderSettings,
  forwarderVersions,
  INGEST_KEY_ENV,
  INGEST_KEY_PLACEHOLDER,
  keyNote,
  section,
  type ForwarderConfig,
} from './forwarder-basics.js';
import { elasticsearchOutputConfigs } from './elasticsearch-configs.js';
import { hecForwarderConfigs } from './hec-forwarder-configs.js';
import { fluentBitOtlpConfig, otelCollectorConfig } from './otlp-forwarder-configs.js';

export {
  collectorTarget,
  defaultLogPath,
  forwarderSettings,
  forwarderVersions,
  INGEST_KEY_ENV,
  INGEST_KEY_PLACEHOLDER,
} from './forwarder-basics.js';
export type { CollectorTarget, ConfigFile, ForwarderConfig } from './forwarder-basics.js';

/** The [OUTPUT] section alone: the part the collector documentation prescribes. */
export function fluentBitOutput(collectorUrl: string, keyed = false): string {
  const target = collectorTarget(collectorUrl);
  const { diskBufferMb } = forwarderSettings;
  return section('OUTPUT', [
    ['Name', 'http'],
    ['Match', '*'],
    ['Host', target.host],
    ['Port', target.port],
    ['URI', '/log_sink'],
    ['Format', 'json_lines'],
    ['json_date_key', 'false'],
    ...(target.tls
      ? ([
          ['tls', 'On'],
          ['tls.verify', 'On'],
          ['tls.verify_hostname', 'On'],
        ] as [string, string][])
      : ([['tls', 'Off']] as [string, string][])),
    ['Header', 'Content-Type application/json'],
    // HTTP Basic with the key as password (the user name is not checked).
    ...(keyed
      ? ([
          ['http_user', 'sightline'],
          ['http_passwd', `\${${INGEST_KEY_ENV}}`],
        ] as [string, string][])
      : []),
    // Unlimited: a batch is kept (on disk) and retried until the collector takes it.
    ['Retry_Limit', 'no_limits'],
    ['net.keepalive', 'On'],
    ['storage.total_limit_size', `${diskBufferMb}M`],
  ]);
}

export function fluentBitConfig(
  collectorUrl: string,
  logPath = defaultLogPath,
  stateDir = '/var/lib/fluent-bit',
  keyed = false,
): ForwarderConfig {
  const { flushSeconds, memoryBufferMb, maxLineKb, maxRetryWaitSeconds } = forwarderSettings;
  const main = [
    section('SERVICE', [
      ['Flush', flushSeconds],
      ['Log_Level', 'info'],
      ['Parsers_File', 'parsers_sightline.conf'],
      // Chunks wait on disk while the collector is away, and survive a restart of Fluent Bit.
      ['storage.path', `${stateDir}/storage/`],
      ['storage.sync', 'normal'],
      ['storage.backlog.mem_limit', `${memoryBufferMb}M`],
      ['scheduler.base', 1],
      ['scheduler.cap', maxRetryWaitSeconds],
    ]),
    section('INPUT', [
      ['Name', 'tail'],
      ['Path', logPath],
      ['Tag', 'app.*'],
      ['Parser', 'sightline_json'],
      // Where each file was read up to, so a restart neither skips nor repeats lines.
      ['DB', `${stateDir}/sightline-tail.db`],
      ['Mem_Buf_Limit', `${memoryBufferMb}MB`],
      ['storage.type', 'filesystem'],
      // Both sizes spelled the same way: Fluent Bit refuses a maximum below the chunk size.
      ['Buffer_Chunk_Size', `${maxLineKb}k`],
      ['Buffer_Max_Size', `${maxLineKb}k`],
      ['Skip_Long_Lines', 'On'],
      ['Refresh_Interval', 10],
    ]),
    fluentBitOutput(collectorUrl, keyed),
  ].join('\n\n');
  // Fluent Bit's stock `json` parser takes the `time` field as the record's time and drops it;
  // this one keeps every field of the application's object.
  const parsers = section('PARSER', [
    ['Name', 'sightline_json'],
    ['Format', 'json'],
  ]);
  return {
    id: 'fluent-bit',
    name: 'Fluent Bit',
    version: forwarderVersions.fluentBit,
    files: [
      { path: '/etc/fluent-bit/fluent-bit.conf', text: `${main}\n` },
      { path: '/etc/fluent-bit/parsers_sightline.conf', text: `${parsers}\n` },
    ],
    notes: [
      'Format json_lines sends one JSON object per line. Format json (an array of date-and-record pairs) is refused with HTTP 500: the collector cannot add its time to it.',
      'json_date_key false: the collector stamps each record with its own receive time; the forwarder adds no date key.',
      'Fluent Bit logs HTTP status=201 for each accepted send.',
      `Retry_Limit no_limits with filesystem storage keeps every batch until the collector takes it (the collector documentation's Retry_Limit 3 drops a batch after three failed tries); create ${stateDir} first.`,
      ...(keyed ? [keyNote] : []),
    ],
  };
}

export function vectorConfig(
  collectorUrl: string,
  logPath = defaultLogPath,
  stateDir = '/var/lib/vector',
  keyed = false,
): ForwarderConfig {
  const target = collectorTarget(collectorUrl);
  const { flushSeconds, maxLineKb, httpTimeoutSeconds, diskBufferMb, maxRetryWaitSeconds } = forwarderSettings;
  const text = `# Where Vector keeps its file checkpoints and the disk buffer.
data_dir: ${stateDir}

sources:
  app_logs:
    type: file
    include:
      - ${logPath}
    max_line_bytes: ${maxLineKb * 1024}

transforms:
  app_json:
    type: remap
    inputs: [app_logs]
    # Send the application's own JSON object, without Vector's fields (no timestamp: the
    # collector stamps records itself). A line that is not a JSON object goes as its message.
    source: |
      parsed, err = parse_json(string!(.message))
      if err == null && is_object(parsed) {
        . = object!(parsed)
      } else {
        . = { "message": .message }
      }

sinks:
  sightline:
    type: http
    inputs: [app_json]
    uri: ${target.sinkUrl}
    method: post
    encoding:
      codec: json
    framing:
      method: newline_delimited
${keyed ? `    auth:\n      strategy: bearer\n      token: "\${${INGEST_KEY_ENV}}"\n` : ''}    request:
      headers:
        Content-Type: application/json
      timeout_secs: ${httpTimeoutSeconds}
      # retry_attempts is left unset: Vector then retries 408, 429, 5xx and outages without a limit.
      retry_initial_backoff_secs: 1
      retry_max_duration_secs: ${maxRetryWaitSeconds}
    batch:
      timeout_secs: ${flushSeconds}
      max_bytes: 1048576
    # While the collector is away, records wait on disk; when the buffer is full, reading stops.
    buffer:
      type: disk
      max_size: ${diskBufferMb * 1024 * 1024}
      when_full: block
    # A file's checkpoint moves only once the collector has answered 201 for its lines.
    acknowledgements:
      enabled: true
${target.tls ? '    tls:\n      verify_certificate: true\n      verify_hostname: true\n' : ''}`;
  return {
    id: 'vector',
    name: 'Vector',
    version: forwarderVersions.vector,
    files: [{ path: '/etc/vector/vector.yaml', text }],
    notes: [
      'framing newline_delimited with the json codec sends one JSON object per line, as the collector expects.',
      `Create ${stateDir} (owned by the user Vector runs as) before starting it.`,
      ...(keyed ? [keyNote] : []),
    ],
  };
}

export function syslogNgConfig(
  collectorUrl: string,
  logPath = defaultLogPath,
  stateDir = '/var/lib/syslog-ng',
  keyed = false,
): ForwarderConfig {
  const target = collectorTarget(collectorUrl);
  const { flushSeconds, maxLineKb, httpTimeoutSeconds, batchRecords, diskBufferMb, memoryBufferMb } = forwarderSettings;
  const slash = logPath.lastIndexOf('/');
  const text = `source s_sightline_app {
  wildcard-file(
    base-dir("${logPath.slice(0, slash) || '/'}")
    filename-pattern("${logPath.slice(slash + 1)}")
    flags(no-parse)
    log-msg-size(${maxLineKb * 1024})
    # A window far above a batch: with flow control the source reads on until the destination
    # has taken a whole batch (the default of 100 would send 100 lines per flush interval).
    log-iw-size(${batchRecords * 20})
    log-fetch-limit(${batchRecords})
    follow-freq(1)
  );
};

destination d_sightline {
  http(
    url("${target.sinkUrl}")
    method("POST")
    headers("Content-Type: application/json")
${keyed ? `    # HTTP Basic with the key as password (the user name is not checked).\n    user("sightline")\n    password("\`${INGEST_KEY_ENV}\`")\n` : ''}    body("\${MESSAGE}")
    body-suffix("\\n")
    batch-lines(${batchRecords})
    batch-timeout(${flushSeconds * 1000})
    timeout(${httpTimeoutSeconds})
    # 5xx answers (503: the collector is busy) count as retries; a million is no limit in practice.
    # An outage (connection refused) is retried every time-reopen() seconds, without a count.
    retries(1000000)
    time-reopen(1)
    persist-name("sightline")
    # Batches wait on disk while the collector is away, and survive a restart of syslog-ng.
    disk-buffer(
      reliable(yes)
      disk-buf-size(${diskBufferMb * 1024 * 1024})
      mem-buf-size(${memoryBufferMb * 1024 * 1024})
      dir("${stateDir}")
    )
${target.tls ? '    tls(peer-verify(yes))\n' : ''}  );
};

log {
  source(s_sightline_app);
  # Every line goes as a JSON object: an application's JSON line as it is, any other line as
  # {"message": …} (a line that is not JSON would make the collector refuse its whole batch).
  if {
    parser { json-parser(prefix(".sightline.")); };
  } else {
    rewrite { set("$(format-json message=\${MESSAGE})" value("MESSAGE")); };
  };
  destination(d_sightline);
  # Flow control: when the destination is full the source stops reading; nothing is dropped.
  flags(flow-control);
};
`;
  return {
    id: 'syslog-ng',
    name: 'syslog-ng',
    version: forwarderVersions.syslogNg,
    files: [{ path: '/etc/syslog-ng/conf.d/sightline.conf', text }],
    notes: [
      'flags(no-parse) keeps each line whole; body("${MESSAGE}") with body-suffix("\\n") sends the lines of a batch as newline-delimited JSON.',
      'Needs the http() destination (Debian: syslog-ng-mod-http).',
      'flags(flow-control) with a reliable disk-buffer() loses nothing on a burst or while the collector restarts; without them syslog-ng drops what its queue cannot hold.',
      ...(keyed ? [keyNote] : []),
    ],
  };
}

export function rsyslogConfig(
  collectorUrl: string,
  logPath = defaultLogPath,
  stateDir = '/var/spool/rsyslog',
  keyed = false,
): ForwarderConfig {
  const target = collectorTarget(collectorUrl);
  const { maxLineKb, batchRecords, diskBufferMb } = forwarderSettings;
  const text = `global(maxMessageSize="${maxLineKb}k" workDirectory="${stateDir}")

module(load="imfile")
module(load="omhttp")

# Each line as read: the application's JSON object.
template(name="sightline_line" type="string" string="%msg%")

input(type="imfile" File="${logPath}" Tag="app" ruleset="sightline")

# A disk-assisted queue: lines wait on disk while the collector is away, and across restarts.
ruleset(
  name="sightline"
  queue.type="LinkedList"
  queue.size="10000"
  queue.filename="sightline"
  queue.maxDiskSpace="${diskBufferMb}m"
  queue.saveOnShutdown="on"
) {
  action(
    type="omhttp"
    server="${target.host}"
    serverport="${target.port}"
    restpath="log_sink"
    usehttps="${target.tls ? 'on' : 'off'}"
${target.tls ? '    allowunsignedcerts="off"\n    skipverifyhost="off"\n' : ''}${keyed ? `    uid="sightline"\n    pwd="${INGEST_KEY_PLACEHOLDER}"\n` : ''}    httpheaders=["Content-Type: application/json"]
    template="sightline_line"
    batch="on"
    batch.format="newline"
    batch.maxsize="${batchRecords}"
    action.resumeRetryCount="-1"
    action.resumeInterval="1"
  )
}
`;
  return {
    id: 'rsyslog',
    name: 'rsyslog',
    version: forwarderVersions.rsyslog,
    files: [{ path: '/etc/rsyslog.d/60-sightline.conf', text }],
    notes: [
      'batch.format="newline" sends a batch as newline-delimited JSON; "jsonarray" would be an array, which the collector refuses.',
      'action.resumeRetryCount="-1" retries without a limit; the disk-assisted queue holds lines meanwhile.',
      "Needs the omhttp module (rsyslog 8.2102 or later). Debian's rsyslog package does not include it: there, forward with one of the other configurations (docs/collector.md, Forwarder configuration).",
      ...(keyed
        ? [
            `Replace ${INGEST_KEY_PLACEHOLDER} with the ingest key (sent as the HTTP Basic password) and make the file readable by root only.`,
          ]
        : []),
    ],
  };
}

/** Every forwarder's configuration for this collector, in the order the UI shows them. */
/** With `keyed`, each also sends the tenant's ingest key (the tenant requires one). */
export function forwarderConfigs(collectorUrl: string, logPath = defaultLogPath, keyed = false): ForwarderConfig[] {
  return [
    fluentBitConfig(collectorUrl, logPath, undefined, keyed),
    vectorConfig(collectorUrl, logPath, undefined, keyed),
    syslogNgConfig(collectorUrl, logPath, undefined, keyed),
    rsyslogConfig(collectorUrl, logPath, undefined, keyed),
    ...elasticsearchOutputConfigs(collectorUrl, logPath, keyed),
    otelCollectorConfig(collectorUrl, { logPath, keyed }),
    fluentBitOtlpConfig(collectorUrl, { logPath, keyed }),
    ...hecForwarderConfigs(collectorUrl, keyed),
  ];
}
