// Request and response schemas of /v1/telemetry: one definition each drives validation, the
// TypeScript types (the web UI imports them as types) and the OpenAPI document.
import { Type } from 'typebox';
import { NextCursor, Timestamp } from '../http/schemas.js';
import type { FieldValue } from './telemetry-store.js';
import { MAX_FIELD_FILTERS, MAX_FIELD_PATH_LENGTH } from './telemetry-service.js';
import { MAX_QUERY_DEPTH, MAX_QUERY_LENGTH, MAX_QUERY_TERMS } from './telemetry-query.js';
import { MAX_TAIL_RECORDS, TAIL_SCAN_RECORDS } from './telemetry-tail.js';
import { MAX_HISTOGRAM_BUCKETS } from './telemetry-histogram.js';

export const recordExample = {
  id: 'rec_2m6M_N9Xr9t_YRdNgwPkWA',
  received_at: '2026-11-22T10:00:01.204Z',
  event_time: '2026-11-22T10:00:00.000Z',
  record: {
    timestamp: '2026-11-22T10:00:00Z',
    message: 'upstream timed out while reading response header',
    http: { method: 'POST', path: '/checkout', status: 500 },
    kubernetes: { namespace: 'prod', pod: 'checkout-7d9f8c6b5-x2kqp' },
  },
};

export const StoredRecordSchema = Type.Object(
  {
    id: Type.String({
      description:
        "Opaque record id (`rec_…`): it reveals nothing of the order or number of records; cite it in an observation's record_ids",
    }),
    received_at: Timestamp('When the collector accepted the record'),
    event_time: Timestamp("The record's own time when it carried one, else the receive time"),
    record: Type.Record(Type.String(), Type.Unknown(), { description: 'The record as sent: one JSON object' }),
    meta: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Transport metadata: of container-runtime log lines (`stream`, `time`, `logtag`), or of documents sent through the Elasticsearch bulk API (`_index`, `_id`)',
      }),
    ),
  },
  { examples: [recordExample] },
);

// One schema with a list of types, not a union: Fastify's validator coerces types, and in a
// union it would turn 500 into "500" in the string branch before the number branch is tried.
const FieldValueSchema = Type.Unsafe<FieldValue>({ type: ['string', 'number', 'boolean', 'null'] });

const filterRules = `Each key is a field path: object keys joined by dots (\`http.status\` is the key \`status\` inside the object \`http\`); array elements cannot be addressed, and keys holding a dot, \`"\`, \`\\\` or a control character cannot be named. Each value is a JSON string, number, boolean or null that the field must equal, with its JSON type: \`500\` matches the number 500 (or 500.0) but not the string \`"500"\`, \`true\` not \`"true"\`, and \`null\` matches an explicit null but not a missing field. Every filter must hold. At most ${MAX_FIELD_FILTERS} filters; paths up to ${MAX_FIELD_PATH_LENGTH} characters. On PostgreSQL, a record PostgreSQL cannot read as jsonb (one holding \`\\u0000\`, an unpaired surrogate escape or a number beyond its range) never matches a filter.`;

const searchFields = {
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Receive time from (inclusive), ISO 8601' })),
  until: Type.Optional(
    Type.String({ format: 'date-time', description: 'Receive time before (exclusive), ISO 8601; later than `since`' }),
  ),
  query: Type.Optional(
    Type.String({
      maxLength: MAX_QUERY_LENGTH,
      description: `A query in the telemetry query language (docs/search.md). Bare words must all occur in the record (full text: case-insensitive, whole words; punctuation separates words); \`"a phrase"\` in that order; \`word*\` a prefix. \`field:value\` on dotted paths (\`http.status:503\` matches the number or the string; \`field:"text"\` only the string; \`*\` and \`?\` are wildcards in a value); \`field:>=500\`, \`field:[1000 TO 5000]\` (\`{}\` exclusive, \`*\` open); \`_exists_:field\`; \`AND\`, \`OR\`, \`NOT\` (upper case) and parentheses; adjacent terms must all hold. Up to ${MAX_QUERY_LENGTH} characters, ${MAX_QUERY_TERMS} terms, ${MAX_QUERY_DEPTH} levels of nesting. A query that cannot be read is a 400 \`invalid_query\` problem with \`position\` (0-based), \`column\` and \`expected\`.`,
    }),
  ),
  filters: Type.Optional(
    Type.Record(Type.String(), FieldValueSchema, {
      maxProperties: MAX_FIELD_FILTERS,
      description: `Field equality filters. ${filterRules}`,
    }),
  ),
};

const Order = Type.Optional(
  Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
    default: 'asc',
    description:
      '`asc` (default): the order the collector stored the records, oldest first. `desc`: newest first by receive time (records received in the same millisecond: the later stored first)',
  }),
);

const searchExample = {
  since: '2026-11-22T00:00:00Z',
  until: '2026-11-23T00:00:00Z',
  query: 'timed out',
  filters: { 'http.status': 500, 'kubernetes.namespace': 'prod' },
};

export const SearchBody = Type.Object(
  {
    ...searchFields,
    order: Order,
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Records per page (1-1000)' }),
    ),
    cursor: Type.Optional(
      Type.String({
        maxLength: 512,
        description: 'The `next_cursor` of the previous page, with the same criteria and `order`',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ ...searchExample, order: 'desc', limit: 100 }] },
);

const TailCursor = Type.String({
  // On PostgreSQL a position holds two snapshots, each listing the transactions then running.
  maxLength: 16_384,
  description:
    'A position in the log, as returned by a search or a tail call: everything matching after it is new. It does not depend on the criteria, so they may change between calls.',
});

/** How complete a text search was: the index follows the log a little behind. */
const freshnessFields = {
  partial: Type.Boolean({
    description:
      'true when the query has full-text terms and the search index had not yet reached every record of the tenant: the answer covers what was indexed, which is every record received before `complete_up_to`. Searches wait at most half a second for the index; ask again for the rest. Always false for queries without full-text terms.',
  }),
  complete_up_to: Timestamp('With `partial`: every record received before this time was searched; absent otherwise'),
};

export const SearchResponse = Type.Object(
  {
    records: Type.Array(StoredRecordSchema),
    next_cursor: NextCursor,
    partial: freshnessFields.partial,
    complete_up_to: Type.Optional(freshnessFields.complete_up_to),
    tail_cursor: Type.String({
      description:
        'The log position taken just before this page was read: `POST /v1/telemetry/tail` with it returns what arrives from then on. A record committed while the search ran can come back from both calls: drop repeats by `id`.',
    }),
  },
  {
    description: 'A page of records, in the order asked for',
    examples: [
      { records: [recordExample], next_cursor: null, tail_cursor: 'eyJ0IjoidGFpbCIsInMiOjE4MzQyLCJ4IjoiMCJ9' },
    ],
  },
);

export const ExportBody = Type.Object(
  {
    ...searchFields,
    order: Order,
    max_records: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Stop after this many records; absent: every match' }),
    ),
  },
  { additionalProperties: false, examples: [{ ...searchExample, max_records: 100000 }] },
);

export const TailBody = Type.Object(
  {
    ...searchFields,
    tail_cursor: Type.Optional(TailCursor),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_TAIL_RECORDS,
        default: 100,
        description: `Records per answer (1-${MAX_TAIL_RECORDS})`,
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        query: 'timed out',
        filters: { 'kubernetes.namespace': 'prod' },
        tail_cursor: 'eyJ0IjoidGFpbCIsInMiOjE4MzQyLCJ4IjoiMCJ9',
      },
    ],
  },
);

export const TailResponse = Type.Object(
  {
    records: Type.Array(StoredRecordSchema, {
      description: 'New matching records, in the order they were stored (oldest first)',
    }),
    tail_cursor: Type.String({ description: 'Pass back as `tail_cursor` on the next call' }),
    caught_up: Type.Boolean({
      description: `True when every readable record was looked at: wait (1-2 s) before the next call. False when the answer stopped at \`limit\` or after ${TAIL_SCAN_RECORDS} log records: call again at once.`,
    }),
  },
  {
    description: 'Records that arrived after the position',
    examples: [{ records: [recordExample], tail_cursor: 'eyJ0IjoidGFpbCIsInMiOjE4MzQzLCJ4IjoiMCJ9', caught_up: true }],
  },
);

export const HistogramBody = Type.Object(
  {
    ...searchFields,
    since: Type.String({ format: 'date-time', description: 'Receive time from (inclusive), ISO 8601' }),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'Receive time before (exclusive), ISO 8601; absent: now' }),
    ),
    buckets: Type.Optional(
      Type.Integer({
        minimum: 2,
        maximum: MAX_HISTOGRAM_BUCKETS,
        default: 60,
        description: `At most this many buckets (2-${MAX_HISTOGRAM_BUCKETS}); the width is the smallest round one (1 s, 2 s, 5 s … 1 h, 3 h … 1 d, 7 d, 30 d) that fits`,
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ since: '2026-11-22T00:00:00Z', until: '2026-11-23T00:00:00Z', query: 'timed out', buckets: 48 }],
  },
);

export const HistogramResponse = Type.Object(
  {
    since: Timestamp('Start of the range counted'),
    until: Timestamp('End of the range counted (exclusive)'),
    interval_ms: Type.Integer({ description: 'Width of every bucket, milliseconds' }),
    buckets: Type.Array(
      Type.Object({
        start: Timestamp(
          'Start of the bucket, a multiple of the width since 1970-01-01 UTC; the first and last bucket count only what lies inside [since, until)',
        ),
        count: Type.Integer({ description: 'Matching records received in the bucket' }),
      }),
      {
        description:
          'Every bucket from the one holding `since` to the one holding the end, empty ones included, oldest first',
      },
    ),
    total: Type.Integer({ description: 'Matching records in the whole range' }),
    partial: freshnessFields.partial,
    complete_up_to: Type.Optional(freshnessFields.complete_up_to),
  },
  {
    description: 'Matching records per time bucket',
    examples: [
      {
        since: '2026-11-22T00:00:00.000Z',
        until: '2026-11-22T02:00:00.000Z',
        interval_ms: 3600000,
        buckets: [
          { start: '2026-11-22T00:00:00.000Z', count: 12 },
          { start: '2026-11-22T01:00:00.000Z', count: 3 },
        ],
        total: 15,
      },
    ],
  },
);

export const matching = `The tenant's records that match every criterion given: receive time within [\`since\`, \`until\`), the \`query\`, and every field filter. A text search first brings the search index up to date, so every record the collector acknowledged before the call is found.`;

export const FieldsResponse = Type.Object(
  {
    fields: Type.Array(
      Type.Object({
        path: Type.String({ description: 'Dotted path of the field, as a query names it (`http.status`)' }),
        count: Type.Integer({ description: 'How many of the records read hold it' }),
      }),
      { description: 'Most common first' },
    ),
    records_read: Type.Integer({ description: 'How many of the newest records were read' }),
  },
  {
    description: "The field names of the tenant's newest records",
    examples: [{ fields: [{ path: 'http.status', count: 870 }], records_read: 1000 }],
  },
);
