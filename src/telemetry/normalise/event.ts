// The contract between normalisation, the Sigma engine and detection's pipeline: what one
// record looks like to the rules. Normalisation (normalise/) turns a stored record into a
// NormalisedEvent; the engine (sigma/) only ever reads DetectionEvents; the pipeline
// (src/pipeline/) stores what the engine reports as observations.

/** A Sigma logsource. Absent keys are wildcards when a rule states them, unknown when an event does. */
export interface LogSource {
  category?: string;
  product?: string;
  service?: string;
}

/** A field's value as the rules see it. Nested JSON objects are flattened with dotted names. */
export type FieldValue = string | number | boolean | null | FieldValue[];

/**
 * The common log record families (web access, syslog, application), endpoint telemetry,
 * Windows event logs, cloud and SaaS audit logs, network logs (proxy, DNS, firewall, Zeek) and
 * Kubernetes audit. `other`: no recogniser claimed the record.
 */
export type RecordFamily =
  | 'webserver'
  | 'syslog'
  | 'application'
  | 'process'
  | 'network'
  | 'windows'
  | 'cloud'
  | 'network_log'
  | 'kubernetes_audit'
  | 'other';

/** Which normalised table row a record produced, if any (endpoint telemetry only). */
export interface EndpointProcessRow {
  host: string | null;
  endpoint_id: string | null;
  user: string | null;
  process_name: string | null;
  pid: number | null;
  parent_process_name: string | null;
  parent_pid: number | null;
  executable_path: string | null;
  parent_executable_path: string | null;
  command_line: string | null;
  parent_command_line: string | null;
  /** Epoch milliseconds. */
  time: number;
  /** `sysmon`, `windows_security`, `auditd`, `osquery`, `generic`. */
  source_format: string;
}

export interface NetworkProcessRow {
  host: string | null;
  endpoint_id: string | null;
  user: string | null;
  process_name: string | null;
  pid: number | null;
  executable_path: string | null;
  source_ip: string | null;
  source_port: number | null;
  destination_ip: string | null;
  destination_port: number | null;
  destination_hostname: string | null;
  /** Lower case: `tcp`, `udp`, … */
  protocol: string | null;
  /** `outbound`, `inbound`, or null when the source does not say. */
  direction: 'outbound' | 'inbound' | null;
  time: number;
  source_format: string;
}

export interface NormalisedEvent {
  /** The raw record's sequence in the record log (its id); 0 for events built in tests/benches. */
  seq: number;
  tenantId: number;
  /** Event time, epoch milliseconds (the record's own time, else its receive time). */
  time: number;
  family: RecordFamily;
  /**
   * Every logsource this event satisfies. A rule applies when one of them has every key the
   * rule's logsource states with an equal value (case-insensitive). E.g. an sshd syslog line:
   * [{product:'linux', service:'sshd'}, {product:'linux', service:'auth'}, {product:'linux', service:'syslog'}].
   */
  logsources: LogSource[];
  /** The device the event happened on (hostname, or pod for orchestrator records), if known. */
  host: string | null;
  /**
   * Field name → value: the record's own fields (flattened, dotted) plus the Sigma taxonomy
   * fields the processing pipeline maps onto them (`cs-uri-query`, `Image`, `CommandLine`, …).
   * Absent fields are absent keys, never `undefined` values.
   */
  fields: Record<string, FieldValue>;
  /**
   * What keyword (field-less) detections search: the event's free text — the message, the log
   * line, the command line — joined by newlines. Never the JSON syntax of the record.
   */
  keywords: string;
  /** Normalised rows for endpoint telemetry; absent for other families. */
  process?: EndpointProcessRow;
  network?: NetworkProcessRow;
  /** The parsed record, set only when no record shape recognised it (Settings › Collector counts those). */
  unrecognised?: Record<string, unknown>;
}
