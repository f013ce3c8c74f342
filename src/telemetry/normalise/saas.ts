// SaaS audit logs → family `cloud`: Okta System Log events, GitHub audit log events, Microsoft
// 365 unified audit log records, Google Workspace Reports API activities and Bitbucket audit
// events. Each is told by fields its vendor documents as always present; the names SigmaHQ
// rules use for the service are added beside the record's own (docs/telemetry-mapping.md).
import type { LogSource } from './event.js';
import { freeze } from './endpoint.js';
import { isObject, setIfPresent, type Fields } from './fields.js';
import type { Recognised, Recogniser } from './recogniser.js';

const OKTA = freeze([{ product: 'okta' }, { product: 'okta', service: 'okta' }]);
const GITHUB = freeze([{ product: 'github' }, { product: 'github', service: 'audit' }]);
const BITBUCKET = freeze([{ product: 'bitbucket' }, { product: 'bitbucket', service: 'audit' }]);
const M365_AUDIT: LogSource = { product: 'm365', service: 'audit' };
/** Unified audit log Workload → the Sigma services beside `audit`. */
export const M365_WORKLOADS: ReadonlyMap<string, readonly string[]> = new Map([
  ['exchange', ['exchange']],
  ['securitycompliancecenter', ['threat_management', 'threat_detection']],
  ['threatintelligence', ['threat_detection']],
  ['microsoftdefenderforoffice', ['threat_detection']],
]);
const M365_LOGSOURCES = new Map<string, LogSource[]>();
const m365Logsources = (workload: string): LogSource[] => {
  const services = M365_WORKLOADS.get(workload) ?? [];
  const key = services.join(',');
  let built = M365_LOGSOURCES.get(key);
  if (built === undefined) {
    built = freeze([
      { product: 'm365' },
      { ...M365_AUDIT },
      ...services.map((service) => ({ product: 'm365', service })),
    ]);
    M365_LOGSOURCES.set(key, built);
  }
  return built;
};
const WORKSPACE = new Map<string, LogSource[]>([
  ['admin', freeze([{ product: 'gcp' }, { product: 'gcp', service: 'google_workspace.admin' }])],
  ['login', freeze([{ product: 'gcp' }, { product: 'gcp', service: 'google_workspace.login' }])],
]);

export const saasRecogniser: Recogniser = {
  name: 'saas',
  recognise(record, fields) {
    if (typeof record.eventType === 'string' && typeof record.uuid === 'string' && record.published !== undefined)
      return okta(record);
    if (
      typeof record.Operation === 'string' &&
      typeof record.Workload === 'string' &&
      record.CreationTime !== undefined
    )
      return m365(record, fields);
    if (record.kind === 'admin#reports#activity' && isObject(record.id)) return workspace(record, record.id, fields);
    if (typeof record.action === 'string' && record.action.includes('.') && isGitHub(record)) return github(record);
    if (isObject(record.auditType) && typeof record.auditType.action === 'string') return bitbucket(record);
    return undefined;
  },
};

function okta(record: Record<string, unknown>): Recognised {
  return { family: 'cloud', logsources: OKTA, keywords: text(record.displayMessage) ?? '' };
}

/** GitHub's audit log: `action` (`repo.create`) with the actor and the organisation or enterprise. */
function isGitHub(record: Record<string, unknown>): boolean {
  return (
    (record.actor !== undefined || record['@timestamp'] !== undefined) &&
    (record.org !== undefined || record.business !== undefined || record._document_id !== undefined)
  );
}

function github(record: Record<string, unknown>): Recognised {
  return { family: 'cloud', logsources: GITHUB, keywords: text(record.action) ?? '' };
}

/**
 * A Microsoft 365 unified audit log record (`CreationTime`, `Operation`, `Workload`,
 * `RecordType`, `UserId`). SigmaHQ's threat rules name the workload `eventSource`, the alert or
 * operation `eventName` and the outcome `status`: all three are added.
 */
function m365(record: Record<string, unknown>, fields: Fields): Recognised {
  const workload = String(record.Workload);
  setMissing(fields, 'eventSource', workload);
  setMissing(fields, 'eventName', text(record.Name) ?? record.Operation);
  const status = text(record.ResultStatus) ?? text(record.Status);
  if (status !== undefined)
    setMissing(fields, 'status', status.toLowerCase() === 'succeeded' ? 'success' : status.toLowerCase());
  return { family: 'cloud', logsources: m365Logsources(workload.toLowerCase()), keywords: '' };
}

/**
 * A Google Workspace Reports API activity. SigmaHQ's Workspace rules use `eventService`
 * (`admin.googleapis.com`), `eventName` and the parameters in lower case (`setting_name`,
 * `new_value`); the first event of the activity gives them.
 */
function workspace(
  record: Record<string, unknown>,
  id: Record<string, unknown>,
  fields: Fields,
): Recognised | undefined {
  const application = text(id.applicationName)?.toLowerCase();
  const logsources = application === undefined ? undefined : WORKSPACE.get(application);
  if (logsources === undefined || application === undefined) return undefined;
  setMissing(fields, 'eventService', `${application}.googleapis.com`);
  const events = record.events;
  const first: unknown = Array.isArray(events) ? events[0] : undefined;
  if (isObject(first)) {
    setMissing(fields, 'eventName', first.name);
    setMissing(fields, 'eventType', first.type);
    if (Array.isArray(first.parameters)) {
      for (const parameter of first.parameters) {
        if (!isObject(parameter) || typeof parameter.name !== 'string') continue;
        setMissing(fields, parameter.name.toLowerCase(), parameter.value ?? parameter.boolValue ?? parameter.intValue);
      }
    }
  }
  return { family: 'cloud', logsources, keywords: '' };
}

/** A Bitbucket Data Center audit event: `auditType` {category, action, level, area}, author, affected objects. */
function bitbucket(record: Record<string, unknown>): Recognised {
  const auditType = record.auditType as Record<string, unknown>;
  return { family: 'cloud', logsources: BITBUCKET, keywords: text(auditType.action) ?? '' };
}

function setMissing(fields: Fields, name: string, value: unknown): void {
  if (fields[name] === undefined) setIfPresent(fields, name, value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
