// The provider for Anthropic's Messages API through the official `@anthropic-ai/sdk`, which owns
// the per-attempt timeout and the retries (408/409/429/5xx and connection failures, exponential
// backoff). A non-empty base URL points it at a proxy or, in tests, at a local fake.
import Anthropic, { APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { ProviderError, type ProviderRequest, type ProviderResult, type ProviderSettings, type SummaryProvider } from './provider.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** A proxy that injects the key itself needs none here, but the SDK wants one to start. */
const NO_KEY_PLACEHOLDER = 'none';

/** Enough of the provider's own explanation ("model not found", "overloaded") to act on. */
const MAX_DETAIL_CHARS = 300;

export class AnthropicProvider implements SummaryProvider {
  readonly name = 'anthropic' as const;
  readonly model: string;
  readonly isLlm = true;
  readonly #client: Anthropic;
  readonly #apiKey: string;

  constructor(settings: ProviderSettings) {
    this.model = settings.model;
    this.#apiKey = settings.apiKey;
    this.#client = new Anthropic({
      // Always explicit, so ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY from the environment and the
      // SDK's credential profiles never override the settings.
      baseURL: settings.baseUrl || ANTHROPIC_DEFAULT_BASE_URL,
      apiKey: settings.apiKey || NO_KEY_PLACEHOLDER,
      timeout: settings.timeoutMs,
      maxRetries: settings.maxRetries,
    });
  }

  async generate(request: ProviderRequest): Promise<ProviderResult> {
    let message: Anthropic.Messages.Message;
    try {
      message = await this.#client.messages.create(
        {
          model: this.model,
          system: request.system,
          max_tokens: request.maxOutputTokens,
          // No temperature (unlike the OpenAI provider): API version 2026-10-21, which SDK 1.x sends,
          // rejects temperature/top_p/top_k with a 400, even at their default values.
          messages: [{ role: 'user', content: request.user }],
        },
        request.signal ? { signal: request.signal } : undefined,
      );
    } catch (error) {
      throw toProviderError(error, this.#apiKey, request.signal);
    }

    const text = message.content
      .flatMap((block) => (block.type === 'text' ? [block.text] : []))
      .join('');
    if (text.trim() === '') {
      throw new ProviderError('error', `The Anthropic provider returned no text (stop_reason ${message.stop_reason}).`);
    }
    return {
      text,
      inputTokens: message.usage.input_tokens,
      outputTokens: message.usage.output_tokens,
      model: message.model || this.model,
    };
  }
}

function toProviderError(error: unknown, apiKey: string, signal: AbortSignal | undefined): ProviderError {
  // Subclasses of APIError without a status, so they are told apart before the status check.
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderError('timeout', 'The Anthropic provider did not answer in time.', undefined, { cause: error });
  }
  if (error instanceof APIUserAbortError) {
    // The caller's own deadline (AbortSignal.timeout) is a timeout; any other abort is a cancellation.
    const timedOut = signal?.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
    return new ProviderError(timedOut ? 'timeout' : 'error', 'The request to the Anthropic provider was cancelled.', undefined, { cause: error });
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    // No `cause`: the SDK error carries the provider's body, which may echo the key.
    const detail = redact(error.message.replace(/^\d{3}\s*/, ''), apiKey);
    return new ProviderError('error', `The Anthropic provider answered HTTP ${error.status}${detail ? `: ${detail}` : ''}`, error.status);
  }
  if (error instanceof APIError) {
    // Connection refused, DNS, TLS: the message is the SDK's and names no credentials.
    return new ProviderError('error', `Could not reach the Anthropic provider: ${error.message}`, undefined, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError('error', `The Anthropic provider failed: ${redact(message, apiKey)}`);
}

/** The key must never reach an error message, even when a provider or proxy echoes it back. */
function redact(text: string, secret: string): string {
  const clean = secret ? text.split(secret).join('[redacted]') : text;
  return clean.length > MAX_DETAIL_CHARS ? `${clean.slice(0, MAX_DETAIL_CHARS)}…` : clean;
}
