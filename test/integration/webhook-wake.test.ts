// The dispatcher's wake-up after a transaction queued webhook deliveries, on each database: the
// wake arrives (no poll is involved here) and, when the dispatcher looks, the delivery has
// committed. A rolled-back transaction's deliveries are never found (on PostgreSQL its
// notification is not even delivered; on SQLite the look waits for the rollback).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { insertSubscriptionRow } from '../helpers/webhook-rows.js';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { writeTransaction } from '../../src/storage/write-transaction.js';
import { emitEvents } from '../../src/webhooks/webhook-events.js';
import { startOutboxWake, type OutboxWake } from '../../src/webhooks/outbox-wake.js';
import { storagePorts } from '../../src/storage/ports/storage-ports.js';

for (const target of databaseTargets) {
  describe(`webhook wake-up on ${target.kind}`, { skip: target.skip }, () => {
    let testDb: TestDatabase;
    let database: Database;
    let tenantId: number;

    before(async () => {
      testDb = await target.create();
      database = await openDatabase({ dataDir: testDb.dataDir, databaseUrl: testDb.databaseUrl });
      await migrateToLatest(database);
      const now = Date.now();
      const row = await database.db
        .insertInto('tenants')
        .values({ code_name: 'acme', name: 'Acme', created_at: now, settings: '{}' })
        .returning('id')
        .executeTakeFirstOrThrow();
      tenantId = row.id;
      await insertSubscriptionRow(database.db, { id: 'whk_wake', tenantId, at: now });
    });

    after(async () => {
      await database.close();
      await testDb.cleanup();
    });

    const caseCreated = (subject: string) => [
      { type: 'case.created' as const, subject, data: { case: { id: subject } } },
    ];

    /** Subjects of the pending deliveries' events, as the dispatcher would find them now. */
    const pendingSubjects = async () =>
      (
        await database.db
          .selectFrom('webhook_deliveries as d')
          .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
          .select('e.subject')
          .where('d.tenant_id', '=', tenantId)
          .where('d.status', '=', 'pending')
          .execute()
      ).map((row) => row.subject);

    test('a transaction that queued deliveries wakes the dispatcher, which then finds them committed', async () => {
      const { db, kind } = database;
      const errors: unknown[] = [];
      let wake: OutboxWake | undefined;
      const seen = new Promise<string[]>((resolve) => {
        // As the dispatcher does: a poke schedules a look, which reads through the server's
        // connection; a look that finds nothing waits for the next wake (there is no poll here).
        const look = async () => {
          const subjects = await pendingSubjects();
          if (subjects.length > 0) resolve(subjects);
        };
        wake = startOutboxWake(
          storagePorts(database).outboxListener,
          () => setTimeout(() => void look().catch((error: unknown) => errors.push(error)), 0),
          (error) => errors.push(error),
        );
      });
      try {
        // On PostgreSQL the listener connects in the background: what is committed before it
        // listens is found by its first look, so this test waits for the listener first.
        if (kind === 'postgres') await listening(database);
        await writeTransaction(db, async (trx) => {
          await emitEvents(trx, tenantId, caseCreated('case_rolled_back'));
          throw new RolledBack();
        }).catch((error: unknown) => {
          if (!(error instanceof RolledBack)) throw error;
        });
        await writeTransaction(db, (trx) => emitEvents(trx, tenantId, caseCreated('case_committed')));
        assert.deepEqual(await seen, ['case_committed']);
        assert.deepEqual(errors, []);
      } finally {
        await wake?.stop();
      }
    });
  });
}

class RolledBack extends Error {}

/** Until this process has a session listening for the outbox (PostgreSQL). */
async function listening(database: Database): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND query = 'LISTEN "sightline_webhooks:' || current_schema() || '"'`.execute(
      database.db,
    );
    if ((rows[0]?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
