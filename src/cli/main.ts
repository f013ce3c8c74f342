// The `sightline` command line. Each command lives in its own file; this one only assembles them.
import { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { addSettingOptions, settingValues, storageSettings } from './options.js';
import { registerServe } from './serve-command.js';
import { registerTenant } from './tenant-command.js';
import { registerTelemetry } from './telemetry-command.js';
import { registerToken } from './token-command.js';
import { registerIngestKey } from './ingest-key-command.js';
import { registerUser } from './user-command.js';
import { registerRules } from './rules-command.js';
import { registerObservationRequests } from './observation-command.js';
import { registerDemo } from './demo-command.js';
import { registerData } from './data-command.js';
import { registerWebhook } from './webhook-command.js';
import { registerBackup } from './backup-command.js';
import { registerRetention } from './retention-command.js';

export async function main(argv: string[]): Promise<void> {
  const program = new Command('sightline')
    .description('Sightline: self-hosted security operations platform')
    .showHelpAfterError()
    .exitOverride((error) => {
      // Help and version are not failures; usage errors exit 2, as shells expect.
      process.exit(error.exitCode === 0 ? 0 : 2);
    });

  registerServe(program);
  registerTenant(program);
  registerTelemetry(program);
  registerUser(program);
  registerToken(program);
  registerIngestKey(program);
  registerRules(program);
  registerObservationRequests(program);
  registerDemo(program);
  registerData(program);
  registerWebhook(program);
  registerBackup(program);
  registerRetention(program);
  addSettingOptions(
    program.command('migrate').description('Bring the database schema up to date'),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const database = await openDatabase(loadConfig(settingValues(options, storageSettings)));
    try {
      const applied = await migrateToLatest(database);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
    } finally {
      await database.close();
    }
  });

  await program.parseAsync(argv);
}
