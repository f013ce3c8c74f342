// Keeps a collector node's limiter current: every RELOAD_MS it reloads every tenant's limits (so
// a change made through any node, or the CLI, applies everywhere within that bound) and, where
// several processes share a PostgreSQL database, marks this node alive and counts the collector
// nodes seen within LIVE_MS, by which each node divides the tenants' rates. The embedded single
// process is one node and writes no heartbeat. Changes made through this process apply at once.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { BackgroundLoop } from '../../core/background-loop.js';
import { IngestLimiter, type IngestLimits } from './ingest-limiter.js';
import { limitsOfRow } from './ingest-limit-service.js';
import {
  beatCollectorNode,
  countLiveCollectorNodes,
  forgetCollectorNode,
  listIngestLimits,
} from './ingest-limit-store.js';

export const RELOAD_MS = 2_000;
/** A node not seen for this long no longer takes a share: three beats missed. */
export const LIVE_MS = 3 * RELOAD_MS;
/** Rows of nodes gone this long are removed. */
const FORGET_MS = 3_600_000;

export class IngestLimitSync {
  readonly limiter = new IngestLimiter();
  readonly nodeId = randomUUID();
  private readonly loop: BackgroundLoop;
  /** Bumped by every change applied here: a reload that read the table before it must not undo it. */
  private changes = 0;

  constructor(
    private readonly db: Kysely<Tables>,
    /** Several processes may share the database (PostgreSQL): count them. */
    private readonly shared: boolean,
    onError: (error: unknown) => void,
    private readonly onNodes: (nodes: number) => void = () => undefined,
  ) {
    this.loop = new BackgroundLoop({
      run: async () => {
        await this.refresh();
        return undefined;
      },
      idleMs: RELOAD_MS,
      backoff: { baseMs: RELOAD_MS, maxMs: RELOAD_MS * 5 },
      onError,
    });
  }

  /** Loads the limits (and counts the nodes) once before the collector answers, then keeps at it. */
  async start(): Promise<void> {
    await this.refresh();
    this.loop.start(RELOAD_MS);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    if (this.shared) await forgetCollectorNode(this.db, this.nodeId);
  }

  /** A change made through this process: in effect from the next request. */
  applied(tenantId: number, limits: IngestLimits | undefined): void {
    this.changes++;
    this.limiter.setLimits(tenantId, limits);
  }

  async refresh(now = Date.now()): Promise<void> {
    if (this.shared) {
      await beatCollectorNode(this.db, this.nodeId, now);
      this.limiter.setNodeCount(await countLiveCollectorNodes(this.db, now - LIVE_MS, now - FORGET_MS));
    }
    this.onNodes(this.limiter.nodeCount);
    const changes = this.changes;
    const rows = await listIngestLimits(this.db);
    if (changes !== this.changes) return;
    this.limiter.replaceAll(new Map(rows.map((row) => [row.tenant_id, limitsOfRow(row)])), now);
  }
}
