// A webhook subscription row written straight into the database, for tests of the outbox and
// its retention that need a subscription without going through the API (the secret is a dummy).
import type { Kysely } from 'kysely';
import type { Tables } from '../../src/storage/schema.js';

export async function insertSubscriptionRow(
  db: Kysely<Tables>,
  row: { id: string; tenantId: number; at: number },
): Promise<void> {
  await db
    .insertInto('webhook_subscriptions')
    .values({
      id: row.id,
      tenant_id: row.tenantId,
      url: 'https://receiver.example/hook',
      description: '',
      events: '["case.created"]',
      format: 'sightline',
      secret_sealed: 'sealed',
      secret_prefix: 'whsec_test',
      enabled: 1,
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      created_at: row.at,
      created_by: 'test',
      updated_at: row.at,
    })
    .execute();
}
