// Tenants (customer organisations): creation with a validated code name, the default tenant made
// on first start, and the collector address each tenant is issued.
import type { SummaryProviderName } from '../../config/config.js';
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { codeNameRule, isValidCodeName } from '../../core/code-name.js';
import { recordAudit } from '../audit/audit-service.js';
import type { AuditActor } from '../principal.js';
import { countTenants, findTenantByCodeName, insertTenant, updateTenant, type TenantRow } from './tenant-store.js';

export interface Tenant {
  id: number;
  codeName: string;
  name: string;
  createdAt: string;
}

export function presentTenant(row: TenantRow): Tenant {
  return { id: row.id, codeName: row.code_name, name: row.name, createdAt: new Date(row.created_at).toISOString() };
}

/** A tenant as the API shows it. */
export interface TenantResource {
  code_name: string;
  name: string;
  created_at: string;
  collector_url: string;
  observation_write_approved: boolean;
  observation_write_approved_at: string | null;
  ai_summaries: 'on' | 'off';
  summary_provider: string | null;
  summary_provider_in_effect: string;
}

/** `deploymentProvider`: the server's summary provider, in effect where the tenant names none. */
export function presentTenantResource(
  row: TenantRow,
  address: CollectorAddressSettings,
  deploymentProvider: SummaryProviderName,
): TenantResource {
  return {
    code_name: row.code_name,
    name: row.name,
    created_at: new Date(row.created_at).toISOString(),
    collector_url: collectorUrl(address, row.code_name),
    observation_write_approved: row.observation_write_approved_at !== null,
    observation_write_approved_at:
      row.observation_write_approved_at === null ? null : new Date(row.observation_write_approved_at).toISOString(),
    ai_summaries: row.ai_summaries_enabled === 1 ? 'on' : 'off',
    summary_provider: row.summary_provider,
    summary_provider_in_effect: row.summary_provider ?? deploymentProvider,
  };
}

export interface TenantChanges {
  name?: string;
  observationWriteApproved?: boolean;
  /** AI case summaries: opting out (off) makes them unavailable; on restores them. */
  aiSummaries?: 'on' | 'off';
  /** The tenant's summary provider; null: the deployment's. */
  summaryProvider?: 'builtin' | 'openai' | 'anthropic' | null;
}

/** The tenant with this code name; a 404 `tenant_not_found` when there is none. */
export async function requireTenantByCodeName(db: Kysely<Tables>, codeName: string): Promise<TenantRow> {
  const row = await findTenantByCodeName(db, codeName);
  if (!row) throw new AppError('tenant_not_found', `no tenant has the code name ${JSON.stringify(codeName)}`);
  return row;
}

/**
 * What features above identity do when a tenant's settings change, inside the same transaction.
 * The composition root wires them (app/reactions.ts), so identity never imports those features.
 */
export interface TenantReactions {
  /** The tenant opted out of AI summaries: the model input and output cached for it are dropped. */
  aiSummariesTurnedOff(trx: Transaction<Tables>, tenantId: number): Promise<void>;
}

/** Operators rename tenants and grant or withdraw the approval to write observations. */
export async function changeTenant(
  db: Kysely<Tables>,
  codeName: string,
  changes: TenantChanges,
  audit: { actor: AuditActor; ip: string | null },
  reactions: TenantReactions,
): Promise<TenantRow> {
  const row = await requireTenantByCodeName(db, codeName);
  const update: Parameters<typeof updateTenant>[2] = {};
  const changed: Record<string, { from: unknown; to: unknown }> = {};
  const name = changes.name?.trim();
  if (name !== undefined && name !== row.name) {
    if (name === '' || name.length > 200)
      throw new AppError('invalid_request', 'name must be 1 to 200 characters', { extensions: { field: 'name' } });
    update.name = name;
    changed.name = { from: row.name, to: name };
  }
  const approved = row.observation_write_approved_at !== null;
  if (changes.observationWriteApproved !== undefined && changes.observationWriteApproved !== approved) {
    update.observation_write_approved_at = changes.observationWriteApproved ? Date.now() : null;
    changed.observation_write_approved = { from: approved, to: changes.observationWriteApproved };
  }
  const summaries = row.ai_summaries_enabled === 1 ? 'on' : 'off';
  if (changes.aiSummaries !== undefined && changes.aiSummaries !== summaries) {
    update.ai_summaries_enabled = changes.aiSummaries === 'on' ? 1 : 0;
    changed.ai_summaries = { from: summaries, to: changes.aiSummaries };
  }
  if (changes.summaryProvider !== undefined && changes.summaryProvider !== row.summary_provider) {
    update.summary_provider = changes.summaryProvider;
    changed.summary_provider = { from: row.summary_provider, to: changes.summaryProvider };
  }
  if (Object.keys(changed).length === 0) return row;
  await db.transaction().execute(async (trx) => {
    await updateTenant(trx, row.id, update);
    if (update.ai_summaries_enabled === 0) await reactions.aiSummariesTurnedOff(trx, row.id);
    await recordAudit(trx, {
      tenantId: row.id,
      action: 'tenant.settings_changed',
      actor: audit.actor,
      ip: audit.ip,
      details: { changes: changed },
    });
  });
  return { ...row, ...update };
}

export async function createTenant(db: Kysely<Tables>, input: { codeName: string; name?: string }): Promise<Tenant> {
  if (!isValidCodeName(input.codeName)) {
    throw new AppError('invalid_code_name', `code name ${JSON.stringify(input.codeName)} ${codeNameRule}`);
  }
  // A blank name is no name: the code name stands in.
  const name = input.name?.trim() ?? '';
  const row = await insertTenant(db, {
    codeName: input.codeName,
    name: name === '' ? input.codeName : name,
    createdAt: Date.now(),
  });
  if (!row)
    throw new AppError('tenant_exists', `a tenant with code name ${JSON.stringify(input.codeName)} already exists`);
  return presentTenant(row);
}

/**
 * On first start with an empty database, create the default tenant so a newcomer can post logs
 * at once. Returns the tenant created, or undefined when tenants already existed.
 */
export async function ensureFirstTenant(db: Kysely<Tables>, codeName: string): Promise<Tenant | undefined> {
  if (codeName === '' || (await countTenants(db)) > 0) return undefined;
  const row = await insertTenant(db, { codeName, name: 'Demo', createdAt: Date.now() });
  return row ? presentTenant(row) : undefined;
}

export interface CollectorAddressSettings {
  baseDomain: string;
  /** Where clients reach the server (config/public-url.ts): its scheme and port are the collector's. */
  publicUrl: string;
}

/**
 * The collector URL issued to a tenant: `<scheme>://<code_name>-collector.<domain>[:<port>]`,
 * on the server's public scheme and port. On the local default (`localhost`) it works on this
 * machine as printed, since every `*.localhost` name resolves to the loopback address.
 */
export function collectorUrl(settings: CollectorAddressSettings, codeName: string): string {
  const base = new URL(settings.publicUrl);
  return `${base.protocol}//${codeName}-collector.${settings.baseDomain}${base.port ? `:${base.port}` : ''}`;
}
