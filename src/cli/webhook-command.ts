// `sightline webhook create|list|set|delete|deliveries|redeliver`: a tenant's webhook
// subscriptions, managed by whoever runs the server, as Settings › Webhooks and /v1/webhooks do.
// The signing secret goes to stdout alone on create, so scripts can capture it with $(…);
// everything meant for people goes to stderr. Deliveries are sent by the running server's
// dispatcher, which picks up what these commands queue within a second.
import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import { AppError } from '../core/errors.js';
import { openDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { cliActor } from '../identity/principal.js';
import { requireTenantByCodeName } from '../identity/tenants/tenant-service.js';
import { eventTypes } from '../webhooks/webhook-events.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliver,
  updateWebhook,
  type WebhookContext,
  type WebhookView,
} from '../webhooks/webhook-service.js';
import { webhookPolicy } from '../app/reactions.js';
import type { SettingName } from '../config/config.js';
import { addSettingOptions, parsePositiveInteger, settingValues, storageSettings } from './options.js';

/** The storage, and the target rules a URL is checked against (the server's, when given the same). */
const webhookSettings: SettingName[] = [
  ...storageSettings,
  'webhookAllowLoopback',
  'webhookAllowedNetworks',
  'webhookRetryWindow',
];

const MAX_DELIVERIES_SHOWN = 500;

const createHelp = `
Output:
  stdout  the signing secret alone (whsec_…): SECRET=$(sightline webhook create …)
  stderr  the webhook's id, URL and events, and a reminder that the secret is shown this once.

Events: ${eventTypes.join(', ')} (comma-separated, or all).
Targets are https:// URLs on public addresses; loopback and other networks need the server's
--webhook-allow-loopback / --webhook-allowed-networks, given here too (docs/webhooks.md).

Example:
  sightline webhook create --tenant acme --url https://hooks.example.com/sightline --events case.created,case.closed`;

async function withTenant<T>(options: Record<string, unknown>, work: (ctx: WebhookContext) => Promise<T>): Promise<T> {
  const config = loadConfig(settingValues(options, webhookSettings));
  const database = await openDatabase(config, { existing: true });
  try {
    await migrateToLatest(database);
    const tenant = await requireTenantByCodeName(database.db, String(options.tenant));
    return await work({
      db: database.db,
      tenantId: tenant.id,
      actor: cliActor,
      ip: null,
      policy: webhookPolicy(config),
      retryWindowMs: config.webhookRetryWindow,
    });
  } finally {
    await database.close();
  }
}

function eventList(value: unknown): string[] {
  const names = String(value)
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.length === 1 && names[0] === 'all' ? [...eventTypes] : names;
}

function line(webhook: WebhookView): string {
  const state = webhook.enabled ? 'enabled' : `disabled (${webhook.disabled_reason ?? 'manual'})`;
  return `${webhook.id}\t${webhook.url}\t${webhook.events.join(',')}\t${state}\t${webhook.description}`;
}

export function registerWebhook(program: Command): void {
  const command = program.command('webhook').description("Manage a tenant's webhook subscriptions (outbound events)");

  addSettingOptions(
    command
      .command('create')
      .description('Subscribe a URL to events and print its signing secret (shown this once)')
      .requiredOption('--tenant <code_name>', 'tenant the webhook belongs to')
      .requiredOption('--url <url>', 'where events are POSTed (https://…)')
      .requiredOption('--events <list>', `comma-separated: ${eventTypes.join(', ')}; or all`)
      .option('--description <text>', 'what it is for (at most 200 characters)')
      .option('--disabled', 'create it turned off')
      .addHelpText('after', createHelp),
    webhookSettings,
  ).action(async (options: Record<string, unknown>) => {
    const created = await withTenant(options, (ctx) =>
      createWebhook(ctx, {
        url: String(options.url),
        events: eventList(options.events),
        ...(typeof options.description === 'string' ? { description: options.description } : {}),
        ...(options.disabled === true ? { enabled: false } : {}),
      }),
    );
    process.stderr.write(
      `created webhook ${created.webhook.id} → ${created.webhook.url}\nevents: ${created.webhook.events.join(', ')}\n` +
        'The signing secret is on stdout. It is shown this once: store it where the receiver verifies signatures.\n',
    );
    process.stdout.write(`${created.secret}\n`);
  });

  addSettingOptions(
    command
      .command('list')
      .description("List the tenant's webhooks: id, URL, events, state, description")
      .requiredOption('--tenant <code_name>', 'tenant whose webhooks to list')
      .option('--json', 'one JSON object per line'),
    storageSettings,
  ).action(async (options: Record<string, unknown>) => {
    const webhooks = await withTenant(options, (ctx) => listWebhooks(ctx.db, ctx.tenantId));
    for (const webhook of webhooks)
      process.stdout.write(options.json ? `${JSON.stringify(webhook)}\n` : `${line(webhook)}\n`);
  });

  addSettingOptions(
    command
      .command('set <webhook_id>')
      .description('Change a webhook; --enable resumes its waiting deliveries (and one turned off for failing)')
      .requiredOption('--tenant <code_name>', 'tenant the webhook belongs to')
      .option('--url <url>', 'a new target URL')
      .option('--events <list>', 'the new event list (replaces the old)')
      .option('--description <text>', 'a new description')
      .option('--enable', 'turn it on')
      .option('--disable', 'turn it off (deliveries wait until it is turned on again)'),
    webhookSettings,
  ).action(async (id: string, options: Record<string, unknown>) => {
    if (options.enable === true && options.disable === true)
      throw new AppError('invalid_request', 'give --enable or --disable, not both');
    const changes = {
      ...(typeof options.url === 'string' ? { url: options.url } : {}),
      ...(options.events !== undefined ? { events: eventList(options.events) } : {}),
      ...(typeof options.description === 'string' ? { description: options.description } : {}),
      ...(options.enable === true ? { enabled: true } : options.disable === true ? { enabled: false } : {}),
    };
    if (Object.keys(changes).length === 0)
      throw new AppError(
        'invalid_request',
        'nothing to change: give --url, --events, --description, --enable or --disable',
      );
    const changed = await withTenant(options, (ctx) => updateWebhook(ctx, id, changes));
    process.stdout.write(`${line(changed)}\n`);
  });

  addSettingOptions(
    command
      .command('delete <webhook_id>')
      .description('Delete a webhook: nothing more is sent to it, its delivery log goes with it')
      .requiredOption('--tenant <code_name>', 'tenant the webhook belongs to'),
    storageSettings,
  ).action(async (id: string, options: Record<string, unknown>) => {
    await withTenant(options, (ctx) => deleteWebhook(ctx, id));
    process.stderr.write(`deleted webhook ${id}\n`);
  });

  addSettingOptions(
    command
      .command('deliveries <webhook_id>')
      .description("A webhook's delivery log, newest first: status, attempts, response code, latency, last error")
      .requiredOption('--tenant <code_name>', 'tenant the webhook belongs to')
      .option('--limit <n>', `how many (1–${MAX_DELIVERIES_SHOWN})`, '50')
      .option('--json', 'one JSON object per line'),
    storageSettings,
  ).action(async (id: string, options: Record<string, unknown>) => {
    const limit = parsePositiveInteger('--limit', String(options.limit)) ?? 50;
    if (limit > MAX_DELIVERIES_SHOWN)
      throw new AppError('invalid_request', `--limit must be at most ${MAX_DELIVERIES_SHOWN}; got ${limit}`);
    const { deliveries } = await withTenant(options, async (ctx) => {
      await getWebhook(ctx.db, ctx.tenantId, id);
      return listWebhookDeliveries(ctx.db, ctx.tenantId, id, { limit });
    });
    for (const d of deliveries)
      process.stdout.write(
        options.json
          ? `${JSON.stringify(d)}\n`
          : `${d.id}\t${d.event_type}\t${d.status}\t${d.attempts}\t${d.response_status ?? '-'}\t${d.latency_ms ?? '-'}ms\t${d.last_error ?? ''}\n`,
      );
  });

  addSettingOptions(
    command
      .command('redeliver <webhook_id> <delivery_id>')
      .description(
        "Send a delivery's event again (same event id, so receivers can drop the repeat), with a fresh retry window",
      )
      .requiredOption('--tenant <code_name>', 'tenant the webhook belongs to'),
    webhookSettings,
  ).action(async (webhookId: string, deliveryId: string, options: Record<string, unknown>) => {
    const delivery = await withTenant(options, (ctx) => redeliver(ctx, webhookId, deliveryId));
    process.stdout.write(`${delivery.id}\n`);
    process.stderr.write(`queued delivery ${delivery.id} of event ${delivery.event_id}; the running server sends it\n`);
  });
}
