// `sightline data migrate --to postgres://…`: moves the embedded deployment (the SQLite database
// named by --data / --database) into PostgreSQL — every table, resumable, verified by counts
// (docs/scale.md, Moving from the embedded database). Progress goes to stdout; only table names and
// counts are printed, never row content.
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { AppError } from '../core/errors.js';
import { openDatabase, redactUrl } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { moveData } from '../storage/data-move/data-move.js';
import { addSettingOptions, parsePositiveInteger, settingValues, storageSettings } from './options.js';

const DEFAULT_BATCH_ROWS = 1_000;
const MAX_BATCH_ROWS = 10_000;

const migrateHelp = `
Stop the server first: the move reads the embedded database while nothing writes to it.
The target must be empty (a new database, or a new ?schema=NAME) or hold this same move,
stopped part way: a rerun continues after the last batch that was committed. At the end the
row count of every table is compared, and the command fails if any differs.

Example:
  sightline data migrate --data ./data --to postgres://sightline@db.internal:5432/sightline
  sightline serve --database postgres://sightline@db.internal:5432/sightline`;

export function registerData(program: Command): void {
  const command = program.command('data').description('Move the deployment between databases');
  addSettingOptions(
    command
      .command('migrate')
      .description('Copy the embedded (SQLite) deployment, every table, into an empty PostgreSQL database')
      .requiredOption('--to <url>', 'the PostgreSQL database to move into: postgres://user@host:5432/db[?schema=NAME]')
      .option('--batch-rows <n>', `rows copied per transaction (1-${MAX_BATCH_ROWS}; default ${DEFAULT_BATCH_ROWS})`)
      .addHelpText('after', migrateHelp),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const to = String(options.to);
    if (!/^postgres(ql)?:\/\//i.test(to)) {
      throw new AppError(
        'invalid_request',
        `--to must be a postgres:// or postgresql:// URL; got ${JSON.stringify(redactUrl(to))}`,
      );
    }
    const batchRows =
      parsePositiveInteger('--batch-rows', options.batchRows as string | undefined) ?? DEFAULT_BATCH_ROWS;
    if (batchRows > MAX_BATCH_ROWS) {
      throw new AppError('invalid_request', `--batch-rows must be at most ${MAX_BATCH_ROWS}; got ${batchRows}`);
    }
    const config = loadConfig(settingValues(options, storageSettings));
    const source = await openDatabase(config);
    try {
      if (source.kind !== 'sqlite') {
        throw new AppError(
          'invalid_request',
          '--data / --database must name the embedded (SQLite) database to move from; it names PostgreSQL',
        );
      }
      await migrateToLatest(source);
      const target = await openDatabase({ databaseUrl: to, dataDir: config.dataDir });
      try {
        if (target.kind !== 'postgres') throw new Error('the --to URL did not open PostgreSQL');
        await migrateToLatest(target);
        const report = (line: string) => process.stdout.write(`${line}\n`);
        await moveData(source, target, { batchRows, report });
        report(`done: start the server with --database ${target.location}`);
      } finally {
        await target.close();
      }
    } finally {
      await source.close();
    }
  });
}
