// The one place that turns provider settings into a SummaryProvider, and that describes a
// provider for the API (which provider, which model, whether it is a language model at all).
// Adding a provider is adding its file and a case here.
import { AnthropicProvider, ANTHROPIC_DEFAULT_BASE_URL } from './anthropic.js';
import { BuiltinProvider } from './builtin.js';
import { OpenAiProvider, OPENAI_DEFAULT_BASE_URL } from './openai.js';
import type { ProviderName, ProviderSettings, SummaryProvider } from './provider.js';

/** Where each HTTP provider points when no base URL is configured. */
export const DEFAULT_BASE_URLS = {
  openai: OPENAI_DEFAULT_BASE_URL,
  anthropic: ANTHROPIC_DEFAULT_BASE_URL,
} as const satisfies Record<Exclude<ProviderName, 'builtin'>, string>;

export function createProvider(settings: ProviderSettings): SummaryProvider {
  switch (settings.provider) {
    case 'builtin':
      return new BuiltinProvider();
    case 'openai':
      return new OpenAiProvider(settings);
    case 'anthropic':
      return new AnthropicProvider(settings);
    default: {
      // Settings are parsed from configuration; a name outside the union is a bug upstream.
      const unknown: never = settings.provider;
      throw new Error(`unknown summary provider: ${String(unknown)}`);
    }
  }
}

export interface ProviderDescription {
  provider: ProviderName;
  model: string;
  is_llm: boolean;
}

export function describeProvider(provider: SummaryProvider): ProviderDescription {
  return { provider: provider.name, model: provider.model, is_llm: provider.isLlm };
}
