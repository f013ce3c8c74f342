// Cloud provider audit logs → family `cloud`: AWS CloudTrail records, Azure Monitor exports
// (activity, sign-in, audit, risk detection) and GCP Cloud Audit Logs entries (and Google
// Workspace logs routed to Cloud Logging). Each is told by fields its vendor documents as always
// present; the record's own fields stay as given (flattened), and the names SigmaHQ rules use
// for that service are added (docs/telemetry-mapping.md).
import type { LogSource } from './event.js';
import { freeze } from './endpoint.js';
import { isObject, setIfPresent, type Fields } from './fields.js';
import type { Recognised, Recogniser } from './recogniser.js';

const CLOUDTRAIL = freeze([{ product: 'aws' }, { product: 'aws', service: 'cloudtrail' }]);

/** Azure Monitor `category` (lower case) → the Sigma service. */
export const AZURE_CATEGORIES: ReadonlyMap<string, string> = new Map([
  ['signinlogs', 'signinlogs'],
  ['noninteractiveusersigninlogs', 'signinlogs'],
  ['serviceprincipalsigninlogs', 'signinlogs'],
  ['managedidentitysigninlogs', 'signinlogs'],
  ['auditlogs', 'auditlogs'],
  ['riskyusers', 'riskdetection'],
  ['userriskevents', 'riskdetection'],
  ['serviceprincipalriskevents', 'riskdetection'],
  ['riskyserviceprincipals', 'riskdetection'],
  // The activity log's categories.
  ['administrative', 'activitylogs'],
  ['security', 'activitylogs'],
  ['servicehealth', 'activitylogs'],
  ['alert', 'activitylogs'],
  ['recommendation', 'activitylogs'],
  ['policy', 'activitylogs'],
  ['autoscale', 'activitylogs'],
  ['resourcehealth', 'activitylogs'],
]);

const AZURE_LOGSOURCES = new Map<string, LogSource[]>();
for (const service of new Set(AZURE_CATEGORIES.values()))
  AZURE_LOGSOURCES.set(service, freeze([{ product: 'azure' }, { product: 'azure', service }]));

const GCP_AUDIT = freeze([{ product: 'gcp' }, { product: 'gcp', service: 'gcp.audit' }]);
const GCP_WORKSPACE_LOGIN = freeze([
  { product: 'gcp' },
  { product: 'gcp', service: 'gcp.audit' },
  { product: 'gcp', service: 'google_workspace.login' },
]);
const GCP_WORKSPACE_ADMIN = freeze([
  { product: 'gcp' },
  { product: 'gcp', service: 'gcp.audit' },
  { product: 'gcp', service: 'google_workspace.admin' },
]);
const AUDIT_LOG_TYPE = 'type.googleapis.com/google.cloud.audit.AuditLog';

export const cloudRecogniser: Recogniser = {
  name: 'cloud',
  recognise(record, fields) {
    if (typeof record.eventSource === 'string' && typeof record.eventName === 'string') {
      if (record.eventVersion !== undefined || record.awsRegion !== undefined) return cloudtrail(record);
    }
    if (typeof record.operationName === 'string' && typeof record.category === 'string') {
      const service = AZURE_CATEGORIES.get(record.category.toLowerCase());
      if (service !== undefined && (record.resourceId !== undefined || record.tenantId !== undefined))
        return azure(record, fields, service);
    }
    if (isObject(record.protoPayload)) return gcp(record, record.protoPayload, fields);
    return undefined;
  },
};

function cloudtrail(record: Record<string, unknown>): Recognised {
  return { family: 'cloud', logsources: CLOUDTRAIL, keywords: '', host: text(record.sourceIPAddress) ?? null };
}

/**
 * An Azure Monitor diagnostic export (`time`, `resourceId`, `operationName`, `category`,
 * `resultType`, `properties`). SigmaHQ's Azure rules use the Log Analytics column names
 * (`ResultType`, `OperationName`, `AuthenticationRequirement`…): the record's top-level and
 * `properties` fields are given under their name with a capital first letter too, and
 * `properties` fields under their own name, without overwriting fields the record has.
 */
function azure(record: Record<string, unknown>, fields: Fields, service: string): Recognised {
  const properties = record.properties;
  if (isObject(properties)) for (const name in properties) addColumn(fields, name, properties[name]);
  for (const name in record) if (name !== 'properties') addColumn(fields, name, record[name]);
  // Sign-in logs: the error code is the sign-in's result (0 is success).
  if (isObject(properties) && isObject(properties.status)) {
    setMissing(fields, 'ResultType', properties.status.errorCode);
    setMissing(fields, 'ResultDescription', properties.status.failureReason);
  }
  const logsources = AZURE_LOGSOURCES.get(service);
  if (logsources === undefined) throw new Error(`azure: no logsources for service ${service}`);
  return { family: 'cloud', logsources, keywords: '' };
}

function addColumn(fields: Fields, name: string, value: unknown): void {
  if (name === '') return;
  if (isObject(value)) {
    // Nested objects (DeviceDetail, Status) are reachable as Column.field, as Log Analytics shows them.
    for (const inner in value) {
      setMissing(fields, `${name}.${inner}`, value[inner]);
      setMissing(fields, `${capital(name)}.${inner}`, value[inner]);
    }
    return;
  }
  setMissing(fields, name, value);
  setMissing(fields, capital(name), value);
}

/**
 * A Cloud Logging entry with an audit-log payload. SigmaHQ's GCP rules name the method
 * `gcp.audit.method_name` and the payload `data.protoPayload.*` (the Pub/Sub export's envelope);
 * both are added. Workspace logs routed to Cloud Logging also satisfy their Workspace service.
 */
function gcp(
  record: Record<string, unknown>,
  payload: Record<string, unknown>,
  fields: Fields,
): Recognised | undefined {
  const logName = text(record.logName) ?? '';
  if (payload['@type'] !== AUDIT_LOG_TYPE && !logName.includes('cloudaudit.googleapis.com')) return undefined;
  setMissing(fields, 'gcp.audit.method_name', payload.methodName);
  setMissing(fields, 'data.logName', record.logName);
  setMissing(fields, 'data.protoPayload.logName', record.logName);
  for (const name of Object.keys(fields)) {
    if (name.startsWith('protoPayload.')) setMissing(fields, `data.${name}`, fields[name]);
  }
  const serviceName = text(payload.serviceName) ?? '';
  const logsources =
    serviceName === 'login.googleapis.com'
      ? GCP_WORKSPACE_LOGIN
      : serviceName === 'admin.googleapis.com'
        ? GCP_WORKSPACE_ADMIN
        : GCP_AUDIT;
  return { family: 'cloud', logsources, keywords: '' };
}

function setMissing(fields: Fields, name: string, value: unknown): void {
  if (fields[name] === undefined) setIfPresent(fields, name, value);
}

function capital(name: string): string {
  const first = name.charCodeAt(0);
  return first >= 97 && first <= 122 ? `${name.charAt(0).toUpperCase()}${name.slice(1)}` : name;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
