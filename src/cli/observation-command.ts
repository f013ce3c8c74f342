// `sightline observation-requests list|approve|reject`: the platform operator's side of the
// review a tenant passes before it may write observations (the API has the same).
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { AppError } from '../core/errors.js';
import { cliActor } from '../identity/principal.js';
import {
  decideWriteRequest,
  listWriteRequests,
  MAX_STATEMENT_LENGTH,
  MAX_VOLUME_PER_HOUR,
  type WriteRequestStatus,
} from '../observations/write-request-service.js';
import { addSettingOptions, parsePositiveInteger, settingValues, storageSettings } from './options.js';

const STATUSES = ['pending', 'approved', 'rejected'];

/** The same bounds as the API's decision body; null when no note was given. */
function noteOf(value: unknown): string | null {
  const note = typeof value === 'string' ? value.trim() : '';
  if (note === '') return null;
  if (note.length > MAX_STATEMENT_LENGTH)
    throw new AppError('invalid_request', `--note is longer than ${MAX_STATEMENT_LENGTH} characters`);
  return note;
}

/** A note that must be there (a rejection says why). */
function requiredNote(value: unknown): string {
  const note = noteOf(value);
  if (note === null) throw new AppError('invalid_request', '--note must say why (the tenant sees it)');
  return note;
}

async function withDatabase<T>(
  options: Record<string, unknown>,
  work: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<T>,
): Promise<T> {
  const database = await openDatabase(loadConfig(settingValues(options, storageSettings)), { existing: true });
  try {
    await migrateToLatest(database);
    return await work(database.db);
  } finally {
    await database.close();
  }
}

export function registerObservationRequests(program: Command): void {
  const requests = program
    .command('observation-requests')
    .description("Review tenants' requests to write observations (platform operators)");

  addSettingOptions(
    requests
      .command('list')
      .description('List review requests, newest first')
      .option('--status <status>', 'pending, approved or rejected')
      .option('--json', 'one JSON object per line'),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const status = options.status as string | undefined;
    if (status !== undefined && !STATUSES.includes(status))
      throw new AppError('invalid_request', `--status must be one of ${STATUSES.join(', ')}`);
    const listed = await withDatabase(options, (db) =>
      listWriteRequests(db, status ? { status: status as WriteRequestStatus } : {}),
    );
    for (const item of listed) {
      process.stdout.write(
        options.json
          ? `${JSON.stringify(item)}\n`
          : `${item.id}\t${item.tenant}\t${item.status}\t${item.expected_volume_per_hour}/h\t${item.requested_by}\t${item.requested_at}\n`,
      );
    }
  });

  addSettingOptions(
    requests
      .command('approve <request_id>')
      .description(
        'Approve: the tenant may write observations, held to --limit-per-hour (default: the volume it asked for)',
      )
      .option('--limit-per-hour <n>', 'observations per hour the tenant may write')
      .option('--note <text>', 'why, for the record'),
    storageSettings,
  ).action(async (id: string, options: Record<string, unknown>) => {
    const limit = parsePositiveInteger('--limit-per-hour', options.limitPerHour as string | undefined);
    if (limit !== undefined && limit > MAX_VOLUME_PER_HOUR)
      throw new AppError('invalid_request', `--limit-per-hour must be at most ${MAX_VOLUME_PER_HOUR}`);
    const note = noteOf(options.note);
    const decided = await withDatabase(options, (db) =>
      decideWriteRequest(db, id, { approve: true, note, ...(limit ? { limitPerHour: limit } : {}) }, cliActor, null),
    );
    process.stdout.write(`approved ${decided.id} for ${decided.tenant}\n`);
  });

  addSettingOptions(
    requests
      .command('reject <request_id>')
      .description('Reject a review request')
      .requiredOption('--note <text>', 'why (the tenant sees it)'),
    storageSettings,
  ).action(async (id: string, options: Record<string, unknown>) => {
    const decided = await withDatabase(options, (db) =>
      decideWriteRequest(db, id, { approve: false, note: requiredNote(options.note) }, cliActor, null),
    );
    process.stdout.write(`rejected ${decided.id} for ${decided.tenant}\n`);
  });
}
