// Outbound events (webhooks): each tenant's subscriptions, the outbox of events written in the
// same transaction as the change that caused them, and one delivery row per event and
// subscription, which dispatchers on any node claim with a lease.
import { sql, type Kysely } from 'kysely';
import type { DatabaseKind } from '../database.js';

export async function up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void> {
  const bigint = kind === 'sqlite' ? sql`INTEGER` : sql`BIGINT`;
  await sql`CREATE TABLE webhook_subscriptions (
    id TEXT PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    url TEXT NOT NULL,
    description TEXT NOT NULL,
    events TEXT NOT NULL,
    secret_sealed TEXT NOT NULL,
    secret_prefix TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    disabled_reason TEXT,
    disabled_at ${bigint},
    failing_since ${bigint},
    created_at ${bigint} NOT NULL,
    created_by TEXT NOT NULL,
    updated_at ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX webhook_subscriptions_tenant ON webhook_subscriptions (tenant_id, created_at)`.execute(db);
  await sql`CREATE TABLE webhook_events (
    id TEXT PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    type TEXT NOT NULL,
    subject TEXT NOT NULL,
    data TEXT NOT NULL,
    occurred_at ${bigint} NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX webhook_events_tenant ON webhook_events (tenant_id, occurred_at)`.execute(db);
  await sql`CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    tenant_id ${bigint} NOT NULL REFERENCES tenants(id),
    subscription_id TEXT NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
    event_id TEXT NOT NULL REFERENCES webhook_events(id),
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at ${bigint} NOT NULL,
    retry_until ${bigint},
    lease_owner TEXT,
    lease_until ${bigint},
    last_attempt_at ${bigint},
    response_status INTEGER,
    latency_ms INTEGER,
    last_error TEXT,
    redelivery_of TEXT,
    created_at ${bigint} NOT NULL,
    delivered_at ${bigint}
  )`.execute(db);
  // The dispatchers' claim: due pending deliveries, oldest first.
  await sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_log ON webhook_deliveries (tenant_id, subscription_id, created_at)`.execute(
    db,
  );
}
