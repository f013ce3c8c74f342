// The OTLP monitoring sink: each generation becomes an OpenTelemetry GenAI span (`chat {model}`) and
// each feedback a `summary.feedback` span in the same trace (the trace id is derived from the summary
// id), posted as OTLP/HTTP JSON to <endpoint>/v1/traces: an OpenTelemetry Collector, Langfuse, etc.
import { createHash, randomBytes } from 'node:crypto';
import {
  settled,
  type FeedbackRecord,
  type GenerationRecord,
  type MonitoringSettings,
  type MonitoringSink,
} from './monitoring-sink.js';

// OTLP/JSON (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): ids are lowercase
// hex, int64 values (times, intValue) decimal strings, enums integers.
export type OtlpAnyValue =
  { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };
export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}
export interface OtlpEvent {
  timeUnixNano: string;
  name: string;
  attributes: OtlpKeyValue[];
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  events?: OtlpEvent[];
  /** Left out (Unset) on success, as instrumentation should; code 2 (Error) with the message on failure. */
  status?: { code: number; message?: string };
}
export interface OtlpTraceRequest {
  resourceSpans: {
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: { scope: { name: string; version: string }; spans: OtlpSpan[] }[];
  }[];
}

const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_CLIENT = 3;
const STATUS_CODE_ERROR = 2;
export const SERVICE_NAME = 'sightline';
export const INSTRUMENTATION_SCOPE = { name: 'sightline.summaries', version: '1' } as const;
/** Langfuse's trace name for these traces. */
const TRACE_NAME = 'case summary';

/** A failed export: the collector's HTTP status when it answered, none when it did not (timeout, network). */
export class OtlpExportError extends Error {
  override name = 'OtlpExportError';
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The trace of a summary: the first 32 hex digits of sha256(summary_id), so its feedback joins it later. */
export const traceIdFor = (summaryId: string): string =>
  createHash('sha256').update(summaryId, 'utf8').digest('hex').slice(0, 32);

/** A random, valid (not all-zero) span id. */
export function newSpanId(): string {
  for (;;) {
    const id = randomBytes(8).toString('hex');
    if (id !== '0000000000000000') return id;
  }
}

/** An ISO 8601 time as unix nanoseconds, the OTLP/JSON way (a decimal string). */
export function unixNanos(iso: string, field: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`${field} is not an ISO 8601 time (got ${JSON.stringify(iso)})`);
  return (BigInt(ms) * 1_000_000n).toString();
}

/** `<endpoint>/v1/traces`; an endpoint that already names /v1/traces is used as it is. */
export function tracesUrl(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(`the OTLP endpoint must be an http(s) URL (got ${JSON.stringify(endpoint)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`the OTLP endpoint must be an http(s) URL (got ${url.protocol})`);
  const base = url.pathname.replace(/\/+$/, '');
  url.pathname = base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
  return url;
}

class Attributes {
  readonly list: OtlpKeyValue[] = [];
  string(key: string, value: string | null | undefined): this {
    if (value !== null && value !== undefined) this.list.push({ key, value: { stringValue: value } });
    return this;
  }
  int(key: string, value: number): this {
    this.list.push({ key, value: { intValue: String(Math.trunc(value)) } });
    return this;
  }
  double(key: string, value: number): this {
    this.list.push({ key, value: { doubleValue: value } });
    return this;
  }
  bool(key: string, value: boolean): this {
    this.list.push({ key, value: { boolValue: value } });
    return this;
  }
  /** Langfuse shows span attributes only through its metadata keys. */
  langfuseMetadata(level: 'observation' | 'trace', values: Record<string, string>): this {
    for (const [key, value] of Object.entries(values)) this.string(`langfuse.${level}.metadata.${key}`, value);
    return this;
  }
}

/**
 * The GenAI inference span (OpenTelemetry semantic conventions for generative AI, inference span):
 * gen_ai.* attributes with the content as JSON strings (gen_ai.system_instructions,
 * gen_ai.input.messages, gen_ai.output.messages), the langfuse.* attributes Langfuse reads first
 * (it maps user.id, gen_ai.usage.* and gen_ai.*.model itself), and sightline.* for the case.
 */
export function generationSpan(record: GenerationRecord, spanId: string = newSpanId()): OtlpSpan {
  const failed = record.status === 'error';
  const answered = !failed || record.output !== '';
  const requestModel = record.request_model ?? record.model;
  const attributes = new Attributes()
    .string('gen_ai.operation.name', 'chat')
    .string('gen_ai.provider.name', record.provider)
    // Deprecated by gen_ai.provider.name; kept for backends on the conventions before v1.37.
    .string('gen_ai.system', record.provider)
    .string('gen_ai.request.model', requestModel)
    .string('gen_ai.response.model', failed ? undefined : record.model)
    .string('gen_ai.output.type', 'text')
    .int('gen_ai.usage.input_tokens', record.input_tokens)
    .int('gen_ai.usage.output_tokens', record.output_tokens)
    .string('gen_ai.system_instructions', JSON.stringify([{ type: 'text', content: record.input.system }]))
    .string(
      'gen_ai.input.messages',
      JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: record.input.user }] }]),
    )
    .string(
      'gen_ai.output.messages',
      answered
        ? JSON.stringify([
            {
              role: 'assistant',
              parts: [{ type: 'text', content: record.output }],
              finish_reason: failed ? 'error' : 'stop',
            },
          ])
        : undefined,
    )
    .string('error.type', failed ? (record.error_type ?? '_OTHER') : undefined)
    .string('user.id', record.user_id)
    .string('langfuse.user.id', record.user_id)
    .string('sightline.summary_id', record.summary_id)
    .string('sightline.case_id', record.case_id)
    .string('sightline.tenant', record.tenant)
    .string('sightline.prompt_version', record.prompt_version)
    .bool('sightline.cached', record.cached)
    .int('sightline.latency_ms', record.latency_ms)
    .string('langfuse.trace.name', TRACE_NAME)
    .string('langfuse.observation.type', 'generation')
    .string(
      'langfuse.observation.input',
      JSON.stringify([
        { role: 'system', content: record.input.system },
        { role: 'user', content: record.input.user },
      ]),
    )
    .string('langfuse.observation.output', answered ? record.output : undefined)
    .langfuseMetadata('observation', {
      summary_id: record.summary_id,
      case_id: record.case_id,
      tenant: record.tenant,
      prompt_version: record.prompt_version,
      cached: String(record.cached),
    })
    .langfuseMetadata('trace', { summary_id: record.summary_id, case_id: record.case_id, tenant: record.tenant });
  const span: OtlpSpan = {
    traceId: traceIdFor(record.summary_id),
    spanId,
    name: `chat ${requestModel}`,
    // CLIENT for a call to another process; INTERNAL for the in-process builtin writer and the cache.
    kind: record.provider === 'builtin' || record.cached ? SPAN_KIND_INTERNAL : SPAN_KIND_CLIENT,
    startTimeUnixNano: unixNanos(record.started_at, 'started_at'),
    endTimeUnixNano: unixNanos(record.finished_at, 'finished_at'),
    attributes: attributes.list,
  };
  if (failed) span.status = { code: STATUS_CODE_ERROR, message: record.error ?? 'error' };
  return span;
}

/**
 * The feedback span: in the generation's trace, with the rating as sightline.feedback.rating and
 * sightline.feedback.score (1 up, 0 down), the comment, and a `gen_ai.evaluation.result` event
 * (the conventions' shape for an evaluation of a GenAI output).
 */
export function feedbackSpan(record: FeedbackRecord, spanId: string = newSpanId()): OtlpSpan {
  const at = unixNanos(record.at, 'at');
  const score = record.rating === 'up' ? 1 : 0;
  const attributes = new Attributes()
    .string('sightline.summary_id', record.summary_id)
    .string('sightline.case_id', record.case_id)
    .string('sightline.tenant', record.tenant)
    .string('user.id', record.user_id)
    .string('langfuse.user.id', record.user_id)
    .string('sightline.feedback.rating', record.rating)
    .int('sightline.feedback.score', score)
    .string('sightline.feedback.comment', record.comment)
    .string('langfuse.observation.type', 'event')
    .string('langfuse.observation.output', JSON.stringify({ rating: record.rating, score, comment: record.comment }))
    .langfuseMetadata('observation', { summary_id: record.summary_id, case_id: record.case_id, tenant: record.tenant });
  const evaluation = new Attributes()
    .string('gen_ai.evaluation.name', 'user_feedback')
    .double('gen_ai.evaluation.score.value', score)
    .string('gen_ai.evaluation.score.label', record.rating)
    .string('gen_ai.evaluation.explanation', record.comment);
  return {
    traceId: traceIdFor(record.summary_id),
    spanId,
    name: 'summary.feedback',
    kind: SPAN_KIND_INTERNAL,
    startTimeUnixNano: at,
    endTimeUnixNano: at,
    attributes: attributes.list,
    events: [{ timeUnixNano: at, name: 'gen_ai.evaluation.result', attributes: evaluation.list }],
  };
}

export function traceRequest(spans: OtlpSpan[]): OtlpTraceRequest {
  return {
    resourceSpans: [
      {
        resource: { attributes: new Attributes().string('service.name', SERVICE_NAME).list },
        scopeSpans: [{ scope: { ...INSTRUMENTATION_SCOPE }, spans }],
      },
    ],
  };
}

/** Spans the collector said it rejected in a 2xx answer (OTLP partial success), 0 when none. */
function rejectedSpans(text: string): { count: number; message: string } {
  if (text.trim() === '') return { count: 0, message: '' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { count: 0, message: '' }; // not OTLP JSON (Langfuse answers with its own JSON): accepted
  }
  if (typeof parsed !== 'object' || parsed === null || !('partialSuccess' in parsed)) return { count: 0, message: '' };
  const partial = parsed.partialSuccess;
  if (typeof partial !== 'object' || partial === null) return { count: 0, message: '' };
  const count = 'rejectedSpans' in partial ? Number(partial.rejectedSpans) : 0;
  const message = 'errorMessage' in partial && typeof partial.errorMessage === 'string' ? partial.errorMessage : '';
  return { count: Number.isFinite(count) ? count : 0, message };
}

export function createOtlpSink(
  settings: Pick<MonitoringSettings, 'otlpEndpoint' | 'otlpHeaders' | 'timeoutMs'>,
): MonitoringSink {
  const url = tracesUrl(settings.otlpEndpoint);
  if (!Number.isFinite(settings.timeoutMs) || settings.timeoutMs <= 0)
    throw new Error(`the OTLP export timeout must be a positive number of milliseconds (got ${settings.timeoutMs})`);
  // Built once so that a malformed header name stops start-up rather than every export.
  const headers = new Headers(settings.otlpHeaders);
  headers.set('content-type', 'application/json');
  /** For messages: never the query string or credentials. */
  const where = `${url.origin}${url.pathname}`;
  const timeoutMs = settings.timeoutMs;
  const inFlight = new Set<Promise<void>>();
  let closed = false;

  async function post(span: OtlpSpan): Promise<void> {
    const body = JSON.stringify(traceRequest([span]));
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { method: 'POST', headers, body, signal });
      if (!response.ok) {
        // Frees the connection; the status is the error worth reporting, not a failed cancel.
        if (response.body) await settled(response.body.cancel());
        throw new OtlpExportError(
          `OTLP export to ${where} answered ${response.status} ${response.statusText}`.trimEnd(),
          response.status,
        );
      }
      text = await response.text();
    } catch (error) {
      if (error instanceof OtlpExportError) throw error;
      if (signal.aborted)
        throw new OtlpExportError(`OTLP export to ${where} timed out after ${timeoutMs} ms`, undefined, {
          cause: error,
        });
      throw new OtlpExportError(
        `OTLP export to ${where} failed: ${error instanceof Error ? error.message : String(error)}`,
        undefined,
        { cause: error },
      );
    }
    const rejected = rejectedSpans(text);
    if (rejected.count > 0) {
      throw new OtlpExportError(
        `OTLP export to ${where} rejected ${rejected.count} span(s)${rejected.message ? `: ${rejected.message}` : ''}`,
        response.status,
      );
    }
  }

  // Async so that a record the span cannot be built from rejects like a failed export; everything
  // before the await runs at once, so close() called right after a record still waits for it.
  async function send(build: () => OtlpSpan): Promise<void> {
    if (closed) throw new Error('the otlp monitoring sink is closed');
    const task = post(build());
    const tracked = settled(task);
    inFlight.add(tracked);
    void tracked.then(() => inFlight.delete(tracked));
    await task;
  }

  return {
    name: 'otlp',
    recordGeneration: (record) => send(() => generationSpan(record)),
    recordFeedback: (record) => send(() => feedbackSpan(record)),
    async close() {
      closed = true;
      await Promise.all(inFlight);
    },
  };
}
