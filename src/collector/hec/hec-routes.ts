// Splunk HTTP Event Collector on the collector address (docs/collector.md, Splunk HEC): the
// event and raw endpoints and the health probe, so Splunk's loggers, Fluent Bit's `splunk`
// output and Vector's `splunk_hec_logs` sink can send here unchanged. The tenant, ingest key,
// limits and storage are the shared intake's; this file reads HEC bodies and answers as HEC does.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { AppError } from '../../core/errors.js';
import type { CollectorDependencies, Intake } from '../intake/intake.js';
import type { ParsedBody } from '../intake/parse.js';
import { parseTime } from '../intake/event-time.js';
import { createHecErrorHandler, hecBody, HEC_HEALTHY, HEC_QUEUES_FULL, HEC_SUCCESS } from './hec-answers.js';
import { addEnvelope, addRawLine, emptyParsedBody, METADATA_NAMES, type HecDefaults } from './hec-event.js';
import { splitObjects } from './hec-stream.js';

const EVENT_URLS = ['/services/collector', '/services/collector/event', '/services/collector/event/1.0'];
const RAW_URLS = ['/services/collector/raw', '/services/collector/raw/1.0'];
const HEALTH_URLS = ['/services/collector/health', '/services/collector/health/1.0'];

const CHANNEL_HEADER = 'x-splunk-request-channel';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Other parameters HEC clients add (ack, auto_extract_timestamp) are let through and ignored.
const HecQuery = Type.Object(
  {
    host: Type.Optional(Type.String({ description: 'Default `host` of the events' })),
    source: Type.Optional(Type.String({ description: 'Default `source` of the events' })),
    sourcetype: Type.Optional(Type.String({ description: 'Default `sourcetype` of the events' })),
    index: Type.Optional(Type.String({ description: 'Default `index` of the events (kept, not used to route)' })),
    time: Type.Optional(Type.String({ description: 'Default event time, epoch seconds' })),
    channel: Type.Optional(Type.String({ description: 'Data channel (a GUID); required by the raw endpoint' })),
  },
  { additionalProperties: true },
);
type HecQuery = Static<typeof HecQuery>;

const HecAnswerSchema = Type.Object(
  {
    text: Type.String(),
    code: Type.Integer({ description: "HEC's status code: 0 success, 17 healthy, others errors" }),
    'invalid-event-number': Type.Optional(Type.Integer({ description: 'The bad event, counted from 0' })),
    detail: Type.Optional(Type.String({ description: 'What was wrong, in the collector’s words' })),
  },
  { additionalProperties: true },
);

/** HEC's answers: the same schema whatever the status, as HEC clients read the body for `code`. */
const responses = Object.fromEntries(
  [200, 400, 401, 403, 413, 429, 500, 503].map((status) => [status, HecAnswerSchema]),
);

/** HEC ignores Content-Type: senders label the same JSON text/plain, form-encoded, or nothing. */
const anyMediaType = () => undefined;

/** The ingest key as the key gate reads it: HEC's `Splunk <key>` is presented as `Bearer <key>`. */
function hecAuthorization(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const splunk = header === undefined ? null : /^splunk\s+(\S+)\s*$/i.exec(header);
  return splunk ? `Bearer ${splunk[1]}` : header;
}

/**
 * Keys in the query string (`?token=`) end up in proxy and access logs; HEC itself refuses them
 * unless turned on, and here they are refused always, before the key is looked at.
 */
async function refuseQueryToken(request: FastifyRequest): Promise<void> {
  if ('token' in (request.query as Record<string, unknown>)) {
    throw new AppError(
      'hec_query_token',
      'the ingest key is not accepted in the query string: send it as "Authorization: Splunk <key>"',
    );
  }
}

/** The channel a request names, checked as HEC checks it; undefined when it names none. */
function channelOf(request: FastifyRequest<{ Querystring: HecQuery }>): string | undefined {
  const header = request.headers[CHANNEL_HEADER];
  const channel = request.query.channel ?? (typeof header === 'string' ? header : undefined);
  if (channel !== undefined && !GUID.test(channel)) {
    throw new AppError('hec_channel_invalid', `the data channel ${JSON.stringify(channel)} is not a GUID`);
  }
  return channel;
}

function defaultsOf(query: HecQuery): HecDefaults {
  const defaults: HecDefaults = {};
  for (const name of METADATA_NAMES) if (query[name] !== undefined) defaults[name] = query[name];
  if (query.time !== undefined) {
    if (parseTime(query.time) === undefined)
      throw new AppError('hec_invalid_event', 'the query parameter time is not epoch seconds');
    defaults.time = query.time;
  }
  return defaults;
}

function decodedText(body: Buffer): string {
  if (body.length === 0) throw new AppError('empty_body', 'the body is empty');
  if (!isUtf8(body)) throw new AppError('invalid_utf8', 'the body is not valid UTF-8');
  return body.toString('utf8');
}

function parseEvents(body: Buffer, defaults: HecDefaults, maxRecordBytes: number): ParsedBody {
  const parsed = emptyParsedBody();
  splitObjects(decodedText(body), { maxRecordBytes }).forEach((envelope, number) => {
    addEnvelope(parsed, envelope, number, defaults);
  });
  if (parsed.records.length === 0) throw new AppError('empty_body', 'the body holds no event');
  return parsed;
}

/** One event per line; blank lines are skipped, CRLF accepted. */
function parseRaw(body: Buffer, defaults: HecDefaults, maxRecordBytes: number): ParsedBody {
  const parsed = emptyParsedBody();
  for (const line of decodedText(body).split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const bytes = Buffer.byteLength(line);
    if (bytes > maxRecordBytes) {
      const number = parsed.records.length;
      throw new AppError('record_too_large', `event ${number}: ${bytes} bytes; the largest is ${maxRecordBytes}`, {
        extensions: { event_number: number, limit_bytes: maxRecordBytes },
      });
    }
    addRawLine(parsed, line, defaults);
  }
  if (parsed.records.length === 0) throw new AppError('empty_body', 'the body holds no line');
  return parsed;
}

/** Registers the HEC endpoints on the collector's scope, behind the shared intake. */
export function registerHecIntake(app: FastifyInstance, intake: Intake, deps: CollectorDependencies): void {
  const errorHandler = createHecErrorHandler(() => app.log);
  const { maxRecordBytes } = deps.config;
  const shared = {
    method: 'POST' as const,
    config: { collectorMediaTypes: anyMediaType },
    errorHandler,
    onRequest: [refuseQueryToken, intake.admit({ authorization: hecAuthorization })],
  };

  for (const url of EVENT_URLS) {
    app.route<{ Querystring: HecQuery }>({
      ...shared,
      url,
      schema: {
        summary: 'Send Splunk HEC events',
        description:
          'Splunk HTTP Event Collector: JSON event objects one after another (`event` required; `time`, `host`, ' +
          '`source`, `sourcetype`, `index`, `fields` optional), each stored as one record with its metadata under ' +
          '`hec`. Authorization: `Splunk <ingest key>`. Answers in HEC’s `{"text","code"}` shape; all or nothing.',
        querystring: HecQuery,
        response: responses,
      },
      handler: async (request, reply) => {
        const receivedAt = Date.now();
        channelOf(request);
        const parsed = parseEvents(intake.bodyOf(request).body, defaultsOf(request.query), maxRecordBytes);
        await intake.store(request, reply, parsed, { receivedAt, protocol: 'hec' });
        return reply.code(HEC_SUCCESS.status).send(hecBody(HEC_SUCCESS));
      },
    });
  }

  for (const url of RAW_URLS) {
    app.route<{ Querystring: HecQuery }>({
      ...shared,
      url,
      schema: {
        summary: 'Send Splunk HEC raw lines',
        description:
          'Splunk HTTP Event Collector raw endpoint: each line is one event (a JSON object line is stored as that ' +
          'object, other text as `{"message": …}`); `host`, `source`, `sourcetype`, `index`, `time` from the query. ' +
          'A data channel (GUID) is required, as `?channel=` or `X-Splunk-Request-Channel`.',
        querystring: HecQuery,
        response: responses,
      },
      handler: async (request, reply) => {
        const receivedAt = Date.now();
        if (channelOf(request) === undefined)
          throw new AppError('hec_channel_missing', `the raw endpoint needs ?channel=<GUID> or ${CHANNEL_HEADER}`);
        const parsed = parseRaw(intake.bodyOf(request).body, defaultsOf(request.query), maxRecordBytes);
        await intake.store(request, reply, parsed, { receivedAt, protocol: 'hec' });
        return reply.code(HEC_SUCCESS.status).send(hecBody(HEC_SUCCESS));
      },
    });
  }

  for (const url of HEALTH_URLS) {
    app.route({
      method: 'GET',
      url,
      errorHandler,
      schema: {
        summary: 'Splunk HEC health',
        description: 'What HEC clients probe before sending: 200 code 17, or 503 code 18 while the queue is full.',
        response: responses,
      },
      // No tenant and no key: shippers probe it without a token, and it says nothing of tenants.
      handler: async (_request, reply) => {
        const answer = deps.queue.overLimit ? HEC_QUEUES_FULL : HEC_HEALTHY;
        return reply.code(answer.status).send(hecBody(answer));
      },
    });
  }
}
