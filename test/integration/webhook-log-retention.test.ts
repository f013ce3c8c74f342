// The webhook delivery log and event outbox under retention, on each database: the background
// purger deletes finished deliveries created before the webhook log's retention, then events no
// delivery refers to, in batches; pending deliveries, recent rows and a held tenant's rows stay.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { insertSubscriptionRow } from '../helpers/webhook-rows.js';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { RetentionPurger } from '../../src/retention/purger.js';
import type { WebhookDeliveryStatus } from '../../src/storage/tables/webhooks.js';
import { storagePorts } from '../../src/storage/ports/storage-ports.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);
const OLD = NOW - 31 * DAY;
const RECENT = NOW - 29 * DAY;

for (const target of databaseTargets) {
  describe(`webhook log retention on ${target.kind}`, { skip: target.skip }, () => {
    let testDb: TestDatabase;
    let database: Database;
    const tenants = new Map<string, number>();

    async function tenant(code: string, legalHold: boolean): Promise<number> {
      const { db } = database;
      const row = await db
        .insertInto('tenants')
        .values({ code_name: code, name: code, created_at: OLD, settings: '{}' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('tenant_retention')
        .values({
          tenant_id: row.id,
          legal_hold: legalHold ? 1 : 0,
          updated_at: OLD,
          updated_by: 'test',
          purged_records: 0,
        })
        .execute();
      await insertSubscriptionRow(db, { id: `whk_${code}`, tenantId: row.id, at: OLD });
      tenants.set(code, row.id);
      return row.id;
    }

    async function event(code: string, id: string, occurredAt: number): Promise<void> {
      await database.db
        .insertInto('webhook_events')
        .values({
          id,
          tenant_id: tenants.get(code) ?? 0,
          type: 'case.created',
          subject: 'case_1',
          data: '{}',
          occurred_at: occurredAt,
        })
        .execute();
    }

    async function delivery(
      code: string,
      id: string,
      eventId: string,
      status: WebhookDeliveryStatus,
      createdAt: number,
    ): Promise<void> {
      await database.db
        .insertInto('webhook_deliveries')
        .values({
          id,
          tenant_id: tenants.get(code) ?? 0,
          subscription_id: `whk_${code}`,
          event_id: eventId,
          status,
          attempts: 1,
          next_attempt_at: createdAt,
          retry_until: null,
          lease_owner: null,
          lease_until: null,
          last_attempt_at: createdAt,
          response_status: status === 'delivered' ? 200 : 500,
          latency_ms: 5,
          last_error: null,
          redelivery_of: null,
          created_at: createdAt,
          delivered_at: status === 'delivered' ? createdAt : null,
        })
        .execute();
    }

    /** The same history for each tenant: what retention must delete and what it must keep. */
    async function history(code: string): Promise<void> {
      await event(code, `evt_${code}_delivered`, OLD);
      await delivery(code, `whd_${code}_delivered`, `evt_${code}_delivered`, 'delivered', OLD);
      await event(code, `evt_${code}_failed`, OLD);
      await delivery(code, `whd_${code}_failed`, `evt_${code}_failed`, 'failed', OLD);
      await delivery(code, `whd_${code}_failed_again`, `evt_${code}_failed`, 'failed', OLD + 1);
      await event(code, `evt_${code}_unwanted`, OLD);
      // Still being retried (its subscription was off for a month): kept, and its event with it.
      await event(code, `evt_${code}_pending`, OLD);
      await delivery(code, `whd_${code}_pending`, `evt_${code}_pending`, 'pending', OLD);
      // Redelivered recently: the old delivery goes, the event stays for the recent one.
      await event(code, `evt_${code}_redelivered`, OLD);
      await delivery(code, `whd_${code}_first`, `evt_${code}_redelivered`, 'delivered', OLD);
      await delivery(code, `whd_${code}_again`, `evt_${code}_redelivered`, 'delivered', RECENT);
      await event(code, `evt_${code}_recent`, RECENT);
      await delivery(code, `whd_${code}_recent`, `evt_${code}_recent`, 'delivered', RECENT);
      await event(code, `evt_${code}_recent_unwanted`, RECENT);
    }

    const ids = async (table: 'webhook_events' | 'webhook_deliveries', code: string) =>
      (
        await database.db
          .selectFrom(table)
          .select('id')
          .where('tenant_id', '=', tenants.get(code) ?? 0)
          .orderBy('id')
          .execute()
      ).map((row) => row.id);

    before(async () => {
      testDb = await target.create();
      database = await openDatabase({ dataDir: testDb.dataDir, databaseUrl: testDb.databaseUrl });
      await migrateToLatest(database);
      await tenant('acme', false);
      await tenant('globex', true);
      await history('acme');
      await history('globex');
    });

    after(async () => {
      await database.close();
      await testDb.cleanup();
    });

    test('finished deliveries and unreferenced events past the retention go, in batches; the rest stays', async () => {
      const purger = new RetentionPurger({
        db: database.db,
        purge: storagePorts(database).recordPurge,
        holder: 'test',
        // Smaller than what each tenant has to delete: the purge takes several batches.
        batchSize: 2,
        minPauseMs: 1,
        webhookLogMs: 30 * DAY,
      });
      try {
        const report = await purger.runPass(NOW);
        assert.equal(report.ran, true);
        assert.deepEqual(report.webhookLog.acme, { deliveries: 4, events: 3 });
        assert.deepEqual(report.held, ['globex']);
      } finally {
        await purger.stop();
      }
      assert.deepEqual(await ids('webhook_deliveries', 'acme'), [
        'whd_acme_again',
        'whd_acme_pending',
        'whd_acme_recent',
      ]);
      assert.deepEqual(await ids('webhook_events', 'acme'), [
        'evt_acme_pending',
        'evt_acme_recent',
        'evt_acme_recent_unwanted',
        'evt_acme_redelivered',
      ]);
      // A legal hold suspends all of the tenant's purging, its webhook log included.
      assert.equal((await ids('webhook_deliveries', 'globex')).length, 7);
      assert.equal((await ids('webhook_events', 'globex')).length, 7);
    });
  });
}
