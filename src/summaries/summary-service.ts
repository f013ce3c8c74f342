// Generating a case summary, on request only (never on read): build the allowed input, render
// the prompt, answer from the 24-hour cache when the exact input was seen, else call the
// tenant's provider; check the answer; store it with what the case looked like (it never updates
// itself); copy input and output to the monitoring sink without ever failing the request on it.
// An opted-out tenant gets nothing, and nothing of it leaves. docs/cases.md, AI case summaries.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { AttackCatalogue } from '../detection/attack.js';
import type { Config } from '../config/config.js';
import type { Metrics } from '../observability/metrics.js';
import type { TenantRow } from '../identity/tenants/tenant-store.js';
import type { Principal } from '../identity/principal.js';
import { AppError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { caseDeviceIds, caseObservationIds } from '../cases/case-store.js';
import { requireCase } from '../cases/case-service.js';
import { findDevicesByIds } from '../devices/device-store.js';
import { buildSummaryInput } from './summary-input-builder.js';
import { fingerprint, PROMPT_VERSION, renderPrompt } from './summary-prompt.js';
import { checkSummary, evidenceIndex } from './summary-check.js';
import {
  findCachedOutput,
  findFeedback,
  findSummary,
  purgeExpired,
  saveFeedback,
  saveSummary,
  storeCachedOutput,
} from './summary-store.js';
import { basisOf, presentSummary, type SummaryView } from './summary-view.js';
import { providerFailure, providerFor, type ProviderConfig } from './tenant-provider.js';
import type { MonitoringSink } from './monitoring/sink.js';

/** Upper bound for a summary's length (about 1,500 words). */
const MAX_OUTPUT_TOKENS = 2_000;

export interface SummaryDeps {
  db: Kysely<Tables>;
  catalogue: AttackCatalogue;
  config: ProviderConfig & Pick<Config, 'summaryCacheTtl'>;
  /** Isolated: its calls always resolve. */
  sink: MonitoringSink;
  metrics: Metrics;
}

export function requireSummariesEnabled(tenant: TenantRow): void {
  if (tenant.ai_summaries_enabled !== 1) {
    throw new AppError(
      'ai_summaries_disabled',
      `AI summaries are turned off for this organisation; its account manager or support can turn them back on`,
    );
  }
}

async function currentBasis(db: Kysely<Tables>, tenantId: number, row: Parameters<typeof basisOf>[0] & { id: string }) {
  const deviceIds = (await caseDeviceIds(db, tenantId, [row.id])).get(row.id) ?? [];
  return basisOf(row, await findDevicesByIds(db, tenantId, deviceIds));
}

export async function generateSummary(
  deps: SummaryDeps,
  tenant: TenantRow,
  caseRef: string,
  principal: Principal,
  now = Date.now(),
): Promise<SummaryView> {
  requireSummariesEnabled(tenant);
  const { db } = deps;
  const row = await requireCase(db, tenant.id, caseRef);
  const provider = providerFor(deps.config, tenant);
  const input = await buildSummaryInput(db, deps.catalogue, tenant, row);
  const prompt = renderPrompt(input);
  const key = fingerprint(provider.name, provider.model, prompt);
  const summaryId = newId('sum');
  const userId = principal.userId ?? principal.id;
  const started = Date.now();
  // What every monitoring copy of this generation shares (the customer by code name only).
  const copy = {
    summary_id: summaryId,
    case_id: row.id,
    tenant: tenant.code_name,
    user_id: userId,
    provider: provider.name,
    prompt_version: PROMPT_VERSION,
    input: prompt,
    started_at: new Date(started).toISOString(),
  };

  let output: { text: string; inputTokens: number; outputTokens: number; model: string };
  const cached = deps.config.summaryCacheTtl > 0 ? await findCachedOutput(db, key, now) : undefined;
  if (cached) {
    output = {
      text: cached.output,
      inputTokens: cached.input_tokens,
      outputTokens: cached.output_tokens,
      model: cached.model,
    };
  } else {
    try {
      output = await provider.generate({ ...prompt, input, maxOutputTokens: MAX_OUTPUT_TOKENS });
    } catch (error) {
      const problem = providerFailure(error, provider);
      deps.metrics.summaryProviderFailures.inc({
        provider: provider.name,
        kind: problem.code === 'provider_timeout' ? 'timeout' : 'error',
      });
      void deps.sink.recordGeneration({
        ...copy,
        model: provider.model,
        output: '',
        input_tokens: 0,
        output_tokens: 0,
        latency_ms: Date.now() - started,
        finished_at: new Date().toISOString(),
        cached: false,
        status: 'error',
        error: problem.detail,
        error_type: problem.code,
      });
      throw problem;
    }
    if (deps.config.summaryCacheTtl > 0) {
      await storeCachedOutput(db, {
        fingerprint: key,
        tenant_id: tenant.id,
        provider: provider.name,
        model: output.model,
        prompt_version: PROMPT_VERSION,
        input: JSON.stringify(prompt),
        output: output.text,
        input_tokens: output.inputTokens,
        output_tokens: output.outputTokens,
        latency_ms: Date.now() - started,
        created_at: now,
        expires_at: now + deps.config.summaryCacheTtl,
      });
    }
  }
  const latency = Date.now() - started;
  // The case's observations beyond the input's bound may be cited too; evidence only as shown.
  const shown = evidenceIndex(input);
  const checked = checkSummary(output.text, {
    observations: new Set([...shown.observations, ...(await caseObservationIds(db, tenant.id, row.id))]),
    evidence: shown.evidence,
  });
  const basis = await currentBasis(db, tenant.id, row);
  const stored = {
    id: summaryId,
    case_id: row.id,
    tenant_id: tenant.id,
    text: checked.text,
    sections: JSON.stringify(checked.sections),
    citations: JSON.stringify(checked.citations),
    flags: JSON.stringify(checked.flags),
    provider: provider.name,
    model: output.model,
    is_llm: provider.isLlm ? 1 : 0,
    prompt_version: PROMPT_VERSION,
    fingerprint: key,
    from_cache: cached ? 1 : 0,
    generated_at: now,
    requested_by: userId,
    requested_by_label: principal.label,
    input_tokens: output.inputTokens,
    output_tokens: output.outputTokens,
    latency_ms: latency,
    basis: JSON.stringify(basis),
  };
  await saveSummary(db, stored);
  await purgeExpired(db, now);
  deps.metrics.summariesGenerated.inc({ provider: provider.name, cached: cached ? 'true' : 'false' });
  // The monitoring copy goes out after the answer is stored; the isolated sink never throws.
  void deps.sink.recordGeneration({
    ...copy,
    model: output.model,
    request_model: provider.model,
    output: output.text,
    input_tokens: output.inputTokens,
    output_tokens: output.outputTokens,
    latency_ms: latency,
    finished_at: new Date(started + latency).toISOString(),
    cached: Boolean(cached),
    status: 'ok',
  });
  return presentSummary(stored, basis);
}

/** The case and its current summary: summaries on for the tenant, the case its own, a summary generated. */
async function requireCurrentSummary(db: Kysely<Tables>, tenant: TenantRow, caseRef: string) {
  requireSummariesEnabled(tenant);
  const row = await requireCase(db, tenant.id, caseRef);
  const summary = await findSummary(db, tenant.id, row.id);
  if (!summary)
    throw new AppError(
      'summary_not_generated',
      `case ${row.number} has no summary yet; generate one with POST /v1/cases/${row.id}/summary`,
    );
  return { row, summary };
}

export async function getSummary(db: Kysely<Tables>, tenant: TenantRow, caseRef: string): Promise<SummaryView> {
  const { row, summary } = await requireCurrentSummary(db, tenant, caseRef);
  return presentSummary(summary, await currentBasis(db, tenant.id, row));
}

/** Ratings are per person: a token rates as the user who created it (a CLI-made token, as itself). */
const raterOf = (principal: Principal) => principal.userId ?? principal.id;

/** The caller's current rating of the case's summary; rating null when they have not rated it. */
export async function findOwnRating(db: Kysely<Tables>, tenant: TenantRow, caseRef: string, principal: Principal) {
  const { summary } = await requireCurrentSummary(db, tenant, caseRef);
  const saved = await findFeedback(db, tenant.id, summary.id, raterOf(principal));
  return {
    summary_id: summary.id,
    rating: saved ? (saved.rating as 'up' | 'down') : null,
    comment: saved?.comment ?? null,
    rated_at: saved ? new Date(saved.updated_at).toISOString() : null,
  };
}

export async function rateSummary(
  deps: Pick<SummaryDeps, 'db' | 'sink'>,
  tenant: TenantRow,
  caseRef: string,
  principal: Principal,
  rating: { rating: 'up' | 'down'; comment?: string },
  now = Date.now(),
) {
  requireSummariesEnabled(tenant);
  if (rating.rating === 'up' && rating.comment !== undefined) {
    throw new AppError('invalid_request', 'a comment goes with a thumbs down only', {
      extensions: { field: 'comment' },
    });
  }
  const { row, summary } = await requireCurrentSummary(deps.db, tenant, caseRef);
  const userId = raterOf(principal);
  // A blank comment is no comment.
  const comment = rating.comment?.trim() === '' ? null : (rating.comment?.trim() ?? null);
  await saveFeedback(deps.db, {
    summary_id: summary.id,
    user_id: userId,
    tenant_id: tenant.id,
    rating: rating.rating,
    comment,
    now,
  });
  void deps.sink.recordFeedback({
    summary_id: summary.id,
    case_id: row.id,
    tenant: tenant.code_name,
    user_id: userId,
    rating: rating.rating,
    comment,
    at: new Date(now).toISOString(),
  });
  const saved = await findFeedback(deps.db, tenant.id, summary.id, userId);
  return {
    summary_id: summary.id,
    rating: rating.rating,
    comment,
    rated_at: new Date(saved?.updated_at ?? now).toISOString(),
  };
}
