// Settings of AI case summaries (see docs/cases.md, AI case summaries): the provider with its endpoint,
// model and key, call limits, the cache, and where the monitoring copy goes. The table's largest
// group, so it has its own file; settings.ts spreads it into the table at its place in the help.
import { setting } from './setting-spec.js';
import { duration, headerList, httpUrl, integer, monitoringSink, summaryProvider, text } from './value-parsers.js';

export const summarySettings = {
  summaryProvider: setting({
    flag: 'summary-provider',
    env: 'SIGHTLINE_SUMMARY_PROVIDER',
    default: 'builtin',
    parse: summaryProvider,
    description:
      'AI case summaries: builtin (no network, not an LLM), openai (any OpenAI-compatible endpoint) or anthropic. Operators can override it per tenant.',
  }),
  openaiBaseUrl: setting({
    flag: 'openai-base-url',
    env: 'SIGHTLINE_OPENAI_BASE_URL',
    default: 'https://api.openai.com/v1',
    parse: httpUrl,
    description:
      'OpenAI-compatible endpoint: OpenAI, an Azure OpenAI deployment, Ollama (http://127.0.0.1:11434/v1), vLLM, llama.cpp server.',
  }),
  openaiModel: setting({
    flag: 'openai-model',
    env: 'SIGHTLINE_OPENAI_MODEL',
    default: '',
    parse: text,
    description: 'Model for the openai provider (e.g. gpt-4.1-mini, llama3.1:8b). Required when that provider is used.',
  }),
  openaiApiKey: setting({
    flag: 'openai-api-key',
    env: 'SIGHTLINE_OPENAI_API_KEY',
    default: '',
    parse: text,
    secret: true,
    description: 'API key for the openai provider (environment only). Empty for servers that need none (Ollama).',
  }),
  anthropicBaseUrl: setting({
    flag: 'anthropic-base-url',
    env: 'SIGHTLINE_ANTHROPIC_BASE_URL',
    default: 'https://api.anthropic.com',
    parse: httpUrl,
    description: 'Anthropic API endpoint (or a proxy of it).',
  }),
  anthropicModel: setting({
    flag: 'anthropic-model',
    env: 'SIGHTLINE_ANTHROPIC_MODEL',
    default: '',
    parse: text,
    description: 'Model for the anthropic provider (e.g. claude-sonnet-4-5). Required when that provider is used.',
  }),
  anthropicApiKey: setting({
    flag: 'anthropic-api-key',
    env: 'SIGHTLINE_ANTHROPIC_API_KEY',
    default: '',
    parse: text,
    secret: true,
    description: 'API key for the anthropic provider (environment only).',
  }),
  summaryTimeout: setting({
    flag: 'summary-timeout',
    env: 'SIGHTLINE_SUMMARY_TIMEOUT',
    default: 60_000,
    parse: duration(1_000, 600_000),
    description: 'Time allowed for one provider call, such as 60s; past it the call is retried or answered 504.',
  }),
  summaryRetries: setting({
    flag: 'summary-retries',
    env: 'SIGHTLINE_SUMMARY_RETRIES',
    default: 2,
    parse: integer(0, 5),
    description: 'Retries of a provider call that timed out or failed with 429/5xx, with exponential backoff.',
  }),
  summaryCacheTtl: setting({
    flag: 'summary-cache-ttl',
    env: 'SIGHTLINE_SUMMARY_CACHE_TTL',
    default: 24 * 3_600_000,
    parse: duration(0, 24 * 3_600_000),
    description: 'How long model input and output are cached, such as 12h (at most 24h); 0 disables the cache.',
  }),
  summaryMonitoring: setting({
    flag: 'summary-monitoring',
    env: 'SIGHTLINE_SUMMARY_MONITORING',
    default: 'local',
    parse: monitoringSink,
    description:
      'Where the monitoring copy of model input, output and feedback goes: local (NDJSON files in the data directory), otlp (OpenTelemetry GenAI spans, e.g. to Langfuse) or none.',
  }),
  summaryMonitoringRetention: setting({
    flag: 'summary-monitoring-retention',
    env: 'SIGHTLINE_SUMMARY_MONITORING_RETENTION',
    default: 0,
    parse: integer(0, 100_000),
    description: 'Days the local monitoring files are kept; 0 (the default) keeps them indefinitely.',
  }),
  otlpEndpoint: setting({
    flag: 'otlp-endpoint',
    env: 'SIGHTLINE_OTLP_ENDPOINT',
    default: '',
    parse: text,
    description:
      'OTLP/HTTP endpoint for --summary-monitoring otlp (spans go to <endpoint>/v1/traces), e.g. https://cloud.langfuse.com/api/public/otel.',
  }),
  otlpHeaders: setting({
    flag: 'otlp-headers',
    env: 'SIGHTLINE_OTLP_HEADERS',
    default: {},
    parse: headerList,
    secret: true,
    description:
      'Headers for the OTLP endpoint, comma-separated name=value (environment only: they usually hold credentials), e.g. Authorization=Basic …',
  }),
};
