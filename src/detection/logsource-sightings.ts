// Which logsources a chunk's events produced, per tenant: the detection processor adds every
// event's logsources here and the chunk's commit upserts the result, one row per distinct
// (tenant, logsource) with the newest receive time — never a write per record. ATT&CK coverage
// reads the stored rows to tell live rules from silent ones.
import type { LogSource } from '../telemetry/normalise/event.js';

export interface LogsourceSighting {
  tenantId: number;
  /** '' for a part the logsource does not state. */
  product: string;
  category: string;
  service: string;
  firstSeen: number;
  lastSeen: number;
}

/**
 * Longest part kept. Some parts come from the record itself (an application's product, a Zeek
 * log's name): a longer one is not a logsource name, and is not stored.
 */
export const MAX_PART_LENGTH = 64;

/** Distinct logsources kept per tenant per chunk: a forwarder cannot make a chunk's commit huge. */
export const MAX_PER_TENANT = 256;

export class LogsourceCollector {
  private readonly byTenant = new Map<number, Map<string, LogsourceSighting>>();

  add(tenantId: number, logsources: readonly LogSource[], time: number): void {
    let seen = this.byTenant.get(tenantId);
    if (seen === undefined) {
      seen = new Map();
      this.byTenant.set(tenantId, seen);
    }
    for (const logsource of logsources) {
      const product = logsource.product ?? '';
      const category = logsource.category ?? '';
      const service = logsource.service ?? '';
      const key = `${product}\u0000${category}\u0000${service}`;
      const known = seen.get(key);
      if (known !== undefined) {
        if (time > known.lastSeen) known.lastSeen = time;
        if (time < known.firstSeen) known.firstSeen = time;
        continue;
      }
      if (seen.size >= MAX_PER_TENANT) continue;
      if (product.length > MAX_PART_LENGTH || category.length > MAX_PART_LENGTH || service.length > MAX_PART_LENGTH)
        continue;
      seen.set(key, { tenantId, product, category, service, firstSeen: time, lastSeen: time });
    }
  }

  /**
   * The chunk's sightings, ordered by tenant and logsource: concurrent commits on PostgreSQL
   * then lock rows in the same order and cannot deadlock one another.
   */
  take(): LogsourceSighting[] {
    const out: LogsourceSighting[] = [];
    for (const seen of this.byTenant.values()) out.push(...seen.values());
    this.byTenant.clear();
    return out.sort(
      (a, b) =>
        a.tenantId - b.tenantId ||
        compare(a.product, b.product) ||
        compare(a.category, b.category) ||
        compare(a.service, b.service),
    );
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
