// The model input: a typed document holding exactly the data a summarising model may see
// (docs/cases.md, AI case summaries): case information, device information (with IP country and city),
// device process information, observation evidence (a bounded subset of the endpoint-process and
// network-process rows of each observation's own triggering records), the device's other activity
// around the observations (not evidence of any one of them), and the customer as its anonymised
// code name.
// Never the tenant's display name, user emails, comments, assignees, or anything else. Every
// string in it may come from logs and is untrusted; the prompt says so and delimits it.

export interface SummaryProcessEvent {
  /** Cited in the summary as [proc_…]. */
  id: string;
  time: string;
  host: string | null;
  user: string | null;
  process_name: string | null;
  pid: number | null;
  executable_path: string | null;
  command_line: string | null;
  parent_process_name: string | null;
  parent_pid: number | null;
}

export interface SummaryNetworkEvent {
  /** Cited in the summary as [net_…]. */
  id: string;
  time: string;
  host: string | null;
  process_name: string | null;
  pid: number | null;
  source_ip: string | null;
  source_port: number | null;
  destination_ip: string | null;
  destination_port: number | null;
  destination_hostname: string | null;
  protocol: string | null;
  direction: string | null;
}

export interface SummaryObservation {
  /** Cited in the summary as [obs_…]. */
  id: string;
  rule_title: string;
  level: string;
  techniques: string[];
  host: string | null;
  first_time: string;
  last_time: string;
  /** The rows of this observation's own triggering records: what supports it, and nothing else. */
  evidence: SummaryEvents;
}

export interface SummaryEvents {
  process_events: SummaryProcessEvent[];
  network_events: SummaryNetworkEvent[];
}

export interface SummaryDevice {
  id: string;
  host_name: string;
  host_description: string;
  user: string | null;
  endpoint_id: string | null;
  /** Network isolation by response actions (isolated, isolation_requested, …); null: never acted on. */
  isolation: string | null;
  addresses: { ip: string; scope: string; country: string | null; city: string | null }[];
  processes: { process_name: string | null; pid: number | null; executable_path: string | null }[];
  /** The device's other events around the observations: context, not evidence of any observation. */
  activity: SummaryEvents;
}

export interface SummaryInput {
  customer: { code_name: string };
  /** Case information: id (and number), score, description, status, timestamps, techniques. */
  case: {
    id: string;
    number: number;
    score: number;
    status: string;
    description: string;
    created_at: string;
    updated_at: string;
    first_observation_at: string;
    last_observation_at: string;
    observation_count: number;
    techniques: { id: string; name: string | null; tactics: string[] }[];
  };
  devices: SummaryDevice[];
  observations: SummaryObservation[];
}

/** Bounds that keep the input (and its cost) predictable whatever the case's size. */
export const INPUT_LIMITS = {
  observations: 50,
  processEventsPerObservation: 10,
  networkEventsPerObservation: 10,
  devices: 20,
  processesPerDevice: 25,
  /** Context events per device and table, around the observations. */
  activityEventsPerDevice: 10,
  /** Characters of any one string (command lines can be huge). */
  text: 1_000,
} as const;
