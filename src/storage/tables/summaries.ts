// AI case summaries: the summaries generated for cases, the cached model calls behind them, and
// people's feedback on them.

export interface CaseSummariesTable {
  id: string;
  case_id: string;
  tenant_id: number;
  /** Markdown, checked (see summaries/summary-check.ts). */
  text: string;
  /** JSON: [{key, heading, markdown}]. */
  sections: string;
  /** JSON array of cited observation ids. */
  citations: string;
  /** JSON array of {code, detail}: what the check dropped or added. */
  flags: string;
  provider: string;
  model: string;
  is_llm: number;
  prompt_version: string;
  fingerprint: string;
  from_cache: number;
  generated_at: number;
  /** Internal user id (or token id) of who asked. */
  requested_by: string;
  requested_by_label: string;
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
  /** JSON: what the case looked like when generated (observations, status, devices), for `stale`. */
  basis: string;
}

export interface SummaryCacheTable {
  fingerprint: string;
  tenant_id: number;
  provider: string;
  model: string;
  prompt_version: string;
  /** JSON {system, user}. */
  input: string;
  output: string;
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
  created_at: number;
  expires_at: number;
}

export interface SummaryFeedbackTable {
  summary_id: string;
  user_id: string;
  tenant_id: number;
  rating: string;
  comment: string | null;
  created_at: number;
  updated_at: number;
}
