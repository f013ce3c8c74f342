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
  /** The structured input the prompt was rendered from (the builtin provider writes from it). */
  input: SummaryInput;
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
