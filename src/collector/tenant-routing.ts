// Which tenant a collector request belongs to: the Host header `<code_name>-collector.<domain>`
// names it; any other Host goes to the configured default tenant (so `curl 127.0.0.1:8080`
// works locally). Lookups are cached briefly: the collector resolves a tenant per request.
import type { Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import { AppError } from '../errors.js';
import { findTenantByCodeName } from '../identity/tenant-store.js';

export interface CollectorTenant {
  id: number;
  codeName: string;
}

interface CacheEntry {
  tenant: CollectorTenant | undefined;
  expires: number;
}

const FOUND_TTL_MS = 60_000;
const MISSING_TTL_MS = 2_000;
const MAX_CACHE_ENTRIES = 10_000;

export class CollectorTenants {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly suffix: string;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly settings: { baseDomain: string; defaultTenant: string },
  ) {
    this.suffix = `-collector.${settings.baseDomain}`;
  }

  /** The code name a Host header addresses, or undefined when it is not a collector address. */
  codeNameOf(host: string | undefined): string | undefined {
    if (!host) return undefined;
    const name = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    if (!name.endsWith(this.suffix)) return undefined;
    const codeName = name.slice(0, -this.suffix.length);
    return codeName === '' || codeName.includes('.') ? undefined : codeName;
  }

  async resolve(host: string | undefined): Promise<CollectorTenant> {
    const addressed = this.codeNameOf(host);
    const codeName = addressed ?? this.settings.defaultTenant;
    if (codeName === '') {
      throw new AppError('unknown_collector', `no collector is served at ${JSON.stringify(host ?? '')}; post to https://<code_name>${this.suffix}/log_sink`);
    }
    const tenant = await this.lookup(codeName);
    if (tenant) return tenant;
    throw new AppError(
      'unknown_collector',
      addressed
        ? `no tenant has the collector address ${addressed}${this.suffix}; check the collector URL issued to you`
        : `the default tenant ${JSON.stringify(codeName)} does not exist; post to https://<code_name>${this.suffix}/log_sink`,
    );
  }

  private async lookup(codeName: string): Promise<CollectorTenant | undefined> {
    const now = Date.now();
    const cached = this.cache.get(codeName);
    if (cached && cached.expires > now) return cached.tenant;
    const row = await findTenantByCodeName(this.db, codeName);
    const tenant = row ? { id: row.id, codeName: row.code_name } : undefined;
    if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.clear();
    this.cache.set(codeName, { tenant, expires: now + (tenant ? FOUND_TTL_MS : MISSING_TTL_MS) });
    return tenant;
  }
}
