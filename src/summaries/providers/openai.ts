// The provider for any OpenAI-compatible Chat Completions endpoint (OpenAI, Azure OpenAI's v1 API,
// Ollama, vLLM, llama.cpp server) through the official `openai` SDK, which owns the per-attempt
// timeout and the retries (408/409/429/5xx and connection failures, exponential backoff).
import type OpenAI from 'openai';
import type * as OpenAiSdk from 'openai';
import {
  ProviderError,
  toProviderError,
  type ProviderRequest,
  type ProviderResult,
  type ProviderSettings,
  type SummaryProvider,
} from './provider.js';

// The SDK loads with the first summary, not with the process: some 150 modules that a server
// without this provider, and every CLI command, would otherwise load for nothing.
let sdk: Promise<typeof OpenAiSdk> | undefined;
const loadSdk = () => (sdk ??= import('openai'));

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Local servers (Ollama, llama.cpp) want no key, but the SDK refuses to start without one. */
const NO_KEY_PLACEHOLDER = 'none';

/** Low: a summary should restate the evidence, not vary from run to run. */
const TEMPERATURE = 0.2;

/** Enough of the provider's own explanation ("model not found", "quota exceeded") to act on. */

export class OpenAiProvider implements SummaryProvider {
  readonly name = 'openai' as const;
  readonly model: string;
  readonly isLlm = true;
  readonly #settings: ProviderSettings;
  #client: OpenAI | undefined;

  constructor(settings: ProviderSettings) {
    this.model = settings.model;
    this.#settings = settings;
  }

  #clientOf(OpenAiClient: typeof OpenAI): OpenAI {
    const settings = this.#settings;
    return (this.#client ??= new OpenAiClient({
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
    }));
  }

  async generate(request: ProviderRequest): Promise<ProviderResult> {
    const { default: OpenAiClient, APIConnectionTimeoutError, APIError, APIUserAbortError } = await loadSdk();
    const sdkErrors = { timeout: APIConnectionTimeoutError, abort: APIUserAbortError, api: APIError };
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.#clientOf(OpenAiClient).chat.completions.create(
        {
          model: this.model,
          messages: [
            { role: 'system', content: request.system },
            { role: 'user', content: request.user },
          ],
          // `max_tokens` rather than `max_completion_tokens`: it is the one every compatible server
          // (Ollama, vLLM, llama.cpp, Azure) understands.
          // eslint-disable-next-line @typescript-eslint/no-deprecated -- the compatible servers' field, as said above
          max_tokens: request.maxOutputTokens,
          temperature: TEMPERATURE,
        },
        request.signal ? { signal: request.signal } : undefined,
      );
    } catch (error) {
      throw toProviderError(error, 'OpenAI-compatible', sdkErrors, this.#settings.apiKey, request.signal);
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
