// Which tenant a collector request belongs to: the Host header `<code_name>-collector.<domain>`
// names it; any other Host goes to the configured default tenant (so `curl 127.0.0.1:8080`
// works locally). An address no tenant has (unknown, malformed, or no default tenant) finds
// none: the collector then answers exactly as a tenant requiring an ingest key answers a
// request without a valid one (collector/ingest-key-gate.ts), so a sender without a key cannot
// tell such a tenant's address from an unknown one. Lookups are cached briefly: the collector
// resolves a tenant per request.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { findTenantByCodeName } from '../../identity/tenants/tenant-store.js';
import { isValidCodeName } from '../../core/code-name.js';

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
/** Misses are kept apart and bounded: random Host headers must not evict real tenants. */
const MAX_MISSING_ENTRIES = 1_000;

export class CollectorTenants {
  private readonly found = new Map<string, CacheEntry>();
  private readonly missing = new Map<string, CacheEntry>();
  private readonly suffix: string;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly settings: { baseDomain: string; defaultTenant: string },
  ) {
    this.suffix = `-collector.${settings.baseDomain}`;
  }

  /**
   * What a Host header addresses: `{ codeName }` for `<code_name>-collector.<base-domain>`
   * (the code name may be invalid), or undefined for any other host.
   */
  addressOf(host: string | undefined): { codeName: string } | undefined {
    if (!host) return undefined;
    const name = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    if (!name.endsWith(this.suffix)) return undefined;
    return { codeName: name.slice(0, -this.suffix.length) };
  }

  /**
   * Host header values that are collector addresses, for routes that answer only there (the
   * Elasticsearch-compatible API claims `/`, which is the web UI's on any other host).
   */
  addressPattern(): RegExp {
    const suffix = this.suffix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`^[^.:/]+${suffix}\\.?(?::\\d+)?$`, 'i');
  }

  /** The tenant this Host header addresses, or undefined when there is none. */
  async find(host: string | undefined): Promise<CollectorTenant | undefined> {
    const codeName = this.addressOf(host)?.codeName ?? this.settings.defaultTenant;
    // An invalid code name cannot exist: answer without a database lookup.
    return isValidCodeName(codeName) ? this.lookup(codeName) : undefined;
  }

  private async lookup(codeName: string): Promise<CollectorTenant | undefined> {
    const now = Date.now();
    const cached = this.found.get(codeName) ?? this.missing.get(codeName);
    if (cached && cached.expires > now) return cached.tenant;
    const row = await findTenantByCodeName(this.db, codeName);
    const tenant = row ? { id: row.id, codeName: row.code_name } : undefined;
    if (tenant) {
      this.missing.delete(codeName);
      this.found.set(codeName, { tenant, expires: now + FOUND_TTL_MS });
    } else {
      if (this.missing.size >= MAX_MISSING_ENTRIES) this.missing.clear();
      this.missing.set(codeName, { tenant, expires: now + MISSING_TTL_MS });
    }
    return tenant;
  }
}
