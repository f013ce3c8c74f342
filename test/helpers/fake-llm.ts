// A local stand-in for an LLM provider: an HTTP server on a free loopback port that speaks the
// OpenAI Chat Completions or the Anthropic Messages wire format, records every request, and answers
// as the test scripts it (status, body, headers, delay), so no test ever reaches the network.
//
// Usage:
//   const llm = await startFakeLlm({ kind: 'openai' });                 // always answers a default success
//   const llm = await startFakeLlm({ kind: 'anthropic', respond: (req) =>
//     req.index === 0 ? { status: 500, body: anthropicError('api_error', 'boom') } : {} });  // {} = default success
//   settings.baseUrl = llm.baseUrl;   // what ProviderSettings.baseUrl should be for this kind
//   llm.requests[0].body?.['model']; llm.requests[0].headers['x-api-key'];
//   await llm.close();
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeLlmKind = 'openai' | 'anthropic';

/** One request as the fake received it, recorded before it is answered (so timed-out attempts count too). */
export interface FakeLlmRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  /** Lower-cased names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The JSON body when it is an object; null when absent, not JSON, or not an object. */
  body: Record<string, unknown> | null;
  /** 0-based position among all requests this fake received. */
  index: number;
}

/** How to answer one request; every field is optional. */
export interface FakeLlmReply {
  /** Default 200. */
  status?: number;
  /**
   * Default: for 200 on the kind's endpoint, a success in the kind's format (see `defaultSuccess`);
   * otherwise an error body in the kind's format. A string is sent verbatim (text/plain unless
   * `headers` says otherwise); anything else is sent as JSON.
   */
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering; longer than the client's timeout simulates a hung provider. */
  delayMs?: number;
}

export interface FakeLlmOptions {
  kind: FakeLlmKind;
  /**
   * Decides each answer. Called only for the kind's endpoint (`POST /v1/chat/completions` or
   * `POST /v1/messages`); anything else gets a 404 in the kind's error format. Default: `{}`.
   */
  respond?: (request: FakeLlmRequest) => FakeLlmReply | Promise<FakeLlmReply>;
}

export interface FakeLlm {
  kind: FakeLlmKind;
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /**
   * The value for ProviderSettings.baseUrl: `<origin>/v1` for openai (the SDK appends
   * `/chat/completions`), `<origin>` for anthropic (the SDK appends `/v1/messages`).
   */
  baseUrl: string;
  /** Every request received so far, in arrival order (live array). */
  requests: FakeLlmRequest[];
  /** Stops the server, drops open connections and pending delayed answers. */
  close(): Promise<void>;
}

export const FAKE_LLM_TEXT = '## Overview\nA fake summary [obs_fake1].';

const ENDPOINTS: Record<FakeLlmKind, string> = {
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
};

export async function startFakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
  const { kind } = options;
  const respond: NonNullable<FakeLlmOptions['respond']> = options.respond ?? (() => ({}));
  const requests: FakeLlmRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: FakeLlmRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: parseObject(Buffer.concat(chunks).toString('utf8')),
        index: requests.length,
      };
      requests.push(recorded);
      const pathname = recorded.path.split('?')[0];
      if (recorded.method !== 'POST' || pathname !== ENDPOINTS[kind]) {
        send(res, 404, errorBody(kind, 404, `no route ${recorded.method} ${pathname}`), {});
        return;
      }
      Promise.resolve()
        .then(() => respond(recorded))
        .then((reply) => {
          const status = reply.status ?? 200;
          const body =
            reply.body !== undefined
              ? reply.body
              : status === 200
                ? defaultSuccess(kind, recorded.body)
                : errorBody(kind, status, `fake error ${status}`);
          const answer = (): void => send(res, status, body, reply.headers ?? {});
          if (!reply.delayMs) {
            answer();
            return;
          }
          const timer = setTimeout(() => {
            timers.delete(timer);
            answer();
          }, reply.delayMs);
          timers.add(timer);
        })
        .catch((error: unknown) => send(res, 500, errorBody(kind, 500, `fake respond() threw: ${String(error)}`), {}));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    kind,
    origin,
    baseUrl: kind === 'openai' ? `${origin}/v1` : origin,
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A Chat Completions success, as OpenAI-compatible servers answer it. */
export function openAiCompletion(
  fields: { text?: string | null; model?: string; promptTokens?: number; completionTokens?: number } = {},
): Record<string, unknown> {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: fields.model ?? 'fake-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: fields.text === undefined ? FAKE_LLM_TEXT : fields.text, refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: fields.promptTokens ?? 120,
      completion_tokens: fields.completionTokens ?? 30,
      total_tokens: (fields.promptTokens ?? 120) + (fields.completionTokens ?? 30),
    },
  };
}

/** A Messages success, as Anthropic answers it; `texts` become one text block each. */
export function anthropicMessage(
  fields: { texts?: string[]; model?: string; inputTokens?: number; outputTokens?: number } = {},
): Record<string, unknown> {
  return {
    id: 'msg_fake',
    type: 'message',
    role: 'assistant',
    model: fields.model ?? 'fake-model',
    content: (fields.texts ?? [FAKE_LLM_TEXT]).map((text) => ({ type: 'text', text })),
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: fields.inputTokens ?? 120, output_tokens: fields.outputTokens ?? 30 },
  };
}

/** An OpenAI-format error body. */
export function openAiError(message: string, type = 'invalid_request_error'): Record<string, unknown> {
  return { error: { message, type, param: null, code: null } };
}

/** An Anthropic-format error body. */
export function anthropicError(type: string, message: string): Record<string, unknown> {
  return { type: 'error', error: { type, message } };
}

/** The success the fake sends when a reply has no body: echoes the requested model. */
export function defaultSuccess(
  kind: FakeLlmKind,
  requestBody: Record<string, unknown> | null,
): Record<string, unknown> {
  const model = typeof requestBody?.model === 'string' ? requestBody.model : undefined;
  return kind === 'openai' ? openAiCompletion(model ? { model } : {}) : anthropicMessage(model ? { model } : {});
}

function errorBody(kind: FakeLlmKind, status: number, message: string): Record<string, unknown> {
  if (kind === 'openai') return openAiError(message, status === 401 ? 'authentication_error' : 'server_error');
  return anthropicError(
    status === 401 ? 'authentication_error' : status === 404 ? 'not_found_error' : 'api_error',
    message,
  );
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  // The client may have given up (timeout, abort) while the answer was delayed.
  if (res.destroyed || res.writableEnded) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const hasType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  res.writeHead(status, {
    ...(hasType ? {} : { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' }),
    ...headers,
  });
  res.end(text);
}

function parseObject(text: string): Record<string, unknown> | null {
  if (text === '') return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
