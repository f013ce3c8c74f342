// /v1/telemetry: search the records the collector stored (a page at a time, oldest or newest
// first), follow new ones (tail), count matches over time (histogram), and export a time range
// of them as an NDJSON stream.
import { Readable } from 'node:stream';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../core/errors.js';
import { tenantOf } from '../identity/auth.js';
import { decodeCursor, encodeCursor } from '../http/pagination.js';
import { routePlugin } from '../http/route-plugin.js';
import { answerWithRawJson } from '../http/raw-json-reply.js';
import {
  exportTelemetry,
  searchTelemetry,
  type PageStart,
  type RecordPage,
  type SearchOrder,
  type TelemetryReader,
} from './telemetry-service.js';
import { decodeTailCursor, encodeTailCursor, tailTelemetry, TAIL_SCAN_RECORDS } from './telemetry-tail.js';
import { histogramTelemetry } from './telemetry-histogram.js';
import type { IndexFreshness } from './search-index.js';
import { FIELD_SAMPLE_RECORDS, recentFields } from './telemetry-fields.js';
import {
  ExportBody,
  FieldsResponse,
  HistogramBody,
  HistogramResponse,
  matching,
  SearchBody,
  SearchResponse,
  StoredRecordSchema,
  TailBody,
  TailResponse,
} from './telemetry-schemas.js';

export const telemetryRoutes = routePlugin(function telemetryRoutes(app: FastifyInstance, deps: TelemetryReader): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.post(
    '/telemetry/search',
    {
      config: { access: { scope: 'tenant', permission: 'telemetry:read' } },
      preValidation: refuseArrayFilterValues,
      schema: {
        tags: ['Telemetry'],
        summary: 'Search records',
        description: `${matching} Oldest first in the order the collector stored them, or newest first with \`"order": "desc"\`. A page at a time: pass \`next_cursor\` back as \`cursor\`, with the same criteria and order, until it is null. Every page also carries \`tail_cursor\`, from which \`POST /v1/telemetry/tail\` follows the records that arrive next.`,
        body: SearchBody,
        response: { 200: SearchResponse },
      },
    },
    async (request, reply) => {
      const { limit = 100, cursor, order = 'asc', ...search } = request.body;
      const start = cursor ? decodePageCursor(cursor) : undefined;
      const page = await searchTelemetry(deps, tenantOf(request).id, search, {
        limit,
        order,
        ...(start ? { start } : {}),
      });
      return answerWithRawJson(reply, {
        records: page.records,
        next_cursor: encodePageCursor(order, page.next),
        tail_cursor: encodeTailCursor(page.tail),
        ...freshnessOf(page.freshness),
      });
    },
  );

  routes.get(
    '/telemetry/fields',
    {
      config: { access: { scope: 'tenant', permission: 'telemetry:read' } },
      schema: {
        tags: ['Telemetry'],
        summary: 'Field names of recent records',
        description: `The dotted field paths found in the tenant's newest ${FIELD_SAMPLE_RECORDS} records, with how many of them hold each, most common first: suggestions for \`field:value\` queries. Keys a query cannot name (holding characters other than letters, digits and \`_ @ $ -\`) and array elements are left out.`,
        response: { 200: FieldsResponse },
      },
    },
    async (request) => recentFields(deps.database.db, tenantOf(request).id),
  );

  routes.post(
    '/telemetry/tail',
    {
      config: { access: { scope: 'tenant', permission: 'telemetry:read' } },
      preValidation: refuseArrayFilterValues,
      schema: {
        tags: ['Telemetry'],
        summary: 'Follow new records (live tail)',
        description: `Records matching the criteria that the log gained after \`tail_cursor\` (from a search or the previous tail call), in the order they were stored, each exactly once: poll with the \`tail_cursor\` of each answer. Without \`tail_cursor\` the tail starts at the log's current end and answers no records yet. ${matching} A record is returned once it is readable: on PostgreSQL, once its transaction has committed (a record whose transaction commits after later ones is returned then, never skipped), and for a text query once the search index holds it. One call looks at ${TAIL_SCAN_RECORDS} log records at most; \`caught_up\` says whether to call again at once or after a pause.`,
        body: TailBody,
        response: { 200: TailResponse },
      },
    },
    async (request, reply) => {
      const { tail_cursor: cursor, limit = 100, ...search } = request.body;
      const from = cursor ? decodeTailCursor(cursor) : undefined;
      const page = await tailTelemetry(deps, tenantOf(request).id, search, from, limit);
      return answerWithRawJson(reply, {
        records: page.records,
        tail_cursor: encodeTailCursor(page.position),
        caught_up: page.caughtUp,
      });
    },
  );

  routes.post(
    '/telemetry/histogram',
    {
      config: { access: { scope: 'tenant', permission: 'telemetry:read' } },
      preValidation: refuseArrayFilterValues,
      schema: {
        tags: ['Telemetry'],
        summary: 'Count matching records over time',
        description: `How many of the tenant's records match, per time bucket of receive time over [\`since\`, \`until\`), with the criteria of a search. Counting without \`query\` and \`filters\` reads only the time index; a field filter reads each record in the range, so it costs what an unpaged search of the range would.`,
        body: HistogramBody,
        response: { 200: HistogramResponse },
      },
    },
    async (request) => {
      const { buckets = 60, ...search } = request.body;
      const histogram = await histogramTelemetry(deps, tenantOf(request).id, search, buckets);
      return {
        since: new Date(histogram.since).toISOString(),
        until: new Date(histogram.until).toISOString(),
        interval_ms: histogram.width,
        buckets: histogram.buckets.map((bucket) => ({
          start: new Date(bucket.start).toISOString(),
          count: bucket.count,
        })),
        total: histogram.total,
        ...freshnessOf(histogram.freshness),
      };
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
        description: `${matching} Oldest first in the order the collector stored them, or newest first with \`"order": "desc"\`. Streamed as NDJSON, one record per line, as fast as the client reads. Errors found before the first byte are problem responses; a failure after that cuts the response off (the chunked body never ends properly), so an incomplete export cannot pass for a complete one. When the query has full-text terms and the search index had not reached every record yet (it waits half a second at most), the header \`Sightline-Complete-Up-To\` gives the receive time before which every record was searched.`,
        body: ExportBody,
        response: {
          200: {
            description: 'The matching records, one JSON object per line (`application/x-ndjson`)',
            // Documents each line; typed as the stream the handler sends, which is never serialized.
            content: { 'application/x-ndjson': { schema: Type.Unsafe<Readable>(StoredRecordSchema) } },
          },
        },
      },
    },
    async (request, reply) => {
      const { max_records: max, order = 'asc', ...search } = request.body;
      const { lines, freshness } = await exportTelemetry(deps, tenantOf(request).id, search, max, order);
      if (freshness.partial) reply.header(COMPLETE_UP_TO_HEADER, new Date(freshness.completeUpTo).toISOString());
      return reply.type('application/x-ndjson').send(Readable.from(loggedFailure(lines, request.log)));
    },
  );
});

/** On an export that the search index had not fully reached: every record before it was searched. */
const COMPLETE_UP_TO_HEADER = 'Sightline-Complete-Up-To';

function freshnessOf(freshness: IndexFreshness): { partial: boolean; complete_up_to?: string } {
  return freshness.partial
    ? { partial: true, complete_up_to: new Date(freshness.completeUpTo).toISOString() }
    : { partial: false };
}

/**
 * Page cursors: a record's receive time and sequence, `{a, s}` after it (oldest first) or `{r, s}`
 * before it (newest first). `{s}` alone, after a sequence, is what oldest-first cursors used to be.
 */
function encodePageCursor(order: SearchOrder, next: RecordPage['next']): string | null {
  if (!next) return null;
  return order === 'asc'
    ? encodeCursor({ a: next.receivedAt, s: next.seq })
    : encodeCursor({ r: next.receivedAt, s: next.seq });
}

function decodePageCursor(cursor: string): PageStart {
  const position: Record<string, unknown> = decodeCursor<{ s: number }>(cursor, { s: 'number' });
  const keys = Object.keys(position).sort().join(',');
  if (keys === 's') return { order: 'asc', afterSeq: position.s as number };
  if (keys === 'a,s') {
    const { a, s } = decodeCursor<{ a: number; s: number }>(cursor, { a: 'number', s: 'number' });
    return { order: 'asc', from: { receivedAt: a, seq: s } };
  }
  if (keys === 'r,s') {
    const { r, s } = decodeCursor<{ r: number; s: number }>(cursor, { r: 'number', s: 'number' });
    return { order: 'desc', from: { receivedAt: r, seq: s } };
  }
  // Well-formed but not a page cursor (e.g. a tail_cursor).
  throw new AppError('invalid_cursor', 'cursor is not a next_cursor of this search; pass next_cursor unchanged', {
    extensions: { field: 'cursor' },
  });
}

/**
 * Fastify's validator turns a one-element array into its element (coerceTypes 'array'), which
 * would make `{"tags": ["prod"]}` mean `{"tags": "prod"}`; filter values are refused as sent.
 */
function refuseArrayFilterValues(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const filters = (request.body as { filters?: unknown } | undefined)?.filters;
  const entries = typeof filters === 'object' && filters !== null ? Object.entries(filters) : [];
  const path = entries.find(([, value]) => Array.isArray(value))?.[0];
  if (path === undefined) {
    done();
    return;
  }
  done(
    new AppError(
      'invalid_request',
      `filters: the value for ${JSON.stringify(path)} is an array; a filter compares with one string, number, boolean or null`,
      {
        extensions: { field: 'filters', filter: path },
      },
    ),
  );
}

/**
 * Readable.from pulls a page of lines only when the response can take more, so a slow client
 * holds back the database reads. Fastify does not log stream errors with request logging off; this does.
 */
async function* loggedFailure(lines: AsyncIterable<string>, log: FastifyBaseLogger): AsyncGenerator<string> {
  try {
    yield* lines;
  } catch (error) {
    log.error({ err: error }, 'telemetry export failed part-way; the response was cut off');
    throw error;
  }
}
