// `sightline tenant limits <code_name>`: a tenant's collector ingest limits, as the operator sets
// them (recorded in the tenant's audit log). Without options it prints them; --off removes them.
// Running servers pick a change up within 2 s (collector/ingest-limits/ingest-limit-sync.ts).
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { cliActor } from '../identity/principal.js';
import { requireTenantByCodeName } from '../identity/tenants/tenant-service.js';
import type { IngestLimits } from '../collector/ingest-limits/ingest-limiter.js';
import { presentIngestLimits, setIngestLimits } from '../collector/ingest-limits/ingest-limit-service.js';
import { findIngestLimits } from '../collector/ingest-limits/ingest-limit-store.js';
import { addSettingOptions, settingValues, storageSettings } from './options.js';

const LIMIT_OPTIONS = {
  recordsPerSecond: '--records-per-second',
  recordsBurst: '--records-burst',
  bytesPerSecond: '--bytes-per-second',
  bytesBurst: '--bytes-burst',
} as const;

/** The limits the options give, or undefined when they give none (print only). */
function limitsFrom(options: Record<string, unknown>): Partial<IngestLimits> | undefined {
  const given = Object.entries(LIMIT_OPTIONS).filter(([key]) => options[key] !== undefined);
  if (options.off === true) {
    if (given.length > 0) throw new Error('--off removes every limit: give it without the limit options');
    return {};
  }
  if (given.length === 0) return undefined;
  const limits: Partial<IngestLimits> = {};
  for (const [key, flag] of given) {
    const value = Number(options[key]);
    if (!/^\d+$/.test(String(options[key])) || !Number.isSafeInteger(value))
      throw new Error(`${flag} must be a whole number`);
    limits[key as keyof IngestLimits] = value;
  }
  return limits;
}

export function registerTenantLimits(tenant: Command): void {
  addSettingOptions(
    tenant
      .command('limits <code_name>')
      .description(
        "Show or set a tenant's collector ingest limits (off by default); over them the collector answers 429 with Retry-After. Setting replaces every limit; a burst defaults to its rate. Prints the limits as JSON",
      )
      .option('--records-per-second <n>', 'records per second the collector accepts for the tenant')
      .option('--records-burst <n>', 'records accepted at once above the rate (the largest request)')
      .option('--bytes-per-second <n>', 'decoded (decompressed) body bytes per second')
      .option('--bytes-burst <n>', 'decoded bytes accepted at once (the largest request)')
      .option('--off', 'remove the limits: the collector takes whatever the tenant sends'),
    storageSettings,
  ).action(async (codeName: string, options: Record<string, unknown>) => {
    const limits = limitsFrom(options);
    const config = loadConfig(settingValues(options, storageSettings));
    const database = await openDatabase(config, { existing: true });
    try {
      await migrateToLatest(database);
      const { id } = await requireTenantByCodeName(database.db, codeName);
      if (limits) await setIngestLimits({ db: database.db, tenantId: id, actor: cliActor, ip: null }, limits);
      process.stdout.write(`${JSON.stringify(presentIngestLimits(await findIngestLimits(database.db, id)))}\n`);
    } finally {
      await database.close();
    }
  });
}
