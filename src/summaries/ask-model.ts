// The tenant's AI provider as the telemetry question box's model: only a language model will do
// (the builtin summariser writes case summaries, nothing else), the tenant's AI opt-out holds
// here too, and provider failures read as the same problems summaries answer.
import type { AskModel, AskModelFor } from '../telemetry/ask/ask-model.js';
import type { TenantRow } from '../identity/tenants/tenant-store.js';
import { AppError } from '../core/errors.js';
import type { SummaryProvider } from './providers/provider.js';
import { providerFailure, providerFor, type ProviderConfig } from './tenant-provider.js';
import { requireSummariesEnabled } from './summary-service.js';

/** A language-model provider as an AskModel. */
export function askModelOf(provider: SummaryProvider): AskModel {
  return {
    complete: async (prompt) => {
      try {
        return (await provider.generate(prompt)).text;
      } catch (error) {
        throw providerFailure(error, provider);
      }
    },
  };
}

function modelConfigured(config: ProviderConfig, tenant: TenantRow): boolean {
  const name = tenant.summary_provider ?? config.summaryProvider;
  if (name === 'openai') return config.openaiModel !== '';
  if (name === 'anthropic') return config.anthropicModel !== '';
  return false;
}

export function askModelFor(config: ProviderConfig): AskModelFor {
  return (tenant) => {
    requireSummariesEnabled(tenant);
    if (!modelConfigured(config, tenant)) {
      throw new AppError(
        'ai_provider_not_configured',
        'questions need a language model: configure an OpenAI-compatible or Anthropic provider and its model (docs/cases.md, AI case summaries)',
      );
    }
    return askModelOf(providerFor(config, tenant));
  };
}
