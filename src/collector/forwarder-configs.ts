// Copy-ready forwarder configurations for a tenant's collector: Fluent Bit, Vector, syslog-ng and
// rsyslog, each with the settings the collector documentation gives (README: Forwarder
// configuration): one JSON object per line (Fluent Bit `Format json_lines`, `json_date_key
// false`), no date key of the forwarder's own, TLS with certificate and host-name checks,
// 3 retries, keep-alive, flush every 5 s, 5 MB input buffer, lines over 32 KB skipped. The web
// UI (Settings › Collector) shows these; the README's Fluent Bit block is checked against them. Pure and browser-safe: no imports.

/** The client settings the collector documentation recommends: flush interval, input buffer, longest line. */
export const forwarderSettings = {
  flushSeconds: 5,
  memoryBufferMb: 5,
  maxLineKb: 32,
  retryLimit: 3,
  httpTimeoutSeconds: 10,
  batchRecords: 500,
} as const;

export const defaultLogPath = '/var/log/app/*.log';

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
  id: 'fluent-bit' | 'vector' | 'syslog-ng' | 'rsyslog';
  name: string;
  files: ConfigFile[];
  /** What to know before using it (plain sentences). */
  notes: string[];
}

/** Fluent Bit's `key value` lines, the values aligned as its documentation writes them. */
function section(name: string, entries: [string, string | number][]): string {
  const width = Math.max(...entries.map(([key]) => key.length)) + 1;
  return [`[${name}]`, ...entries.map(([key, value]) => `    ${key.padEnd(width)}${value}`)].join('\n');
}

/** The [OUTPUT] section alone: the part the collector documentation prescribes. */
export function fluentBitOutput(collectorUrl: string): string {
  const target = collectorTarget(collectorUrl);
  const { retryLimit } = forwarderSettings;
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
    ['Retry_Limit', retryLimit],
    ['net.keepalive', 'On'],
  ]);
}

export function fluentBitConfig(collectorUrl: string, logPath = defaultLogPath): ForwarderConfig {
  const { flushSeconds, memoryBufferMb, maxLineKb } = forwarderSettings;
  const main = [
    section('SERVICE', [
      ['Flush', flushSeconds],
      ['Log_Level', 'info'],
      ['Parsers_File', 'parsers_sightline.conf'],
    ]),
    section('INPUT', [
      ['Name', 'tail'],
      ['Path', logPath],
      ['Tag', 'app.*'],
      ['Parser', 'sightline_json'],
      ['Mem_Buf_Limit', `${memoryBufferMb}MB`],
      ['Buffer_Max_Size', `${maxLineKb}k`],
      ['Skip_Long_Lines', 'On'],
      ['Refresh_Interval', 10],
    ]),
    fluentBitOutput(collectorUrl),
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
    files: [
      { path: '/etc/fluent-bit/fluent-bit.conf', text: `${main}\n` },
      { path: '/etc/fluent-bit/parsers_sightline.conf', text: `${parsers}\n` },
    ],
    notes: [
      'Format json_lines sends one JSON object per line. Format json (an array of date-and-record pairs) is refused with HTTP 500: the collector cannot add its time to it.',
      'json_date_key false: the collector stamps each record with its own receive time; the forwarder adds no date key.',
      'Fluent Bit logs HTTP status=201 for each accepted send.',
    ],
  };
}

export function vectorConfig(collectorUrl: string, logPath = defaultLogPath): ForwarderConfig {
  const target = collectorTarget(collectorUrl);
  const { flushSeconds, maxLineKb, retryLimit, httpTimeoutSeconds } = forwarderSettings;
  const text = `sources:
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
    request:
      headers:
        Content-Type: application/json
      retry_attempts: ${retryLimit}
      timeout_secs: ${httpTimeoutSeconds}
    batch:
      timeout_secs: ${flushSeconds}
      max_bytes: 1048576
${target.tls ? '    tls:\n      verify_certificate: true\n      verify_hostname: true\n' : ''}`;
  return {
    id: 'vector',
    name: 'Vector',
    files: [{ path: '/etc/vector/vector.yaml', text }],
    notes: ['framing newline_delimited with the json codec sends one JSON object per line, as the collector expects.'],
  };
}

export function syslogNgConfig(collectorUrl: string, logPath = defaultLogPath): ForwarderConfig {
  const target = collectorTarget(collectorUrl);
  const { flushSeconds, maxLineKb, retryLimit, httpTimeoutSeconds, batchRecords } = forwarderSettings;
  const slash = logPath.lastIndexOf('/');
  const text = `source s_sightline_app {
  wildcard-file(
    base-dir("${logPath.slice(0, slash) || '/'}")
    filename-pattern("${logPath.slice(slash + 1)}")
    flags(no-parse)
    log-msg-size(${maxLineKb * 1024})
    follow-freq(1)
  );
};

destination d_sightline {
  http(
    url("${target.sinkUrl}")
    method("POST")
    headers("Content-Type: application/json")
    body("\${MESSAGE}")
    body-suffix("\\n")
    batch-lines(${batchRecords})
    batch-timeout(${flushSeconds * 1000})
    retries(${retryLimit})
    timeout(${httpTimeoutSeconds})
${target.tls ? '    tls(peer-verify(yes))\n' : ''}  );
};

log { source(s_sightline_app); destination(d_sightline); };
`;
  return {
    id: 'syslog-ng',
    name: 'syslog-ng',
    files: [{ path: '/etc/syslog-ng/conf.d/sightline.conf', text }],
    notes: [
      'flags(no-parse) keeps each line whole; body("${MESSAGE}") with body-suffix("\\n") sends the lines of a batch as newline-delimited JSON.',
      'Needs the http() destination (Debian: syslog-ng-mod-http).',
    ],
  };
}

export function rsyslogConfig(collectorUrl: string, logPath = defaultLogPath): ForwarderConfig {
  const target = collectorTarget(collectorUrl);
  const { maxLineKb, retryLimit, batchRecords } = forwarderSettings;
  const text = `global(maxMessageSize="${maxLineKb}k")

module(load="imfile")
module(load="omhttp")

# Each line as read: the application's JSON object.
template(name="sightline_line" type="string" string="%msg%")

input(type="imfile" File="${logPath}" Tag="app" ruleset="sightline")

ruleset(name="sightline" queue.type="LinkedList" queue.size="10000") {
  action(
    type="omhttp"
    server="${target.host}"
    serverport="${target.port}"
    restpath="log_sink"
    usehttps="${target.tls ? 'on' : 'off'}"
${target.tls ? '    allowunsignedcerts="off"\n    skipverifyhost="off"\n' : ''}    httpheaders=["Content-Type: application/json"]
    template="sightline_line"
    batch="on"
    batch.format="newline"
    batch.maxsize="${batchRecords}"
    action.resumeRetryCount="${retryLimit}"
  )
}
`;
  return {
    id: 'rsyslog',
    name: 'rsyslog',
    files: [{ path: '/etc/rsyslog.d/60-sightline.conf', text }],
    notes: [
      'batch.format="newline" sends a batch as newline-delimited JSON; "jsonarray" would be an array, which the collector refuses.',
      "Needs the omhttp module (rsyslog 8.2102 or later); Debian's rsyslog package does not include it.",
    ],
  };
}

/** Every forwarder's configuration for this collector, in the order the UI shows them. */
export function forwarderConfigs(collectorUrl: string, logPath = defaultLogPath): ForwarderConfig[] {
  return [
    fluentBitConfig(collectorUrl, logPath),
    vectorConfig(collectorUrl, logPath),
    syslogNgConfig(collectorUrl, logPath),
    rsyslogConfig(collectorUrl, logPath),
  ];
}
