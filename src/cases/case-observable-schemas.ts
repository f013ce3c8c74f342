// Request and response schemas of a case's observables (GET, POST, PATCH, DELETE
// /v1/cases/{case_id}/observables…), its similar cases and its report.
import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';
import { OBSERVABLE_LIMITS, OBSERVABLE_TYPES } from '../detection/observable-values.js';
import { KNOWN_TAGS, MAX_OBSERVABLE_TAGS } from './case-observables.js';
import { SIMILAR_LIMITS } from './case-similar.js';
import { StatusSchema } from './case-schemas.js';

export const ObservableTypeSchema = Type.Enum(OBSERVABLE_TYPES, {
  description:
    'ip (IPv4 or IPv6, canonical form), domain (lower case, punycode), url, md5, sha1, sha256 (lower-case hex), email, user (lower case), host (lower case), process_path (Windows paths in lower case), command_line',
});

// Checked by the service (invalid_observable), which takes upper case and says what a tag may hold.
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
  maxItems: MAX_OBSERVABLE_TAGS,
  description: `${KNOWN_TAGS.join(', ')}, or your own (lower-case letters, digits, _ . : -); at most ${MAX_OBSERVABLE_TAGS}`,
});

const observableExample = {
  id: 'obv_7Hd2kQp0LsX1vN5aRt7y',
  type: 'ip',
  value: '203.0.113.44',
  tags: ['ioc'],
  source: 'evidence',
  observation_id: 'obs_2vPq8LmN4xR7tY1wK9sD',
  first_seen: '2026-11-20T10:04:12.000Z',
  created_at: '2026-11-20T10:04:13.000Z',
  created_by: null,
  removed_at: null,
  removed_by: null,
  other_cases: 1,
  devices: 2,
  search_query: '"203.0.113.44"',
};

export const ObservableSchema = Type.Object(
  {
    id: Type.String({ description: 'Observable id (`obv_…`)' }),
    type: ObservableTypeSchema,
    value: Type.String({ description: `Normalised; at most ${OBSERVABLE_LIMITS.valueBytes} bytes` }),
    tags: Type.Array(Type.String()),
    source: Type.Union([Type.Literal('evidence'), Type.Literal('analyst')], {
      description: '`evidence`: taken from the observations and devices of the case; `analyst`: added by someone',
    }),
    observation_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The observation whose evidence named it first (evidence only)',
    }),
    first_seen: Timestamp('Its first observation, or when an analyst added it'),
    created_at: Timestamp('Stored'),
    created_by: Type.Union([Type.String(), Type.Null()], { description: 'Who added it (`user:…`, `token:…`)' }),
    removed_at: Type.Union([Timestamp('Removed'), Type.Null()]),
    removed_by: Type.Union([Type.String(), Type.Null()]),
    other_cases: Type.Integer({ description: 'Other cases of the tenant holding the same value' }),
    devices: Type.Integer({ description: 'Devices of the cases holding it (this one included)' }),
    search_query: Type.Union([Type.String(), Type.Null()], {
      description: 'A telemetry query (docs/search.md) for the records holding the value, as a phrase',
    }),
  },
  { examples: [observableExample] },
);

export const ObservableListSchema = Type.Object(
  {
    case_id: Type.String(),
    observables: Type.Array(ObservableSchema, { description: 'By type, then value' }),
  },
  { examples: [{ case_id: 'case_2vPq8LmN4xR7tY1wK9sD', observables: [observableExample] }] },
);

export const ObservableListQuery = Type.Object(
  {
    include_removed: Type.Optional(
      Type.Boolean({ default: false, description: 'Also list the ones analysts removed (with `removed_at`)' }),
    ),
  },
  { additionalProperties: false },
);

export const AddObservableBody = Type.Object(
  {
    type: ObservableTypeSchema,
    value: Type.String({ minLength: 1, maxLength: 8192 }),
    tags: Type.Optional(Tags),
  },
  { additionalProperties: false, examples: [{ type: 'domain', value: 'Evil.Example.COM', tags: ['ioc'] }] },
);

export const TagObservableBody = Type.Object(
  { tags: Tags },
  { additionalProperties: false, examples: [{ tags: ['ioc'] }] },
);

export const ObservableParams = Type.Object({
  case_id: Type.String({ maxLength: 64, description: 'Case id (`case_…`) or case number' }),
  observable_id: Type.String({ maxLength: 64 }),
});

export const SimilarQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: SIMILAR_LIMITS.maxLimit,
        default: SIMILAR_LIMITS.defaultLimit,
        description: `Cases to list (1–${SIMILAR_LIMITS.maxLimit})`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const SimilarSchema = Type.Object(
  {
    case_id: Type.String(),
    cases: Type.Array(
      Type.Object({
        id: Type.String(),
        number: Type.Integer(),
        title: Type.String(),
        status: StatusSchema,
        severity: Type.String(),
        score: Type.Integer(),
        last_observation_at: Timestamp('Its last observation'),
        similarity: Type.Number({ description: 'observable_weight + the number of shared techniques' }),
        observable_weight: Type.Number({ description: 'The summed weight of the shared observables' }),
        shared_observable_count: Type.Integer(),
        shared_observables: Type.Array(Type.Object({ type: ObservableTypeSchema, value: Type.String() }), {
          description: `The heaviest first, up to ${SIMILAR_LIMITS.listed}`,
        }),
        shared_techniques: Type.Array(Type.String(), { description: 'ATT&CK techniques both cases hold' }),
      }),
    ),
  },
  {
    examples: [
      {
        case_id: 'case_2vPq8LmN4xR7tY1wK9sD',
        cases: [
          {
            id: 'case_9aXc2LmN4xR7tY1wK0pQ',
            number: 43,
            title: 'SQL Injection Attempt in Web Request on web-02',
            status: 'new',
            severity: 'high',
            score: 55,
            last_observation_at: '2026-11-20T10:05:40.000Z',
            similarity: 4,
            observable_weight: 3,
            shared_observable_count: 1,
            shared_observables: [{ type: 'ip', value: '203.0.113.44' }],
            shared_techniques: ['T1190'],
          },
        ],
      },
    ],
  },
);

export const ReportQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union([Type.Literal('markdown'), Type.Literal('html')], {
        description: 'Overrides the Accept header: `markdown` (text/markdown) or `html` (text/html)',
      }),
    ),
  },
  { additionalProperties: false },
);
