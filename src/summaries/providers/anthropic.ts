// The provider for Anthropic's Messages API through the official `@anthropic-ai/sdk`, which owns
// the per-attempt timeout and the retries (408/409/429/5xx and connection failures, exponential
// backoff). A non-empty base URL points it at a proxy or, in tests, at a local fake.
import type Anthropic from '@anthropic-ai/sdk';
import type * as AnthropicSdk from '@anthropic-ai/sdk';
import {
  ProviderError,
  toProviderError,
  type ProviderRequest,
  type ProviderResult,
  type ProviderSettings,
  type SummaryProvider,
} from './provider.js';

// The SDK loads with the first summary, not with the process: some 250 modules that a server
// without this provider, and every CLI command, would otherwise load for nothing.
let sdk: Promise<typeof AnthropicSdk> | undefined;
const loadSdk = () => (sdk ??= import('@anthropic-ai/sdk'));

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/** A proxy that injects the key itself needs none here, but the SDK wants one to start. */
const NO_KEY_PLACEHOLDER = 'none';

/** Enough of the provider's own explanation ("model not found", "overloaded") to act on. */

export class AnthropicProvider implements SummaryProvider {
  readonly name = 'anthropic' as const;
  readonly model: string;
  readonly isLlm = true;
  readonly #settings: ProviderSettings;
  #client: Anthropic | undefined;

  constructor(settings: ProviderSettings) {
    this.model = settings.model;
    this.#settings = settings;
  }

  #clientOf(AnthropicClient: typeof Anthropic): Anthropic {
    const settings = this.#settings;
    return (this.#client ??= new AnthropicClient({
      // Always explicit, so ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY from the environment and the
      // SDK's credential profiles never override the settings.
      baseURL: settings.baseUrl || ANTHROPIC_DEFAULT_BASE_URL,
      apiKey: settings.apiKey || NO_KEY_PLACEHOLDER,
      timeout: settings.timeoutMs,
      maxRetries: settings.maxRetries,
    }));
  }

  async generate(request: ProviderRequest): Promise<ProviderResult> {
    const { default: AnthropicClient, APIConnectionTimeoutError, APIError, APIUserAbortError } = await loadSdk();
    const sdkErrors = { timeout: APIConnectionTimeoutError, abort: APIUserAbortError, api: APIError };
    let message: Anthropic.Messages.Message;
    try {
      message = await this.#clientOf(AnthropicClient).messages.create(
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
      throw toProviderError(error, 'Anthropic', sdkErrors, this.#settings.apiKey, request.signal);
    }

    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
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
