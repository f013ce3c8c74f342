// Request and response schemas of /v1/devices.
import { Type } from 'typebox';
import { isolationStates } from './device-action-rules.js';
import { PageQuery, Timestamp } from '../http/schemas.js';
import { GEOIP_ATTRIBUTION } from './geoip.js';

const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);

export const CriticalitySchema = Type.Union(
  [Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('critical')],
  {
    description:
      'How much the device matters: low, medium (default), high, critical. Weighs into the score of its cases.',
  },
);

export const AddressSchema = Type.Object(
  {
    ip: Type.String({ description: 'IPv4 or IPv6 address the device used' }),
    scope: Type.String({
      description:
        '`public`, or why it was not located: private, loopback, link_local, shared, documentation, benchmarking, multicast, unspecified, unique_local, reserved',
    }),
    country_code: Nullable(Type.String({ description: 'ISO 3166-1 alpha-2' })),
    country: Nullable(Type.String()),
    city: Nullable(Type.String()),
    first_seen: Timestamp('First seen'),
    last_seen: Timestamp('Last seen'),
  },
  { description: `An address of the device, located when first seen. ${GEOIP_ATTRIBUTION}.` },
);

const deviceExample = {
  id: 'dev_8Jd2kQp0LsX1vN5aRt7y',
  host_name: 'web-01',
  description: 'Public web front end',
  criticality: 'high',
  last_user: 'www-data',
  endpoint_id: 'agent-web-01',
  os: 'linux',
  kubernetes_namespace: null,
  first_seen: '2026-11-20T09:00:00.000Z',
  last_seen: '2026-11-20T10:04:12.000Z',
  addresses: [
    {
      ip: '81.2.69.142',
      scope: 'public',
      country_code: 'GB',
      country: 'United Kingdom',
      city: 'London',
      first_seen: '2026-11-20T09:00:00.000Z',
      last_seen: '2026-11-20T10:04:12.000Z',
    },
    {
      ip: '10.0.1.12',
      scope: 'private',
      country_code: null,
      country: null,
      city: null,
      first_seen: '2026-11-20T09:00:00.000Z',
      last_seen: '2026-11-20T10:04:12.000Z',
    },
  ],
  open_case_ids: ['case_2vPq8LmN4xR7tY1wK9sD'],
  isolation_state: null,
};

export const DeviceSchema = Type.Object(
  {
    id: Type.String({ description: 'Device id (`dev_…`)' }),
    host_name: Type.String({
      description: 'Host name as the telemetry gave it (devices are told apart by it, case-insensitively)',
    }),
    description: Type.String({ description: 'Host description, set by tenant admins' }),
    criticality: CriticalitySchema,
    last_user: Nullable(Type.String({ description: 'The user of the newest endpoint event' })),
    endpoint_id: Nullable(Type.String({ description: "The endpoint agent's id" })),
    os: Nullable(Type.String({ description: 'Operating system, when the telemetry says' })),
    kubernetes_namespace: Nullable(Type.String({ description: 'Orchestrator namespace, for pods' })),
    first_seen: Timestamp('First event from the device'),
    last_seen: Timestamp('Newest event from the device'),
    addresses: Type.Array(AddressSchema),
    open_case_ids: Type.Array(Type.String(), { description: 'Open cases on the device' }),
    isolation_state: Type.Union([Type.Enum(isolationStates), Type.Null()], {
      description:
        'Network isolation by response actions: isolation_requested, isolated, isolation_failed, release_requested, released, release_failed; null: never acted on',
    }),
  },
  { examples: [deviceExample] },
);

export const ProcessSchema = Type.Object({
  process_name: Nullable(Type.String()),
  pid: Type.Union([Type.Integer(), Type.Null()]),
  executable_path: Nullable(Type.String()),
  user: Nullable(Type.String()),
  last_seen: Timestamp('Newest event of the process'),
});

export const DeviceDetailSchema = Type.Object(
  {
    ...DeviceSchema.properties,
    processes: Type.Array(ProcessSchema, {
      description: 'Processes seen on the device (name, PID, path), newest first, up to 200',
    }),
    cases: Type.Array(
      Type.Object({
        id: Type.String(),
        number: Type.Integer(),
        title: Type.String(),
        status: Type.String(),
        score: Type.Integer(),
      }),
      { description: 'Cases on the device, newest first, up to 100' },
    ),
  },
  {
    examples: [
      {
        ...deviceExample,
        processes: [
          {
            process_name: 'nginx',
            pid: 812,
            executable_path: '/usr/sbin/nginx',
            user: 'www-data',
            last_seen: '2026-11-20T10:04:12.000Z',
          },
        ],
        cases: [],
      },
    ],
  },
);

export const ListDevicesQuery = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 253, description: 'Part of the host name (case-insensitive)' }),
    ),
    ip: Type.Optional(Type.String({ maxLength: 45, description: 'An address the device used (exact)' })),
    seen_since: Type.Optional(
      Type.String({ format: 'date-time', description: 'Only devices seen at or after this time' }),
    ),
    has_open_case: Type.Optional(
      Type.Boolean({ description: 'true: only devices with an open case; false: only devices without' }),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);

export const PatchDeviceBody = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: 2_000, description: 'Host description' })),
    criticality: Type.Optional(CriticalitySchema),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ description: 'Payment API, PCI scope', criticality: 'critical' }],
  },
);
