// `sightline retention`: a tenant's raw telemetry retention and legal hold, the operator's
// allowed range, every tenant's storage use, a purge pass run now, and (SQLite) the one-off
// rewrite that lets an older database give deleted space back.
import type { Command } from 'commander';
import { sql } from 'kysely';
import { loadConfig, type SettingName } from '../config/config.js';
import { AppError } from '../core/errors.js';
import { openDatabase, type Database } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { cliActor } from '../identity/principal.js';
import { requireTenantByCodeName } from '../identity/tenants/tenant-service.js';
import {
  changeLimits,
  changeRetention,
  getLimits,
  getRetention,
  listRetention,
} from '../retention/retention-service.js';
import { RetentionPurger } from '../retention/purger.js';
import { tablePartitionUpkeep } from '../retention/table-partitions.js';
import { addSettingOptions, parsePositiveInteger, requiredValue, settingValues, storageSettings } from './options.js';
import { storagePorts } from '../storage/ports/storage-ports.js';

type Options = Record<string, string | boolean | undefined>;

/** A pass also purges the webhook log, so it takes that retention too. */
const purgeSettings: SettingName[] = [...storageSettings, 'webhookLogRetention'];

async function withDatabase(options: Options, work: (database: Database) => Promise<unknown>): Promise<void> {
  const database = await openDatabase(loadConfig(settingValues(options, storageSettings)));
  try {
    await migrateToLatest(database);
    const result = await work(database);
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await database.close();
  }
}

const text = (value: string | boolean | undefined) => (typeof value === 'string' ? value : undefined);

function onOff(flag: string, value: string | boolean | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw new AppError('invalid_request', `${flag} must be on or off`);
  return value === 'on';
}

export function registerRetention(program: Command): void {
  const retention = program
    .command('retention')
    .description('Raw telemetry retention: per-tenant days, legal hold, the allowed range, purging');

  addSettingOptions(
    retention
      .command('show')
      .description("Print a tenant's retention as JSON")
      .requiredOption('--tenant <code_name>', 'tenant'),
    storageSettings,
  ).action((options: Options) =>
    withDatabase(options, async ({ db }) => {
      const tenant = await requireTenantByCodeName(db, requiredValue('--tenant', text(options.tenant)));
      return getRetention(db, tenant.id);
    }),
  );

  addSettingOptions(
    retention
      .command('set')
      .description("Change a tenant's retention or legal hold (audited) and print it as JSON")
      .requiredOption('--tenant <code_name>', 'tenant')
      .option(
        '--days <n|default>',
        "days to keep raw telemetry, within the allowed range; default: the operator's default",
      )
      .option('--legal-hold <on|off>', 'on: suspend purging for the tenant (needs --reason); off: lift the hold')
      .option('--reason <text>', 'the matter a legal hold preserves records for'),
    storageSettings,
  ).action((options: Options) =>
    withDatabase(options, async ({ db }) => {
      const tenant = await requireTenantByCodeName(db, requiredValue('--tenant', text(options.tenant)));
      const days = text(options.days);
      const hold = onOff('--legal-hold', options.legalHold);
      const reason = text(options.reason);
      if (days === undefined && hold === undefined && reason === undefined)
        throw new AppError('invalid_request', 'nothing to change: give --days, --legal-hold or --reason');
      return changeRetention(
        { db, tenantId: tenant.id, actor: cliActor, ip: null },
        {
          ...(days !== undefined
            ? { telemetry_days: days === 'default' ? null : parsePositiveInteger('--days', days) }
            : {}),
          ...(hold !== undefined ? { legal_hold: hold } : {}),
          ...(reason !== undefined ? { legal_hold_reason: reason } : {}),
        },
      );
    }),
  );

  addSettingOptions(
    retention
      .command('limits')
      .description('Print, or change (audited), the range of days tenants may choose and the default')
      .option('--min-days <n>', 'fewest days a tenant may keep raw telemetry')
      .option('--max-days <n>', 'most days a tenant may keep raw telemetry')
      .option('--default-days <n>', 'days kept for tenants that chose none'),
    storageSettings,
  ).action((options: Options) =>
    withDatabase(options, async ({ db }) => {
      const change = {
        ...(options.minDays !== undefined
          ? { min_days: parsePositiveInteger('--min-days', text(options.minDays)) }
          : {}),
        ...(options.maxDays !== undefined
          ? { max_days: parsePositiveInteger('--max-days', text(options.maxDays)) }
          : {}),
        ...(options.defaultDays !== undefined
          ? { default_days: parsePositiveInteger('--default-days', text(options.defaultDays)) }
          : {}),
      };
      return Object.keys(change).length === 0 ? getLimits(db) : changeLimits(db, change, cliActor, null);
    }),
  );

  addSettingOptions(
    retention.command('list').description("Every tenant's retention and storage use, one JSON object per line"),
    storageSettings,
  ).action((options: Options) =>
    withDatabase(options, async ({ db }) => {
      for (const tenant of await listRetention(db)) process.stdout.write(`${JSON.stringify(tenant)}\n`);
      return undefined;
    }),
  );

  addSettingOptions(
    retention
      .command('purge')
      .description('Run one purge pass now (unless a server holds the purger lease) and print what it purged as JSON'),
    purgeSettings,
  ).action((options: Options) =>
    withDatabase(options, async (database) => {
      const purger = new RetentionPurger({
        db: database.db,
        purge: storagePorts(database).recordPurge,
        holder: `cli:${process.pid}`,
        webhookLogMs: loadConfig(settingValues(options, purgeSettings)).webhookLogRetention,
        ...(database.kind === 'postgres' ? { tablePartitions: tablePartitionUpkeep(database.db) } : {}),
      });
      try {
        return await purger.runPass();
      } finally {
        await purger.stop();
      }
    }),
  );

  addSettingOptions(
    retention
      .command('compact')
      .description(
        'SQLite: rewrite the database once so that purging gives space back to the file system (stop the server first)',
      ),
    storageSettings,
  ).action((options: Options) =>
    withDatabase(options, async (database) => {
      if (database.kind !== 'sqlite')
        throw new AppError('invalid_request', 'compact applies to the embedded SQLite database only');
      await sql`PRAGMA auto_vacuum = INCREMENTAL`.execute(database.db);
      await sql`VACUUM`.execute(database.db);
      const mode = await sql<{ auto_vacuum: number }>`PRAGMA auto_vacuum`.execute(database.db);
      return { auto_vacuum: mode.rows[0]?.auto_vacuum === 2 ? 'incremental' : 'none' };
    }),
  );
}
