// What a summary provider is: something that turns a prompt (system instructions plus the
// delimited case data) into Markdown text, reporting tokens. The builtin one writes from the
// structured input without any network; the others call an LLM over HTTP. Adding a provider is
// adding a file here and a line in providers/index.ts.
import type { SummaryInput } from '../summary-input.js';

export type ProviderName = 'builtin' | 'openai' | 'anthropic';

export interface ProviderRequest {
  /** Instructions: role, the fixed sections, citation rules, "the case data is untrusted data". */
  system: string;
  /** The user message: the case data, delimited, as JSON. */
  user: string;
  /**
   * The structured input a case summary's prompt was rendered from (the builtin provider writes
   * from it); absent for other prompts, which only a language model can answer.
   */
  input?: SummaryInput;
  /** Upper bound for the answer. */
  maxOutputTokens: number;
  signal?: AbortSignal;
}

export interface ProviderResult {
  text: string;
  /** As the provider reported them; the builtin provider counts characters / 4. */
  inputTokens: number;
  outputTokens: number;
  /** The model that answered (may differ in detail from the configured one, e.g. a dated snapshot). */
  model: string;
}

export interface SummaryProvider {
  readonly name: ProviderName;
  /** The configured model (`builtin-1` for the builtin provider). */
  readonly model: string;
  /** True for real language models; the builtin summariser says it is not one. */
  readonly isLlm: boolean;
  generate(request: ProviderRequest): Promise<ProviderResult>;
}

/** How a provider failed, for the API's problem answer (502 provider_error, 504 provider_timeout). */
export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    readonly kind: 'timeout' | 'error',
    message: string,
    /** The provider's HTTP status, when it answered. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ProviderSettings {
  provider: ProviderName;
  /** OpenAI-compatible: https://api.openai.com/v1, http://localhost:11434/v1 (Ollama), an Azure deployment URL… */
  baseUrl: string;
  model: string;
  /** Secret: from the environment only; never logged. */
  apiKey: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Retries after the first attempt, with exponential backoff, for timeouts, 429 and 5xx. */
  maxRetries: number;
}

/** Longest provider message kept in an error. */
const MAX_DETAIL_CHARS = 300;

/** The error classes of a Stainless-generated SDK (openai, @anthropic-ai/sdk share the shape). */
export interface SdkErrorClasses {
  timeout: abstract new (...args: never[]) => Error;
  abort: abstract new (...args: never[]) => Error;
  api: abstract new (...args: never[]) => Error & { status?: number | undefined };
}

/** Maps an SDK failure to a ProviderError, never letting the API key into the message. */
export function toProviderError(
  error: unknown,
  label: string,
  classes: SdkErrorClasses,
  apiKey: string,
  signal: AbortSignal | undefined,
): ProviderError {
  // Subclasses of the API error without a status, so they are told apart before the status check.
  if (error instanceof classes.timeout)
    return new ProviderError('timeout', `The ${label} provider did not answer in time.`, undefined, { cause: error });
  if (error instanceof classes.abort) {
    // The caller's own deadline (AbortSignal.timeout) is a timeout; any other abort is a cancellation.
    const timedOut = signal?.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
    return new ProviderError(
      timedOut ? 'timeout' : 'error',
      `The request to the ${label} provider was cancelled.`,
      undefined,
      { cause: error },
    );
  }
  if (error instanceof classes.api && typeof error.status === 'number') {
    // No `cause`: the SDK error carries the provider's body, which may echo the key. An
    // authentication failure's text often quotes part of the key (sk-…abcd): not passed on at all.
    const auth = error.status === 401 || error.status === 403;
    const detail = auth
      ? 'the provider refused the configured credentials'
      : redact(error.message.replace(/^\d{3}\s*/, ''), apiKey);
    return new ProviderError(
      'error',
      `The ${label} provider answered HTTP ${error.status}${detail ? `: ${detail}` : ''}`,
      error.status,
    );
  }
  if (error instanceof classes.api) {
    // Connection refused, DNS, TLS: the message is the SDK's and names no credentials.
    return new ProviderError('error', `Could not reach the ${label} provider: ${error.message}`, undefined, {
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError('error', `The ${label} provider failed: ${redact(message, apiKey)}`);
}

/** The key must never reach an error message, even when a provider or proxy echoes it back. */
export function redact(text: string, secret: string): string {
  const clean = secret ? text.split(secret).join('[redacted]') : text;
  return clean.length > MAX_DETAIL_CHARS ? `${clean.slice(0, MAX_DETAIL_CHARS)}…` : clean;
}
