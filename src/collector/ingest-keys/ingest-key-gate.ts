// The collector's check of ingest keys, on the hot path: each tenant's policy and key hashes are
// held in memory, so a warm check is one SHA-256 and a map lookup, never a query. The API's
// changes in this process drop the tenant's entry at once; changes made elsewhere (the CLI,
// other nodes) are picked up when the entry is reloaded, every RELOAD_MS. Where several nodes
// share a PostgreSQL database, each also reads the tenant's key version (one row, bumped with
// every change) once per `versionCheckMs` and reloads when it moved: a key deleted through any
// node stops opening every node's collector within that bound (docs/scale.md, Stateless API nodes).
// A key's last use is written at most once a minute. An unknown collector address is answered
// exactly as a tenant that requires a key answers a request without a valid one, so such a
// tenant's address cannot be told from one that does not exist.
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { AppError } from '../../core/errors.js';
import { sameSecret, sha256 } from '../../core/secrets.js';
import { presentedToken } from '../../identity/auth.js';
import { ingestKeyFormat } from './ingest-key-service.js';
import { readIngestKeyVersion, readIngestPolicy, recordIngestKeyUse, tenantKeyHashes } from './ingest-key-store.js';

export const RELOAD_MS = 10_000;
/** How stale a node's view of a tenant's keys may be on PostgreSQL (docs/scale.md, Stateless API nodes). */
export const VERSION_CHECK_MS = 1_000;
const LAST_USE_RESOLUTION_MS = 60_000;
const PROBE_TTL_MS = 30_000;
const MAX_PROBES = 1_000;

export const INGEST_KEY_CHALLENGE = 'Bearer realm="sightline-collector", Basic realm="sightline-collector"';

interface KnownKey {
  id: string;
  hash: string;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

interface TenantKeys {
  requireKey: boolean;
  byHash: Map<string, KnownKey>;
  loadedAt: number;
  /** The tenant's key version read before the keys, and when it was last confirmed. */
  version: number;
  checkedAt: number;
}

/** The one answer to a sender without a valid key, whatever the address: no detail differs. */
export function ingestKeyRefusal(authorization: string | undefined): AppError {
  const headers = { 'WWW-Authenticate': INGEST_KEY_CHALLENGE };
  return presentedToken(authorization) === undefined
    ? new AppError(
        'ingest_key_required',
        'this collector needs an ingest key: send it as "Authorization: Bearer <key>", or as the password of HTTP Basic authentication (any user name); check the collector address too',
        { headers },
      )
    : new AppError(
        'invalid_ingest_key',
        "the ingest key sent does not open this collector (mistyped, deleted, expired, or another tenant's); check the key and the collector address",
        { headers },
      );
}

export class IngestKeyGate {
  private readonly tenants = new Map<number, TenantKeys>();
  private readonly loading = new Map<number, Promise<TenantKeys>>();
  /** Bumped when a tenant's entry is dropped: a load that started before must not be kept. */
  private readonly generations = new Map<number, number>();
  private readonly probes = new Map<string, { tenantId: number; expires: number }>();

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly onError: (error: unknown) => void,
    /** Compare the shared key version this often (ms); undefined: one process, never. */
    private readonly versionCheckMs?: number,
  ) {}

  /** Throws the 401 refusal unless the request may send records to this tenant's collector. */
  async admit(tenantId: number, authorization: string | undefined, now = Date.now()): Promise<void> {
    const keys = await this.keysOf(tenantId, now);
    const presented = presentedToken(authorization);
    const key = presented === undefined ? undefined : this.match(keys, tenantId, presented, now);
    if (key === 'probe') return;
    if (key) await this.noteUse(tenantId, key, now);
    else if (keys.requireKey) throw ingestKeyRefusal(authorization);
  }

  /** The tenant's keys or policy changed: the next request reads them again. */
  forget(tenantId: number): void {
    this.tenants.delete(tenantId);
    this.loading.delete(tenantId);
    this.generations.set(tenantId, (this.generations.get(tenantId) ?? 0) + 1);
  }

  /**
   * A key that opens this tenant's collector once, within 30 seconds, held only in this
   * process's memory: the collector test sends its record with it when keys are required.
   */
  issueProbe(tenantId: number, now = Date.now()): string {
    for (const [hash, probe] of this.probes) if (probe.expires <= now) this.probes.delete(hash);
    if (this.probes.size >= MAX_PROBES) throw new Error('too many collector test keys outstanding');
    const value = ingestKeyFormat.generate();
    this.probes.set(sha256(value), { tenantId, expires: now + PROBE_TTL_MS });
    return value;
  }

  private match(keys: TenantKeys, tenantId: number, value: string, now: number): KnownKey | 'probe' | undefined {
    if (!ingestKeyFormat.isWellFormed(value)) return undefined;
    const hash = sha256(value);
    const probe = this.probes.get(hash);
    if (probe) {
      this.probes.delete(hash);
      return probe.tenantId === tenantId && probe.expires > now ? 'probe' : undefined;
    }
    const key = keys.byHash.get(hash);
    if (!key || !sameSecret(key.hash, hash)) return undefined;
    return key.expiresAt !== null && key.expiresAt <= now ? undefined : key;
  }

  private async noteUse(tenantId: number, key: KnownKey, now: number): Promise<void> {
    if (key.lastUsedAt !== null && now - key.lastUsedAt < LAST_USE_RESOLUTION_MS) return;
    key.lastUsedAt = now;
    try {
      await recordIngestKeyUse(this.db, tenantId, key.id, now);
    } catch (error) {
      // The last-use time is a hint for people; a failed write must not refuse records.
      this.onError(error);
    }
  }

  private keysOf(tenantId: number, now: number): TenantKeys | Promise<TenantKeys> {
    const known = this.tenants.get(tenantId);
    const fresh =
      known &&
      now - known.loadedAt < RELOAD_MS &&
      (this.versionCheckMs === undefined || now - known.checkedAt < this.versionCheckMs);
    if (known && fresh) return known;
    let pending = this.loading.get(tenantId);
    if (!pending) {
      pending = (
        known && now - known.loadedAt < RELOAD_MS ? this.recheck(tenantId, known, now) : this.load(tenantId, now)
      ).finally(() => {
        if (this.loading.get(tenantId) === pending) this.loading.delete(tenantId);
      });
      this.loading.set(tenantId, pending);
    }
    return pending;
  }

  /** Keeps the entry while the tenant's key version has not moved; reloads it when it has. */
  private async recheck(tenantId: number, known: TenantKeys, now: number): Promise<TenantKeys> {
    if ((await readIngestKeyVersion(this.db, tenantId)) !== known.version) return this.load(tenantId, now);
    known.checkedAt = now;
    return known;
  }

  private async load(tenantId: number, now: number): Promise<TenantKeys> {
    const generation = this.generations.get(tenantId) ?? 0;
    // The version first: a change committed after it is read moves it again, so it is not missed.
    const version = await readIngestKeyVersion(this.db, tenantId);
    const [policy, rows] = await Promise.all([readIngestPolicy(this.db, tenantId), tenantKeyHashes(this.db, tenantId)]);
    const keys: TenantKeys = {
      requireKey: policy.requireKey,
      byHash: new Map(
        rows.map((row) => [
          row.key_hash,
          { id: row.id, hash: row.key_hash, expiresAt: row.expires_at, lastUsedAt: row.last_used_at },
        ]),
      ),
      loadedAt: now,
      version,
      checkedAt: now,
    };
    if ((this.generations.get(tenantId) ?? 0) === generation) this.tenants.set(tenantId, keys);
    return keys;
  }
}
