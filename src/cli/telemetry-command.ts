// `sightline telemetry search`: stored records as NDJSON on stdout, in log order.
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { instanceKey } from '../storage/instance-settings.js';
import { setRecordIdKey } from '../core/record-ids.js';
import { requireTenantByCodeName } from '../identity/tenants/tenant-service.js';
import { streamRecords } from '../telemetry/telemetry-service.js';
import { stringifyWithRawJson } from '../core/exact-json.js';
import { storagePorts } from '../storage/ports/storage-ports.js';
import { parseTelemetryQuery } from '../telemetry/telemetry-query.js';
import {
  addSettingOptions,
  parsePositiveInteger,
  parseTimeOption,
  requiredValue,
  settingValues,
  storageSettings,
} from './options.js';

export function registerTelemetry(program: Command): void {
  const telemetry = program.command('telemetry').description('Read the records the collector stored');
  addSettingOptions(
    telemetry
      .command('search')
      .description(
        'Print stored records as NDJSON: {"id", "received_at", "event_time", "record", "meta"?} per line, oldest first',
      )
      .requiredOption('--tenant <code_name>', 'tenant whose records to read')
      .option('--since <time>', 'receive time from (inclusive): ISO 8601, or a span back from now such as 15m, 2h, 7d')
      .option('--until <time>', 'receive time up to (exclusive): ISO 8601 or a span such as 1h')
      .option(
        '--query <text>',
        'a query in the telemetry query language: words, "phrases", field:value, ranges, AND/OR/NOT (see docs/search.md)',
      )
      .option('--limit <n>', 'print at most N records (default: all that match)'),
    storageSettings,
  ).action(async (options: Record<string, string | undefined>) => {
    const config = loadConfig(settingValues(options, storageSettings));
    const since = parseTimeOption('--since', options.since);
    const until = parseTimeOption('--until', options.until);
    const limit = parsePositiveInteger('--limit', options.limit);
    const database = await openDatabase(config, { existing: true });
    try {
      await migrateToLatest(database);
      // The records' public ids are made with the deployment's key, as the server makes them.
      setRecordIdKey(await instanceKey(database.db, 'record_id_key', 16));
      const tenant = await requireTenantByCodeName(database.db, requiredValue('--tenant', options.tenant));
      const parsed = options.query === undefined ? undefined : parseTelemetryQuery(options.query);
      const query = {
        ...(since !== undefined ? { since } : {}),
        ...(until !== undefined ? { until } : {}),
        ...(parsed ? { query: parsed } : {}),
      };
      const ports = storagePorts(database);
      const reader = { database, storage: ports.telemetry, searchIndex: ports.searchIndex };
      // stdout holds the records alone; the note that the search index is behind goes to stderr.
      const partial = (completeUpTo: number) =>
        process.stderr.write(
          `note: the search index has not reached every record yet; the text search covers records received before ${new Date(completeUpTo).toISOString()}\n`,
        );
      for await (const record of streamRecords(reader, tenant.id, query, limit, partial)) {
        if (!process.stdout.write(`${stringifyWithRawJson(record)}\n`))
          await new Promise((resolve) => process.stdout.once('drain', resolve));
      }
    } finally {
      await database.close();
    }
  });
}
