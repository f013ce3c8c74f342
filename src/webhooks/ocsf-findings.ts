// Sightline's events as OCSF 1.3 findings, for subscribers whose pipeline speaks OCSF (a data
// lake, a SIEM's OCSF input): an observation is a Detection Finding (class 2004), a case is the
// Incident Finding (class 2005) grouping its observations. Events without an OCSF class (an AI
// summary, a response action) have no mapping; the dispatcher sends those as CloudEvents.
import fs from 'node:fs';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { EventRow } from './webhook-store.js';

export const OCSF_VERSION = '1.3.0';
export const OCSF_MEDIA_TYPE = 'application/vnd.ocsf+json';

/** The query parameter of the reads that can answer in OCSF. */
export const OcsfFormatQuery = Type.Object({
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('ocsf')], {
      description: '`ocsf`: the answer as an OCSF 1.3 finding (as `Accept: application/vnd.ocsf+json` asks)',
    }),
  ),
});

/**
 * Answers with an OCSF document. It is another media type than the route's JSON schema types
 * (and checks): it is written as it is, and the typed send is told it is not that schema's object.
 */
export function answerOcsf(reply: FastifyReply, finding: Record<string, unknown>): FastifyReply {
  return reply
    .type(OCSF_MEDIA_TYPE)
    .serializer((payload: unknown) => JSON.stringify(payload))
    .send(finding);
}

/** Whether a read asks for OCSF: `format=ocsf`, or an Accept header naming the OCSF media type. */
export function wantsOcsf(format: string | undefined, accept: string | undefined): boolean {
  if (format !== undefined) return format === 'ocsf';
  return (accept ?? '').toLowerCase().includes(OCSF_MEDIA_TYPE);
}

const productVersion = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** OCSF severity_id by Sigma level and case severity. */
const SEVERITIES: Record<string, [number, string]> = {
  informational: [1, 'Informational'],
  low: [2, 'Low'],
  medium: [3, 'Medium'],
  high: [4, 'High'],
  critical: [5, 'Critical'],
};

interface ObservationData {
  observation: {
    id: string;
    source: string;
    rule_id: string | null;
    rule_title: string;
    level: string;
    techniques: string[];
    tactics: string[];
    host: string | null;
    first_time: string;
    last_time: string;
    href: string;
  };
}

interface CaseData {
  case: {
    id: string;
    number?: number;
    title?: string;
    status?: string;
    severity?: string;
    score?: number;
    resolution?: string | null;
    href: string;
  };
  change: { action: string; changes: Record<string, unknown> };
  actor: { type: string; label: string };
}

/** The OCSF finding an event stands for, or undefined when OCSF has no class for it. */
export function ocsfFinding(event: EventRow, codeName: string): Record<string, unknown> | undefined {
  const data = JSON.parse(event.data) as unknown;
  if (event.type === 'observation.created') return detectionFinding(data as ObservationData, event, codeName);
  if (event.type.startsWith('case.')) return incidentFinding(data as CaseData, event, codeName);
  return undefined;
}

function base(
  about: { uid: string; time: number; code: string },
  codeName: string,
  classUid: number,
  className: string,
  activity: [number, string],
) {
  return {
    category_uid: 2,
    category_name: 'Findings',
    class_uid: classUid,
    class_name: className,
    activity_id: activity[0],
    activity_name: activity[1],
    type_uid: classUid * 100 + activity[0],
    type_name: `${className}: ${activity[1]}`,
    time: about.time,
    metadata: {
      version: OCSF_VERSION,
      uid: about.uid,
      tenant_uid: codeName,
      product: { name: 'Sightline', vendor_name: 'Sightline', version: productVersion },
      event_code: about.code,
    },
  };
}

function severity(level: string | undefined) {
  const [id, name] = SEVERITIES[level ?? ''] ?? [0, 'Unknown'];
  return { severity_id: id, severity: name };
}

function detectionFinding(data: ObservationData, event: EventRow, codeName: string): Record<string, unknown> {
  const { observation } = data;
  return observationFinding(
    {
      ...observation,
      created_time: event.occurred_at,
      rule: observation.rule_id ? { id: observation.rule_id, title: observation.rule_title } : null,
      title: observation.rule_title,
    },
    { uid: event.id, time: event.occurred_at, code: event.type },
    codeName,
  );
}

/** An observation as the API and webhooks know it, enough for its Detection Finding. */
export interface FindingSource {
  id: string;
  title: string;
  rule: { id: string; title: string } | null;
  source: string;
  level: string;
  techniques: string[];
  tactics: string[];
  host: string | null;
  first_time: string;
  last_time: string;
  created_time: number;
  href: string;
}

/** The Detection Finding (class 2004) of an observation; `about` names what reported it. */
export function observationFinding(
  observation: FindingSource,
  about: { uid: string; time: number; code: string },
  codeName: string,
): Record<string, unknown> {
  return {
    ...base(about, codeName, 2004, 'Detection Finding', [1, 'Create']),
    ...severity(observation.level),
    status_id: 1,
    status: 'New',
    message: observation.title,
    finding_info: {
      uid: observation.id,
      title: observation.title,
      created_time: observation.created_time,
      first_seen_time: Date.parse(observation.first_time),
      last_seen_time: Date.parse(observation.last_time),
      src_url: observation.href,
      types: [observation.source === 'detection' ? 'Rule match' : 'External detection'],
      ...(observation.rule
        ? { analytic: { uid: observation.rule.id, name: observation.rule.title, type_id: 1, type: 'Rule' } }
        : {}),
      attacks: observation.techniques.map((technique) => ({ technique: { uid: technique }, version: 'enterprise' })),
    },
    ...(observation.host ? { device: { hostname: observation.host, type_id: 0, type: 'Unknown' } } : {}),
    unmapped: { tactics: observation.tactics, source: observation.source },
  };
}

/** OCSF Incident Finding status_id by case status. */
const CASE_STATUSES: Record<string, [number, string]> = {
  new: [1, 'New'],
  in_progress: [2, 'In Progress'],
  on_hold: [3, 'On Hold'],
  closed: [5, 'Closed'],
};

function incidentFinding(data: CaseData, event: EventRow, codeName: string): Record<string, unknown> {
  const found = data.case;
  const activity: [number, string] =
    event.type === 'case.created' ? [1, 'Create'] : event.type === 'case.closed' ? [3, 'Close'] : [2, 'Update'];
  const [statusId, status] = CASE_STATUSES[found.status ?? ''] ?? [99, found.status ?? 'Other'];
  return {
    ...base({ uid: event.id, time: event.occurred_at, code: event.type }, codeName, 2005, 'Incident Finding', activity),
    ...severity(found.severity),
    status_id: statusId,
    status,
    message: found.title ?? `case ${found.id}`,
    finding_info_list: [
      {
        uid: found.id,
        title: found.title ?? `case ${found.id}`,
        src_url: found.href,
        ...(found.number !== undefined ? { product_uid: `#${found.number}` } : {}),
      },
    ],
    ...(found.resolution ? { comment: found.resolution } : {}),
    unmapped: { score: found.score, change: data.change, actor: data.actor },
  };
}

/** A case as the API shows it, enough for its Incident Finding with the findings it groups. */
export interface IncidentSource {
  id: string;
  number: number;
  title: string;
  status: string;
  severity: string;
  score: number;
  resolution: string | null;
  updated_at: string;
  assignee: { email: string } | null;
  observations: FindingSource[];
}

/** The Incident Finding (class 2005) of a case as it stands: its observations are the findings it groups. */
export function caseFinding(found: IncidentSource, codeName: string): Record<string, unknown> {
  const activity: [number, string] = found.status === 'closed' ? [3, 'Close'] : [2, 'Update'];
  const [statusId, status] = CASE_STATUSES[found.status] ?? [99, found.status];
  const time = Date.parse(found.updated_at);
  return {
    ...base({ uid: found.id, time, code: 'case' }, codeName, 2005, 'Incident Finding', activity),
    ...severity(found.severity),
    status_id: statusId,
    status,
    message: found.title,
    desc: `Case #${found.number}: ${found.title}`,
    src_url: `/v1/cases/${found.id}`,
    ...(found.assignee ? { assignee: { email_addr: found.assignee.email } } : {}),
    finding_info_list: found.observations.map(
      (observation) =>
        (
          observationFinding(observation, { uid: observation.id, time, code: 'observation' }, codeName) as {
            finding_info: unknown;
          }
        ).finding_info,
    ),
    ...(found.resolution ? { comment: found.resolution } : {}),
    unmapped: { number: found.number, score: found.score },
  };
}
