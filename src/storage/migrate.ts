// Applies the schema migrations in order. Each migration receives the dialect so that the few
// statements that differ between SQLite and PostgreSQL stay side by side in one file.
import { Migrator, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Database, DatabaseKind } from './database.js';
import { errorMessage } from '../core/errors.js';
import * as m0001 from './migrations/0001-tenants-and-record-log.js';
import * as m0002 from './migrations/0002-identity.js';
import * as m0003 from './migrations/0003-detection.js';
import * as m0004 from './migrations/0004-cases-and-devices.js';
import * as m0005 from './migrations/0005-summaries.js';
import * as m0006 from './migrations/0006-case-search.js';
import * as m0007 from './migrations/0007-observation-stats.js';
import * as m0008 from './migrations/0008-tenant-key-indexes.js';
import * as m0009 from './migrations/0009-observation-list-order.js';
import * as m0010 from './migrations/0010-instance-settings.js';
import * as m0011 from './migrations/0011-collector-activity.js';
import * as m0012 from './migrations/0012-token-lineage.js';
import * as m0013 from './migrations/0013-user-lifecycle.js';
import * as m0014 from './migrations/0014-ingest-keys.js';
import * as m0015 from './migrations/0015-second-factor.js';
import * as m0016 from './migrations/0016-single-sign-on.js';
import * as m0017 from './migrations/0017-log-partitions.js';
import * as m0019 from './migrations/0019-shared-node-state.js';
import * as m0024 from './migrations/0024-saved-searches.js';
import * as m0031 from './migrations/0031-webhooks.js';
import * as m0032 from './migrations/0032-device-actions.js';
import * as m0029 from './migrations/0029-retention.js';
import * as m0030 from './migrations/0030-telemetry-time-partitions.js';
import * as m0033 from './migrations/0033-webhook-log-retention.js';
import * as m0036 from './migrations/0036-contentless-search-index.js';
import * as m0034 from './migrations/0034-unrecognised-shapes.js';
import * as m0035 from './migrations/0035-logsource-sightings.js';
import * as m0038 from './migrations/0038-log-dead-letters.js';
import * as m0041 from './migrations/0041-search-index-delete-merge.js';
import * as m0042 from './migrations/0042-record-log-without-tenant-key.js';
import * as m0043 from './migrations/0043-log-cursor-snapshots.js';
import * as m0044 from './migrations/0044-record-jsonb-flag.js';
import * as m0045 from './migrations/0045-record-plain-text-flag.js';
import * as m0046 from './migrations/0046-cases-merged-into-index.js';
import * as m0047 from './migrations/0047-process-events-fewer-indexes.js';
import * as m0048 from './migrations/0048-search-index-words.js';
import * as m0049 from './migrations/0049-people-per-tenant.js';
import * as m0050 from './migrations/0050-sso-links-and-domains.js';
import * as m0051 from './migrations/0051-tenant-ingest-limits.js';
import * as m0052 from './migrations/0052-collector-activity-protocol.js';
import * as m0053 from './migrations/0053-webhook-format.js';
import * as m0054 from './migrations/0054-export-cursors.js';
import * as m0055 from './migrations/0055-case-templates-and-tasks.js';
import * as m0056 from './migrations/0056-case-sla.js';
import * as m0057 from './migrations/0057-case-observables.js';
import * as m0058 from './migrations/0058-partners.js';

interface MigrationModule {
  up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void>;
}

const migrations: Record<string, MigrationModule> = {
  '0001-tenants-and-record-log': m0001,
  '0002-identity': m0002,
  '0003-detection': m0003,
  '0004-cases-and-devices': m0004,
  '0005-summaries': m0005,
  '0006-case-search': m0006,
  '0007-observation-stats': m0007,
  '0008-tenant-key-indexes': m0008,
  '0009-observation-list-order': m0009,
  '0010-instance-settings': m0010,
  '0011-collector-activity': m0011,
  '0012-token-lineage': m0012,
  '0013-user-lifecycle': m0013,
  '0014-ingest-keys': m0014,
  '0015-second-factor': m0015,
  '0016-single-sign-on': m0016,
  '0017-log-partitions': m0017,
  '0019-shared-node-state': m0019,
  '0024-saved-searches': m0024,
  '0031-webhooks': m0031,
  '0032-device-actions': m0032,
  '0029-retention': m0029,
  '0030-telemetry-time-partitions': m0030,
  '0033-webhook-log-retention': m0033,
  '0034-unrecognised-shapes': m0034,
  '0035-logsource-sightings': m0035,
  '0036-contentless-search-index': m0036,
  '0038-log-dead-letters': m0038,
  '0041-search-index-delete-merge': m0041,
  '0042-record-log-without-tenant-key': m0042,
  '0043-log-cursor-snapshots': m0043,
  '0044-record-jsonb-flag': m0044,
  '0045-record-plain-text-flag': m0045,
  '0046-cases-merged-into-index': m0046,
  '0047-process-events-fewer-indexes': m0047,
  '0048-search-index-words': m0048,
  '0049-people-per-tenant': m0049,
  '0050-sso-links-and-domains': m0050,
  '0051-tenant-ingest-limits': m0051,
  '0052-collector-activity-protocol': m0052,
  '0053-webhook-format': m0053,
  '0054-export-cursors': m0054,
  '0055-case-templates-and-tasks': m0055,
  '0056-case-sla': m0056,
  '0057-case-observables': m0057,
  '0058-partners': m0058,
};

/** Every migration this version knows, in order (a backup made by a newer version has others). */
export const migrationNames: readonly string[] = Object.keys(migrations);

class InCodeMigrations implements MigrationProvider {
  constructor(private readonly kind: DatabaseKind) {}

  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve(
      Object.fromEntries(
        Object.entries(migrations).map(([name, module]) => [
          name,
          { up: (db: Kysely<unknown>) => module.up(db, this.kind) },
        ]),
      ),
    );
  }
}

/** Brings the database to the latest schema; returns the names of the migrations applied now. */
export function migrateToLatest(database: Database): Promise<string[]> {
  return migrate(database, (migrator) => migrator.migrateToLatest());
}

/** Brings the database to the schema of one migration: how upgrade tests make an older database. */
export function migrateTo(database: Database, name: string): Promise<string[]> {
  return migrate(database, (migrator) => migrator.migrateTo(name));
}

async function migrate(
  database: Database,
  run: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: new InCodeMigrations(database.kind),
    // Kysely looks for its bookkeeping tables in every schema unless told which one is ours;
    // two Sightline schemas in one database would otherwise see each other's tables.
    ...(database.kind === 'postgres' ? { migrationTableSchema: database.pgSchema } : {}),
  });
  const { error, results } = await run(migrator);
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
