// Request and response schemas of /v1/observations and the observation-write review requests.
import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';
import { LEVELS, MAX_EVIDENCE_RECORDS, MAX_EXTERNAL_RECORDS } from './observation-service.js';
import { MAX_STATEMENT_LENGTH, MAX_VOLUME_PER_HOUR } from './write-request-service.js';

export const LevelSchema = Type.Union(
  LEVELS.map((level) => Type.Literal(level)),
  { description: 'Sigma level: informational, low, medium, high, critical' },
);

export const TechniqueId = Type.String({
  pattern: '^T[0-9]{4}(\\.[0-9]{3})?$',
  description: 'ATT&CK technique id, e.g. T1059 or T1059.004',
});

const FieldValueSchema = Type.Unknown({ description: 'A field value as the record had it' });

const observationExample = {
  id: 'obs_4Vq9TnXc2LmR8sWb1YkD',
  rule: {
    id: '5f0c2c4e-8f1b-4a43-9d0e-1d2b9d0f7a11',
    title: 'SQL injection attempt in URL query',
    author: 'Sightline',
    type: 'detection',
  },
  level: 'high',
  source: 'detection',
  techniques: [{ id: 'T1190', name: 'Exploit Public-Facing Application' }],
  tactics: [{ id: 'TA0001', name: 'Initial Access', known: true }],
  tags: ['attack.initial-access', 'attack.t1190'],
  host: 'web-01',
  first_time: '2026-11-20T10:04:12.000Z',
  last_time: '2026-11-20T10:04:12.000Z',
  record_ids: ['rec_2m6M_N9Xr9t_YRdNgwPkWA'],
  correlation: null,
  created_at: '2026-11-20T10:04:12.350Z',
  created_by: null,
};

export const ObservationSchema = Type.Object(
  {
    id: Type.String({ description: 'Observation id (`obs_…`)' }),
    rule: Type.Object(
      {
        id: Type.String({ description: "The Sigma rule id (or the external writer's rule id)" }),
        title: Type.String(),
        author: Type.Union([Type.String(), Type.Null()], {
          description: "The rule's author, kept as Sigma's rule licence requires",
        }),
        type: Type.String({ description: '`detection`, `correlation` or `external`' }),
      },
      { description: 'The rule that matched' },
    ),
    level: Type.String({ description: 'Sigma level' }),
    source: Type.String({ description: "`detection` (Sightline's engine) or `external` (written through the API)" }),
    techniques: Type.Array(Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }), {
      description: 'ATT&CK techniques',
    }),
    tactics: Type.Array(
      Type.Object({ id: Type.Union([Type.String(), Type.Null()]), name: Type.String(), known: Type.Boolean() }),
      { description: 'ATT&CK tactics; a tag the catalogue does not know is shown as given with `known: false`' },
    ),
    tags: Type.Array(Type.String(), { description: "The rule's tags as written" }),
    host: Type.Union([Type.String(), Type.Null()], { description: 'The device (host name) it happened on, if known' }),
    first_time: Timestamp('Time of the first triggering record'),
    last_time: Timestamp('Time of the last triggering record'),
    record_ids: Type.Array(Type.String(), { description: 'The triggering records (ids of the raw telemetry)' }),
    correlation: Type.Union(
      [Type.Object({ group: Type.Record(Type.String(), FieldValueSchema), value: Type.Number() }), Type.Null()],
      { description: 'For correlation rules: the group-by values and the count that crossed the threshold' },
    ),
    created_at: Timestamp('When the observation was stored'),
    created_by: Type.Union([Type.String(), Type.Null()], {
      description: 'External observations: the token or user that wrote it',
    }),
  },
  { examples: [observationExample] },
);

export const ObservationDetailSchema = Type.Object(
  {
    ...ObservationSchema.properties,
    evidence: Type.Array(
      Type.Object({
        record_id: Type.Union([Type.String(), Type.Null()]),
        fields: Type.Record(Type.String(), FieldValueSchema, { description: 'The fields the rule looked at' }),
        received_at: Type.Union([Timestamp('When the collector received it'), Type.Null()]),
        event_time: Type.Union([Timestamp("The record's own time"), Type.Null()]),
        record: Type.Unknown({ description: 'The raw record as stored' }),
      }),
      { description: `The triggering records (the first ${MAX_EVIDENCE_RECORDS}) with the fields the rule looked at` },
    ),
  },
  {
    examples: [
      {
        ...observationExample,
        evidence: [
          {
            record_id: 'rec_2m6M_N9Xr9t_YRdNgwPkWA',
            fields: { 'cs-uri-query': "id=1' UNION SELECT password FROM users--" },
            received_at: '2026-11-20T10:04:12.120Z',
            event_time: '2026-11-20T10:04:12.000Z',
            record: {
              remote_addr: '203.0.113.9',
              request: "GET /item?id=1' UNION SELECT password FROM users-- HTTP/1.1",
              status: '200',
            },
          },
        ],
      },
    ],
  },
);

export const ListObservationsQuery = Type.Object(
  {
    since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Observations whose last record is at or after this time' }),
    ),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'Observations whose first record is before this time' }),
    ),
    level: Type.Optional(
      Type.String({
        pattern: '^(informational|low|medium|high|critical)(,(informational|low|medium|high|critical)){0,4}$',
        description: 'One level or several, comma-separated (e.g. high,critical)',
      }),
    ),
    rule_id: Type.Optional(Type.String({ maxLength: 200 })),
    technique: Type.Optional({
      ...TechniqueId,
      description: 'A technique; a parent technique also finds its sub-techniques',
    }),
    host: Type.Optional(Type.String({ maxLength: 255, description: 'Device host name' })),
    source: Type.Optional(Type.Union([Type.Literal('detection'), Type.Literal('external')])),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Items per page (1-500)' }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 512, description: 'The `next_cursor` of the previous page' })),
  },
  { additionalProperties: false },
);

export const CreateObservationBody = Type.Object(
  {
    external_id: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[\\x21-\\x7e]+$',
      description: "The writer's own id for it: writing the same external_id again returns the first (idempotent)",
    }),
    title: Type.String({ minLength: 1, maxLength: 300 }),
    level: LevelSchema,
    rule_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "The writer's rule or detector id" }),
    ),
    author: Type.Optional(Type.String({ maxLength: 200 })),
    techniques: Type.Array(TechniqueId, {
      maxItems: 50,
      uniqueItems: true,
      description: 'ATT&CK techniques (must exist in the catalogue)',
    }),
    host: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Device host name' })),
    first_time: Type.String({ format: 'date-time' }),
    last_time: Type.Optional(Type.String({ format: 'date-time', description: 'Default: first_time' })),
    record_ids: Type.Optional(
      Type.Array(Type.String({ pattern: '^rec_[A-Za-z0-9_-]{22}$' }), {
        maxItems: MAX_EXTERNAL_RECORDS,
        uniqueItems: true,
        description: 'Records of this tenant it rests on (their `id` in the telemetry API, `rec_…`)',
      }),
    ),
    fields: Type.Optional(
      Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), {
        maxProperties: 100,
        description: 'Evidence fields',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        external_id: 'edr-alert-88121',
        title: 'Credential dumping tool detected by EDR',
        level: 'critical',
        techniques: ['T1003.001'],
        host: 'ws-042',
        first_time: '2026-11-20T10:00:00Z',
        record_ids: ['rec_2m6M_N9Xr9t_YRdNgwPkWA'],
        fields: { process: 'procdump64.exe' },
      },
    ],
  },
);

const writeRequestExample = {
  id: 'owr_7Hc2Vn0PqL5sXw8Rb3Ty',
  tenant: 'acme',
  status: 'pending',
  service_impact: 'Our EDR forwards its alerts; no change to the managed services we receive.',
  correlation: 'EDR alerts name the host, so they join the cases of the same devices.',
  expected_volume_per_hour: 50,
  requested_by: 'admin@acme.example',
  requested_at: '2026-11-20T09:00:00.000Z',
  decided_by: null,
  decided_at: null,
  decision_note: null,
};

export const WriteRequestSchema = Type.Object(
  {
    id: Type.String({ description: 'Review request id (`owr_…`)' }),
    tenant: Type.String({ description: 'Tenant code name' }),
    status: Type.String({ description: '`pending`, `approved` or `rejected`' }),
    service_impact: Type.String({ description: 'The impact on managed services, as the tenant stated it' }),
    correlation: Type.String({ description: 'How the data correlates with other observations' }),
    expected_volume_per_hour: Type.Integer({ description: 'Expected observations per hour' }),
    requested_by: Type.String(),
    requested_at: Timestamp('Filed'),
    decided_by: Type.Union([Type.String(), Type.Null()]),
    decided_at: Type.Union([Timestamp('Decided'), Type.Null()]),
    decision_note: Type.Union([Type.String(), Type.Null()]),
  },
  { examples: [writeRequestExample] },
);

const Statement = (description: string) => Type.String({ minLength: 10, maxLength: MAX_STATEMENT_LENGTH, description });

export const FileWriteRequestBody = Type.Object(
  {
    service_impact: Statement('The impact on managed services'),
    correlation: Statement('How the data correlates with other observations'),
    expected_volume_per_hour: Type.Integer({
      minimum: 1,
      maximum: MAX_VOLUME_PER_HOUR,
      description: 'Expected observations per hour',
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        service_impact: writeRequestExample.service_impact,
        correlation: writeRequestExample.correlation,
        expected_volume_per_hour: 50,
      },
    ],
  },
);

export const DecisionBody = Type.Object(
  {
    decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
    note: Type.Optional(Type.String({ maxLength: MAX_STATEMENT_LENGTH })),
    limit_per_hour: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_VOLUME_PER_HOUR,
        description: 'Approvals: the hourly volume writes are held to (default: the volume requested)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ decision: 'approve', note: 'Reviewed with the customer on 2026-11-20', limit_per_hour: 50 }],
  },
);
