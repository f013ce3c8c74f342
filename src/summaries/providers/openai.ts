// The provider for any OpenAI-compatible Chat Completions endpoint (OpenAI, Azure OpenAI's v1 API,
// Ollama, vLLM, llama.cpp server) through the official `openai` SDK, which owns the per-attempt
// timeout and the retries (408/409/429/5xx and connection failures, exponential backoff).
import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ProviderError, type ProviderRequest, type ProviderResult, type ProviderSettings, type SummaryProvider } from './provider.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Local servers (Ollama, llama.cpp) want no key, but the SDK refuses to start without one. */
const NO_KEY_PLACEHOLDER = 'none';

/** Low: a summary should restate the evidence, not vary from run to run. */
const TEMPERATURE = 0.2;

/** Enough of the provider's own explanation ("model not found", "quota exceeded") to act on. */
const MAX_DETAIL_CHARS = 300;

export class OpenAiProvider implements SummaryProvider {
  readonly name = 'openai' as const;
  readonly model: string;
  readonly isLlm = true;
  readonly #client: OpenAI;
  readonly #apiKey: string;

  constructor(settings: ProviderSettings) {
    this.model = settings.model;
    this.#apiKey = settings.apiKey;
    this.#client = new OpenAI({
      baseURL: settings.baseUrl || OPENAI_DEFAULT_BASE_URL,
      apiKey: settings.apiKey || NO_KEY_PLACEHOLDER,
      // Explicit nulls so the SDK does not pick these up from OPENAI_* environment variables:
      // the settings are the only configuration, and nothing else should reach the provider.
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      timeout: settings.timeoutMs,
      maxRetries: settings.maxRetries,
    });
  }

  async generate(request: ProviderRequest): Promise<ProviderResult> {
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.#client.chat.completions.create(
        {
          model: this.model,
          messages: [
            { role: 'system', content: request.system },
            { role: 'user', content: request.user },
          ],
          // `max_tokens` rather than `max_completion_tokens`: it is the one every compatible server
          // (Ollama, vLLM, llama.cpp, Azure) understands.
          max_tokens: request.maxOutputTokens,
          temperature: TEMPERATURE,
        },
        request.signal ? { signal: request.signal } : undefined,
      );
    } catch (error) {
      throw toProviderError(error, this.#apiKey, request.signal);
    }

    const choice = completion.choices[0];
    const text = choice?.message.content ?? '';
    if (text.trim() === '') {
      const reason = choice ? `finish_reason ${choice.finish_reason}` : 'no choices';
      throw new ProviderError('error', `The OpenAI-compatible provider returned no text (${reason}).`);
    }
    return {
      text,
      // Some compatible servers omit usage; 0 says "not reported" without failing the summary.
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
      model: completion.model || this.model,
    };
  }
}

function toProviderError(error: unknown, apiKey: string, signal: AbortSignal | undefined): ProviderError {
  // Subclasses of APIError without a status, so they are told apart before the status check.
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderError('timeout', 'The OpenAI-compatible provider did not answer in time.', undefined, { cause: error });
  }
  if (error instanceof APIUserAbortError) {
    // The caller's own deadline (AbortSignal.timeout) is a timeout; any other abort is a cancellation.
    const timedOut = signal?.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
    return new ProviderError(timedOut ? 'timeout' : 'error', 'The request to the OpenAI-compatible provider was cancelled.', undefined, { cause: error });
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    // No `cause`: the SDK error carries the provider's body, which may echo the key.
    const detail = redact(error.message.replace(/^\d{3}\s*/, ''), apiKey);
    return new ProviderError('error', `The OpenAI-compatible provider answered HTTP ${error.status}${detail ? `: ${detail}` : ''}`, error.status);
  }
  if (error instanceof APIError) {
    // Connection refused, DNS, TLS: the message is the SDK's and names no credentials.
    return new ProviderError('error', `Could not reach the OpenAI-compatible provider: ${error.message}`, undefined, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError('error', `The OpenAI-compatible provider failed: ${redact(message, apiKey)}`);
}

/** The key must never reach an error message, even when a provider or proxy echoes it back. */
function redact(text: string, secret: string): string {
  const clean = secret ? text.split(secret).join('[redacted]') : text;
  return clean.length > MAX_DETAIL_CHARS ? `${clean.slice(0, MAX_DETAIL_CHARS)}…` : clean;
}
