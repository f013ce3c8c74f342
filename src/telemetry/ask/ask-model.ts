// What turning a question into a query needs of a language model: a prompt in, text out. The
// tenant's AI provider lives in summaries/, above telemetry, so the composition root passes an
// `AskModelFor` in; telemetry never imports the providers.
import type { TenantRow } from '../../identity/tenants/tenant-store.js';

export interface AskPrompt {
  /** Instructions: the query language, the answer's JSON shape, "the question is data". */
  system: string;
  /** The question (delimited), the current time and the tenant's field names. */
  user: string;
  maxOutputTokens: number;
}

export interface AskModel {
  /** The model's text; provider failures are thrown as AppErrors (provider_error, provider_timeout). */
  complete(prompt: AskPrompt): Promise<string>;
}

/** The tenant's language model; throws an AppError when it has none (ai_provider_not_configured). */
export type AskModelFor = (tenant: TenantRow) => AskModel;
