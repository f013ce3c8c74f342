// /v1/telemetry: search the records the collector stored (a page at a time) and export a time
// range of them as an NDJSON stream.
import { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { tenantOf } from '../http/auth.js';
import { decodeCursor, encodeCursor } from '../http/pagination.js';
import { NextCursor, PageQuery, Timestamp } from '../http/schemas.js';
import type { FieldValue } from './telemetry-store.js';
import {
  exportTelemetry,
  MAX_FIELD_FILTERS,
  MAX_FIELD_PATH_LENGTH,
  searchTelemetry,
  type StoredRecord,
  type TelemetryReader,
} from './telemetry-service.js';

const recordExample = {
  id: '18342',
  received_at: '2026-11-22T10:00:01.204Z',
  event_time: '2026-11-22T10:00:00.000Z',
  record: {
    timestamp: '2026-11-22T10:00:00Z',
    message: 'upstream timed out while reading response header',
    http: { method: 'POST', path: '/checkout', status: 500 },
    kubernetes: { namespace: 'prod', pod: 'checkout-7d9f8c6b5-x2kqp' },
  },
};

const StoredRecordSchema = Type.Object(
  {
    id: Type.String({ description: 'Opaque record id' }),
    received_at: Timestamp('When the collector accepted the record'),
    event_time: Timestamp("The record's own time when it carried one, else the receive time"),
    record: Type.Record(Type.String(), Type.Unknown(), { description: 'The record as sent: one JSON object' }),
    meta: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Transport metadata of container-runtime log lines (`stream`, `time`, `logtag`)' }),
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
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Receive time before (exclusive), ISO 8601; later than `since`' })),
  query: Type.Optional(
    Type.String({ maxLength: 1024, description: 'Free text: every word must occur in the record (case-insensitive, whole words; punctuation separates words)' }),
  ),
  filters: Type.Optional(
    Type.Record(Type.String(), FieldValueSchema, { maxProperties: MAX_FIELD_FILTERS, description: `Field equality filters. ${filterRules}` }),
  ),
};

const searchExample = {
  since: '2026-11-22T00:00:00Z',
  until: '2026-11-23T00:00:00Z',
  query: 'timed out',
  filters: { 'http.status': 500, 'kubernetes.namespace': 'prod' },
};

const SearchBody = Type.Object(
  {
    ...searchFields,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Records per page (1-1000)' })),
    cursor: PageQuery.cursor,
  },
  { additionalProperties: false, examples: [{ ...searchExample, limit: 100 }] },
);

const ExportBody = Type.Object(
  {
    ...searchFields,
    max_records: Type.Optional(Type.Integer({ minimum: 1, description: 'Stop after this many records; absent: every match' })),
  },
  { additionalProperties: false, examples: [{ ...searchExample, max_records: 100000 }] },
);

const matching = `The tenant's records that match every criterion given, in the order the collector stored them (oldest first): receive time within [\`since\`, \`until\`), every word of \`query\`, and every field filter. A text search first brings the search index up to date, so every record the collector acknowledged before the call is found.`;

export async function telemetryRoutes(app: FastifyInstance, deps: TelemetryReader): Promise<void> {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.post(
    '/telemetry/search',
    {
      config: { access: { scope: 'tenant', permission: 'telemetry:read' } },
      preValidation: refuseArrayFilterValues,
      schema: {
        tags: ['Telemetry'],
        summary: 'Search records',
        description: `${matching} A page at a time: pass \`next_cursor\` back as \`cursor\`, with the same criteria, until it is null.`,
        body: SearchBody,
        response: {
          200: Type.Object(
            { records: Type.Array(StoredRecordSchema), next_cursor: NextCursor },
            { description: 'A page of records, oldest first', examples: [{ records: [recordExample], next_cursor: null }] },
          ),
        },
      },
    },
    async (request) => {
      const { limit = 100, cursor, ...search } = request.body;
      const after = cursor ? decodeCursor<{ s: number }>(cursor, { s: 'number' }) : undefined;
      const page = await searchTelemetry(deps, tenantOf(request).id, search, { limit, ...(after ? { afterSeq: after.s } : {}) });
      return { records: page.records, next_cursor: page.lastSeq !== undefined ? encodeCursor({ s: page.lastSeq }) : null };
    },
  );

  routes.post(
    '/telemetry/export',
    {
      config: { access: { scope: 'tenant', permission: 'telemetry:read' } },
      preValidation: refuseArrayFilterValues,
      schema: {
        tags: ['Telemetry'],
        summary: 'Export records as NDJSON',
        description: `${matching} Streamed as NDJSON, one record per line, as fast as the client reads. Errors found before the first byte are problem responses; a failure after that cuts the response off (the chunked body never ends properly), so an incomplete export cannot pass for a complete one.`,
        body: ExportBody,
        response: {
          200: {
            description: 'The matching records, one JSON object per line (`application/x-ndjson`), oldest first',
            // Documents each line; typed as the stream the handler sends, which is never serialized.
            content: { 'application/x-ndjson': { schema: Type.Unsafe<Readable>(StoredRecordSchema) } },
          },
        },
      },
    },
    async (request, reply) => {
      const { max_records: max, ...search } = request.body;
      const records = await exportTelemetry(deps, tenantOf(request).id, search, max);
      return reply.type('application/x-ndjson').send(Readable.from(ndjsonLines(records, request.log)));
    },
  );
}

/**
 * Fastify's validator turns a one-element array into its element (coerceTypes 'array'), which
 * would make `{"tags": ["prod"]}` mean `{"tags": "prod"}`; filter values are refused as sent.
 */
async function refuseArrayFilterValues(request: FastifyRequest): Promise<void> {
  const filters = (request.body as { filters?: unknown } | undefined)?.filters;
  if (typeof filters !== 'object' || filters === null) return;
  for (const [path, value] of Object.entries(filters)) {
    if (Array.isArray(value)) {
      throw new AppError('invalid_request', `filters: the value for ${JSON.stringify(path)} is an array; a filter compares with one string, number, boolean or null`, {
        extensions: { field: 'filters', filter: path },
      });
    }
  }
}

/**
 * Readable.from pulls a line only when the response can take more, so a slow client holds back
 * the database reads. Fastify does not log stream errors with request logging off; this does.
 */
async function* ndjsonLines(records: AsyncIterable<StoredRecord>, log: FastifyBaseLogger): AsyncGenerator<string> {
  try {
    for await (const record of records) yield `${JSON.stringify(record)}\n`;
  } catch (error) {
    log.error({ err: error }, 'telemetry export failed part-way; the response was cut off');
    throw error;
  }
}
