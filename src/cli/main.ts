// The `sightline` command line. Each command lives in its own file; this one only assembles them.
// A command's file (and what it imports) loads only when that command runs, or when the whole
// list is wanted (help, or a word that names no command): a script calling `sightline token create`
// does not wait for the server, the rule compiler and the demo data to load.
import { Command } from 'commander';
import { addSettingOptions, settingValues, storageSettings } from './options.js';

type Register = (program: Command) => void;

/** The top-level commands, each with the loader of the file that registers it. */
const commands: Record<string, () => Promise<Register>> = {
  serve: async () => (await import('./serve-command.js')).registerServe,
  tenant: async () => (await import('./tenant-command.js')).registerTenant,
  partner: async () => (await import('./partner-command.js')).registerPartner,
  telemetry: async () => (await import('./telemetry-command.js')).registerTelemetry,
  user: async () => (await import('./user-command.js')).registerUser,
  token: async () => (await import('./token-command.js')).registerToken,
  'ingest-key': async () => (await import('./ingest-key-command.js')).registerIngestKey,
  'sso-domain': async () => (await import('./sso-domain-command.js')).registerSsoDomain,
  rules: async () => (await import('./rules-command.js')).registerRules,
  'observation-requests': async () => (await import('./observation-command.js')).registerObservationRequests,
  demo: async () => (await import('./demo-command.js')).registerDemo,
  data: async () => (await import('./data-command.js')).registerData,
  webhook: async () => (await import('./webhook-command.js')).registerWebhook,
  backup: async () => (await import('./backup-command.js')).registerBackup,
  restore: async () => (await import('./backup-command.js')).registerBackup,
  retention: async () => (await import('./retention-command.js')).registerRetention,
  mcp: async () => (await import('./mcp-command.js')).registerMcp,
  migrate: () => Promise.resolve(registerMigrate),
};

function registerMigrate(program: Command): void {
  addSettingOptions(
    program.command('migrate').description('Bring the database schema up to date'),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const { loadConfig } = await import('../config/config.js');
    const { openDatabase } = await import('../storage/database.js');
    const { migrateToLatest } = await import('../storage/migrate.js');
    const database = await openDatabase(loadConfig(settingValues(options, storageSettings)));
    try {
      const applied = await migrateToLatest(database);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
    } finally {
      await database.close();
    }
  });
}

/** The registrations a command line needs: its command's alone, or all of them (in list order). */
async function registrations(argv: string[]): Promise<Register[]> {
  const word = argv[2];
  const one = word !== undefined && Object.hasOwn(commands, word) ? commands[word] : undefined;
  const loaders = one ? [one] : Object.values(commands);
  const loaded = await Promise.all(loaders.map((load) => load()));
  return [...new Set(loaded)];
}

export async function main(argv: string[]): Promise<void> {
  const program = new Command('sightline')
    .description('Sightline: self-hosted security operations platform')
    .showHelpAfterError()
    .exitOverride((error) => {
      // Help and version are not failures; usage errors exit 2, as shells expect.
      process.exit(error.exitCode === 0 ? 0 : 2);
    });
  for (const register of await registrations(argv)) register(program);
  await program.parseAsync(argv);
}
