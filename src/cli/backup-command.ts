// `sightline backup` and `sightline restore`: an online copy of an embedded deployment's data
// directory, and putting one back into a new data directory. PostgreSQL deployments use the
// database's own tools (pg_dump / pg_restore), as docs/operations.md, "Backup and restore", describes.
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { AppError } from '../core/errors.js';
import { backupDataDir, restoreDataDir, verifyBackup, type BackupManifest } from '../storage/sqlite-backup.js';
import { addSettingOptions, requiredValue, settingValues, storageSettings } from './options.js';

function requireEmbedded(databaseUrl: string): void {
  const url = databaseUrl.trim();
  if (url === '') return;
  if (/^(sqlite|file):/i.test(url))
    throw new AppError(
      'backup_unsupported',
      'backup and restore work on the data directory (--data) holding the embedded database; this deployment names a database file elsewhere (--database)',
    );
  throw new AppError(
    'backup_unsupported',
    'this deployment uses PostgreSQL: back it up with pg_dump and restore it with pg_restore, and the NATS stream with `nats stream backup` (docs/operations.md, Backup and restore)',
  );
}

function describe(manifest: BackupManifest): string {
  const bytes = manifest.files.reduce((sum, file) => sum + file.bytes, 0);
  return (
    `${manifest.tenants} tenant(s), ${manifest.telemetry_records} telemetry record(s), ` +
    `${manifest.files.length} file(s), ${bytes} bytes; schema at ${manifest.migrations.at(-1) ?? 'none'}`
  );
}

export function registerBackup(program: Command): void {
  addSettingOptions(
    program
      .command('backup')
      .description(
        'Copy the embedded database and the data directory into a new directory while the server runs (a consistent snapshot)',
      )
      .requiredOption('--to <dir>', 'where to write the backup: a new or empty directory'),
    storageSettings,
  ).action(async (options: Record<string, string | undefined>) => {
    const config = loadConfig(settingValues(options, storageSettings));
    requireEmbedded(config.databaseUrl);
    const to = requiredValue('--to', options.to);
    const manifest = await backupDataDir(config.dataDir, to);
    process.stdout.write(`backup of ${config.dataDir} written to ${to}: ${describe(manifest)}\n`);
  });

  addSettingOptions(
    program
      .command('restore')
      .description('Verify a backup and restore it into a data directory (new or empty unless --force)')
      .requiredOption('--from <dir>', 'the backup directory `sightline backup` wrote')
      .option('--verify-only', 'check the backup and change nothing')
      .option('--force', 'restore into a non-empty data directory, replacing its database (stop the server first)'),
    storageSettings,
  ).action((options: Record<string, string | boolean | undefined>) => {
    const config = loadConfig(settingValues(options, storageSettings));
    requireEmbedded(config.databaseUrl);
    const from = requiredValue('--from', typeof options.from === 'string' ? options.from : undefined);
    if (options.verifyOnly) {
      const manifest = verifyBackup(from);
      process.stdout.write(`backup ${from} is intact (made ${manifest.created_at}): ${describe(manifest)}\n`);
      return;
    }
    const manifest = restoreDataDir(from, config.dataDir, options.force === true);
    process.stdout.write(
      `backup ${from} (made ${manifest.created_at}) restored into ${config.dataDir}: ${describe(manifest)}\n`,
    );
  });
}
