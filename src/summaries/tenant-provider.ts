// The tenant's provider: its own choice, else the deployment's, built once per configuration,
// and how a provider's failure reads as an API problem. Case summaries and the telemetry
// question box both ask a provider through here.
import type { Config } from '../config/config.js';
import type { TenantRow } from '../identity/tenants/tenant-store.js';
import { AppError } from '../core/errors.js';
import { createProvider } from './providers/index.js';
import { ProviderError, type ProviderName, type ProviderSettings, type SummaryProvider } from './providers/provider.js';

/** The settings a provider is built from. */
export type ProviderConfig = Pick<
  Config,
  | 'summaryProvider'
  | 'openaiBaseUrl'
  | 'openaiModel'
  | 'openaiApiKey'
  | 'anthropicBaseUrl'
  | 'anthropicModel'
  | 'anthropicApiKey'
  | 'summaryTimeout'
  | 'summaryRetries'
>;

/** Providers are built once per configuration and reused (their HTTP clients keep connections). */
const providers = new WeakMap<ProviderConfig, Map<ProviderName, SummaryProvider>>();

export function providerFor(config: ProviderConfig, tenant: TenantRow): SummaryProvider {
  const name = (tenant.summary_provider ?? config.summaryProvider) as ProviderName;
  let built = providers.get(config);
  if (!built) providers.set(config, (built = new Map<ProviderName, SummaryProvider>()));
  const known = built.get(name);
  if (known) return known;
  const settings: ProviderSettings =
    name === 'openai'
      ? {
          provider: name,
          baseUrl: config.openaiBaseUrl,
          model: config.openaiModel,
          apiKey: config.openaiApiKey,
          timeoutMs: config.summaryTimeout,
          maxRetries: config.summaryRetries,
        }
      : name === 'anthropic'
        ? {
            provider: name,
            baseUrl: config.anthropicBaseUrl,
            model: config.anthropicModel,
            apiKey: config.anthropicApiKey,
            timeoutMs: config.summaryTimeout,
            maxRetries: config.summaryRetries,
          }
        : { provider: 'builtin', baseUrl: '', model: '', apiKey: '', timeoutMs: config.summaryTimeout, maxRetries: 0 };
  if (name !== 'builtin' && settings.model === '') {
    throw new AppError(
      'summary_provider_not_configured',
      `this tenant's summary provider is ${name}, but no model is configured for it (--${name}-model)`,
    );
  }
  const provider = createProvider(settings);
  built.set(name, provider);
  return provider;
}

export function providerFailure(error: unknown, provider: SummaryProvider): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof ProviderError) {
    return error.kind === 'timeout'
      ? new AppError('provider_timeout', `the ${provider.name} provider did not answer in time (${error.message})`, {
          cause: error,
        })
      : new AppError('provider_error', `the ${provider.name} provider failed: ${error.message}`, {
          extensions: error.status ? { provider_status: error.status } : {},
          cause: error,
        });
  }
  return new AppError('provider_error', `the ${provider.name} provider failed unexpectedly`, { cause: error });
}
