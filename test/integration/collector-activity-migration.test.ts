// Upgrading a database with collector activity counted before protocols were, on SQLite and
// PostgreSQL: every row is kept as a `/log_sink` row, and the same sender counted through
// another protocol afterwards is a row of its own.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { databaseTargets } from '../helpers/databases.js';
import { databaseAt } from '../helpers/upgrade.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { addActivity, senders } from '../../src/collector/diagnostics/diagnostics-store.js';

const BEFORE = '0051-tenant-ingest-limits';
const HOUR = 1_764_000_000_000 - (1_764_000_000_000 % 3_600_000);

for (const target of databaseTargets) {
  describe(`collector activity by protocol when ${target.kind} is upgraded`, { skip: target.skip }, () => {
    const upgraded = databaseAt(target, BEFORE);

    test('rows counted before are /log_sink rows; another protocol counts apart', async () => {
      const { database } = upgraded;
      const db = database.db;
      await sql`INSERT INTO collector_activity (tenant_id, hour, user_agent, source_address, requests, records, last_seen_at)
        VALUES (7, ${HOUR}, 'Fluent-Bit', '10.0.0.5', 3, 30, ${HOUR + 5})`.execute(db);

      await migrateToLatest(database);

      await addActivity(db, [
        {
          tenantId: 7,
          hour: HOUR,
          protocol: 'otlp',
          userAgent: 'Fluent-Bit',
          sourceAddress: '10.0.0.5',
          requests: 1,
          records: 4,
          lastSeenAt: HOUR + 9,
        },
        {
          tenantId: 7,
          hour: HOUR,
          protocol: 'log_sink',
          userAgent: 'Fluent-Bit',
          sourceAddress: '10.0.0.5',
          requests: 1,
          records: 2,
          lastSeenAt: HOUR + 7,
        },
      ]);
      const rows = await senders(db, 7, HOUR, 10);
      assert.deepEqual(
        rows.map((row) => [row.protocol, row.user_agent, row.requests, row.records, row.last_seen_at]),
        [
          ['log_sink', 'Fluent-Bit', 4, 32, HOUR + 7],
          ['otlp', 'Fluent-Bit', 1, 4, HOUR + 9],
        ],
      );
    });
  });
}
