// AI case summaries: the current summary of each case (with what it was generated from, for the
// stale check), the 24-hour cache of model input and output, feedback (one rating per user and
// summary), and the tenant's opt-out and provider override.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;

  // 1: summaries available (the default); 0: the tenant opted out.
  await sql`ALTER TABLE tenants ADD COLUMN ai_summaries_enabled ${bigint} NOT NULL DEFAULT 1`.execute(db);
  // An operator's per-tenant choice of provider (builtin, openai, anthropic); null: the deployment's.
  await sql`ALTER TABLE tenants ADD COLUMN summary_provider TEXT`.execute(db);

  await sql`CREATE TABLE case_summaries (
    id TEXT PRIMARY KEY,
    case_id TEXT NOT NULL UNIQUE REFERENCES cases(id),
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    text TEXT NOT NULL,
    sections TEXT NOT NULL,
    citations TEXT NOT NULL,
    flags TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    is_llm ${bigint} NOT NULL,
    prompt_version TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    from_cache ${bigint} NOT NULL,
    generated_at ${bigint} NOT NULL,
    requested_by TEXT NOT NULL,
    requested_by_label TEXT NOT NULL,
    input_tokens ${bigint} NOT NULL,
    output_tokens ${bigint} NOT NULL,
    latency_ms ${bigint} NOT NULL,
    basis TEXT NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX case_summaries_tenant ON case_summaries (tenant_id, generated_at)`.execute(db);

  // The tenant is kept so an opt-out can remove the tenant's cached input and output at once.
  await sql`CREATE TABLE summary_cache (
    fingerprint TEXT PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    input TEXT NOT NULL,
    output TEXT NOT NULL,
    input_tokens ${bigint} NOT NULL,
    output_tokens ${bigint} NOT NULL,
    latency_ms ${bigint} NOT NULL,
    created_at ${bigint} NOT NULL,
    expires_at ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX summary_cache_expiry ON summary_cache (expires_at)`.execute(db);
  await sql`CREATE INDEX summary_cache_tenant ON summary_cache (tenant_id)`.execute(db);

  await sql`CREATE TABLE summary_feedback (
    summary_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    rating TEXT NOT NULL,
    comment TEXT,
    created_at ${bigint} NOT NULL,
    updated_at ${bigint} NOT NULL,
    PRIMARY KEY (summary_id, user_id)
  )`.execute(db);
}
