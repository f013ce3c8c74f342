// Every logsource some record Sightline parses can satisfy, given the processing pipeline: what
// `rules test`, the rules API and coverage call reachable. It is read off the same tables the
// recognisers use (Sysmon ids, Azure categories, M365 workloads, the pipeline's channels and
// programs), so adding a mapping there makes its rules reachable here. `*` stands for a value
// taken from the record itself (an application's product, a Zeek log's name).
import type { LogSource } from './event.js';
import { AZURE_CATEGORIES } from './cloud.js';
import type { ProcessingPipeline } from './pipeline.js';
import { M365_WORKLOADS } from './saas.js';
import { REGISTRY_KEY_EVENTS, SYSMON_CATEGORIES } from './windows-events.js';

/** Any value: the record supplies it. */
export const ANY = '*';

/** Sysmon for Linux writes these event ids (process, network, file, status, raw read, delete). */
const LINUX_SYSMON_IDS = [1, 3, 4, 5, 9, 11, 16, 23, 255];
const WINDOWS_CATEGORIES = [
  'ps_module',
  'ps_script',
  'ps_classic_start',
  'ps_classic_provider_start',
  'ps_classic_script',
  'antivirus',
];
const ENDPOINT_PRODUCTS = ['windows', 'linux', 'macos'];

export function producedLogsources(pipeline: ProcessingPipeline): LogSource[] {
  const out: LogSource[] = [];
  const category = (name: string, product?: string) => {
    out.push({ category: name });
    if (product !== undefined) out.push({ category: name, product });
  };
  // Windows event logs and Sysmon for Linux.
  for (const service of [...Object.keys(pipeline.windows.channels), 'sysmon'])
    out.push({ product: 'windows', service });
  for (const names of SYSMON_CATEGORIES.values()) for (const name of names) category(name, 'windows');
  for (const name of [...WINDOWS_CATEGORIES, ...Object.values(REGISTRY_KEY_EVENTS)]) category(name, 'windows');
  out.push({ product: 'linux', service: 'sysmon' });
  for (const id of LINUX_SYSMON_IDS) for (const name of SYSMON_CATEGORIES.get(id) ?? []) category(name, 'linux');
  // Endpoint formats: auditd, osquery, the generic shape.
  out.push({ product: 'linux', service: 'auditd' });
  for (const product of ENDPOINT_PRODUCTS) {
    category('process_creation', product);
    category('network_connection', product);
  }
  // System logs: every service the program and facility tables name.
  const syslog = pipeline.syslog.product;
  out.push({ product: syslog, service: 'syslog' });
  for (const services of [...Object.values(pipeline.syslog.programs), ...Object.values(pipeline.syslog.facilities)])
    for (const service of services) out.push({ product: syslog, service });
  // Web servers, applications, Kubernetes.
  category('webserver');
  for (const product of Object.keys(pipeline.webserver.products)) out.push({ category: 'webserver', product });
  out.push({ category: 'application', product: ANY });
  out.push({ category: 'application', product: 'kubernetes', service: 'audit' });
  out.push({ product: 'kubernetes', service: 'container' });
  // Cloud and SaaS audit logs.
  out.push({ product: 'aws', service: 'cloudtrail' });
  for (const service of new Set(AZURE_CATEGORIES.values())) out.push({ product: 'azure', service });
  for (const service of ['gcp.audit', 'google_workspace.admin', 'google_workspace.login'])
    out.push({ product: 'gcp', service });
  out.push({ product: 'okta', service: 'okta' }, { product: 'github', service: 'audit' });
  out.push({ product: 'bitbucket', service: 'audit' }, { product: 'm365', service: 'audit' });
  for (const services of M365_WORKLOADS.values())
    for (const service of services) out.push({ product: 'm365', service });
  // Network logs.
  out.push({ product: 'zeek', service: ANY });
  for (const name of ['proxy', 'dns', 'firewall']) category(name);
  return out;
}

/**
 * Whether a rule's logsource can be satisfied: some produced logsource has every key the rule
 * states, with an equal value (or `*`). The rule set routes events by the same rule.
 */
export function isReachable(rule: LogSource, produced: readonly LogSource[]): boolean {
  return produced.some((source) =>
    (['category', 'product', 'service'] as const).every((key) => {
      const wanted = rule[key];
      if (wanted === undefined) return true;
      const have = source[key];
      return have !== undefined && (have === ANY || have.toLowerCase() === wanted.toLowerCase());
    }),
  );
}
