// Tenants (customer organisations): creation with a validated code name, the default tenant made
// on first start, and the collector address each tenant is issued.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { AppError } from '../errors.js';
import { codeNameRule, isValidCodeName } from './code-name.js';
import { countTenants, insertTenant, type TenantRow } from './tenant-store.js';

export interface Tenant {
  id: number;
  codeName: string;
  name: string;
  createdAt: string;
}

export function presentTenant(row: TenantRow): Tenant {
  return { id: row.id, codeName: row.code_name, name: row.name, createdAt: new Date(row.created_at).toISOString() };
}

export async function createTenant(db: Kysely<Tables>, input: { codeName: string; name?: string }): Promise<Tenant> {
  if (!isValidCodeName(input.codeName)) {
    throw new AppError('invalid_code_name', `code name ${JSON.stringify(input.codeName)} ${codeNameRule}`);
  }
  const row = await insertTenant(db, { codeName: input.codeName, name: input.name?.trim() || input.codeName, createdAt: Date.now() });
  if (!row) throw new AppError('tenant_exists', `a tenant with code name ${JSON.stringify(input.codeName)} already exists`);
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
  port: number;
  tlsCert: string;
}

/**
 * The collector URL issued to a tenant: `https://<code_name>-collector.<domain>`. On the local
 * default (`localhost`, no TLS) it is the plain-HTTP address that works on this machine, since
 * every `*.localhost` name resolves to the loopback address.
 */
export function collectorUrl(settings: CollectorAddressSettings, codeName: string): string {
  const host = `${codeName}-collector.${settings.baseDomain}`;
  const local = settings.baseDomain === 'localhost' && !settings.tlsCert;
  const scheme = local ? 'http' : 'https';
  const defaultPort = local ? 80 : 443;
  const port = local && settings.port !== defaultPort ? `:${settings.port}` : '';
  return `${scheme}://${host}${port}`;
}
