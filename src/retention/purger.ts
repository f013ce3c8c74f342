// The background purger. Each pass takes the `purger` lease (one node purges at a time, however
// many run), then for each tenant not under legal hold deletes raw records older than its
// retention in small batches, oldest first, skipping records an open case cites and records the
// log's followers have not processed yet. After each batch it pauses for several times the
// batch's own duration, so writers and searchers keep nearly all of the database's time; on
// SQLite, when nobody else wrote since the previous batch, for at most 100 ms instead. On
// PostgreSQL whole expired day partitions of the table are dropped first (table-partitions.ts).
// Then the same way it deletes finished webhook deliveries and unreferenced events past the
// webhook log's retention. Finally it sweeps the log in chunks to measure each tenant's records,
// bytes and oldest record.
import type { Kysely } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Tables } from '../storage/schema.js';
import type { PurgeThread, RecordPurge } from './purge-port.js';
import { writeTransaction } from '../storage/write-transaction.js';
import { errorMessage } from '../core/errors.js';
import { BackgroundLoop } from '../core/background-loop.js';
import {
  addPurged,
  listTenantsWithRetention,
  readLimits,
  releaseLease,
  saveUsage,
  takeLease,
} from './retention-store.js';
import {
  citedByOpenCases,
  deleteRecords,
  expiredBatch,
  logEnd,
  oldestReceivedAt,
  purgeFloor,
  usageChunk,
  type After,
  type PurgeFloor,
  type UsageRow,
} from './purge-store.js';
import { effectiveDays, DAY_MS } from './retention-rules.js';
import type { RetentionMetrics } from './retention-metrics.js';
import type { UpkeepPass, UpkeepResult } from './table-partitions.js';
import { purgeFinishedDeliveries, purgeUnreferencedEvents } from '../webhooks/webhook-log-retention.js';

export const PURGER_LEASE = 'purger';
/** How often a long purge counts its progress and renews its lease. */
const PROGRESS_MS = 1_000;
/** SQLite: search index pages one reclaim step writes, and the most steps a pass takes. */
const RECLAIM_PAGES = 100;
const RECLAIM_STEPS = 5_000;

export interface PurgerSettings {
  db: Kysely<Tables>;
  /** What the database the purge runs on asks of it (storage port). */
  purge: RecordPurge;
  /** This node's name in the lease. */
  holder: string;
  /**
   * Records per delete transaction. On SQLite this is where a purge starts: the batch then
   * doubles while a batch holds the write lock for less than `targetHoldMs` (up to
   * `maxBatchSize`), and halves when one holds it for more than twice that, down to it again.
   */
  batchSize?: number;
  maxBatchSize?: number;
  targetHoldMs?: number;
  /** Pause after a batch, as a multiple of the batch's duration (at least minPauseMs). */
  pauseFactor?: number;
  minPauseMs?: number;
  /**
   * SQLite: the longest pause after a batch when nobody else wrote since the previous one (the
   * purge then takes most of an idle database's time, and gives way again once anyone writes).
   */
  idlePauseMs?: number;
  /** Sequences per usage-sweep query. */
  sweepChunk?: number;
  leaseMs?: number;
  metrics?: RetentionMetrics;
  /** Called for a failed pass (the loop goes on). */
  onError?: (error: unknown) => void;
  /** PostgreSQL: drops whole expired day partitions and keeps future ones ready (table-partitions.ts). */
  tablePartitions?: (pass: UpkeepPass) => Promise<UpkeepResult>;
  /** How long finished webhook deliveries and their events are kept (default 30 days). */
  webhookLogMs?: number;
}

export interface PassReport {
  /** False when another node holds the lease. */
  ran: boolean;
  purged: Record<string, number>;
  held: string[];
  /** Records dropped with whole day partitions (PostgreSQL). */
  partitionRecords: number;
  /** Expired day partitions left for the next pass: their detach lock stayed busy (PostgreSQL). */
  busyPartitions: string[];
  /** Webhook deliveries and events deleted, per tenant code name. */
  webhookLog: Record<string, { deliveries: number; events: number }>;
}

export class RetentionPurger {
  private readonly batchSize: number;
  private readonly maxBatchSize: number;
  private readonly targetHoldMs: number;
  private readonly pauseFactor: number;
  private readonly minPauseMs: number;
  private readonly idlePauseMs: number;
  private readonly sweepChunk: number;
  private readonly leaseMs: number;
  private readonly webhookLogMs: number;
  private loop: BackgroundLoop | undefined;
  private stopping = false;
  /** Where the port gives deletes a thread of their own (SQLite): the thread, started when first used. */
  private readonly sqlite: PurgeThread | undefined;

  constructor(private readonly settings: PurgerSettings) {
    this.batchSize = settings.batchSize ?? 1_000;
    this.maxBatchSize = Math.max(this.batchSize, settings.maxBatchSize ?? 16_000);
    this.targetHoldMs = settings.targetHoldMs ?? 40;
    this.pauseFactor = settings.pauseFactor ?? 9;
    this.minPauseMs = settings.minPauseMs ?? 20;
    // SQLite's busy handler sleeps at most 100 ms between tries: a pause that long lets in a
    // writer that started waiting during the batch, which then makes the purge contended.
    this.idlePauseMs = settings.idlePauseMs ?? 100;
    this.sweepChunk = settings.sweepChunk ?? 20_000;
    this.leaseMs = settings.leaseMs ?? 60_000;
    this.webhookLogMs = settings.webhookLogMs ?? 30 * DAY_MS;
    this.sqlite = settings.purge.thread?.();
  }

  /**
   * Runs a pass every `intervalMs` (the wait between the end of one and the start of the next),
   * the first one interval after start; a failed pass is retried an interval later too.
   */
  start(intervalMs: number): void {
    this.loop = new BackgroundLoop({
      run: async () => {
        await this.runPass();
        return undefined;
      },
      idleMs: intervalMs,
      backoff: { baseMs: intervalMs, maxMs: intervalMs },
      onError: (error) => this.settings.onError?.(error),
    });
    this.loop.start(intervalMs);
  }

  /** Waits for the pass under way, which ends after the batch it is on (the next pass resumes). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop?.stop();
    await this.sqlite?.close();
  }

  /** One pass over every tenant, if this node gets the lease. */
  async runPass(now = Date.now()): Promise<PassReport> {
    const { db, holder } = this.settings;
    const report: PassReport = {
      ran: false,
      purged: {},
      held: [],
      partitionRecords: 0,
      busyPartitions: [],
      webhookLog: {},
    };
    if (!(await takeLease(db, PURGER_LEASE, holder, this.leaseMs, Date.now()))) return report;
    report.ran = true;
    try {
      const limits = await readLimits(db);
      const tenants = await listTenantsWithRetention(db);
      const cutoffs = new Map<number, number>();
      const held = new Set<number>();
      for (const tenant of tenants) {
        if (tenant.legal_hold === 1) held.add(tenant.id);
        cutoffs.set(tenant.id, now - effectiveDays(tenant.telemetry_days, limits) * DAY_MS);
      }
      const byId = new Map(tenants.map((tenant) => [tenant.id, tenant]));
      const upkeep = await this.settings.tablePartitions?.({
        now,
        cutoffs,
        held,
        // Counted day by day, as the row deletes count batch by batch.
        onDropped: async (counted) => {
          for (const [tenantId, records] of counted) {
            const tenant = byId.get(tenantId);
            if (tenant && records > 0) await this.count(tenant, records);
          }
        },
        pace: (tookMs) => sleep(Math.max(this.minPauseMs, tookMs * this.pauseFactor)),
      });
      const dropped = upkeep?.dropped ?? new Map<number, number>();
      for (const count of dropped.values()) report.partitionRecords += count;
      report.busyPartitions = upkeep?.busy ?? [];
      const floor = await purgeFloor(db, this.settings.purge);
      for (const tenant of tenants) {
        if (this.stopping) break;
        if (held.has(tenant.id)) {
          report.held.push(tenant.code_name);
          continue;
        }
        const cutoff = now - effectiveDays(tenant.telemetry_days, limits) * DAY_MS;
        const fromDayPartitions = dropped.get(tenant.id) ?? 0;
        const purged = fromDayPartitions + (await this.purgeTenant(tenant, cutoff, floor));
        report.purged[tenant.code_name] = purged;
        report.webhookLog[tenant.code_name] = await this.purgeWebhookLog(tenant.id, now - this.webhookLogMs);
      }
      if (this.sqlite && Object.values(report.purged).some((count) => count > 0)) await this.reclaimSearchIndex();
      if (!this.stopping) await this.measure(tenants.map((tenant) => ({ id: tenant.id, code: tenant.code_name })));
    } finally {
      await releaseLease(db, PURGER_LEASE, holder).catch((error: unknown) => this.settings.onError?.(error));
    }
    return report;
  }

  /** Counted batch by batch, so the figures show a long purge's progress. */
  private async count(tenant: { id: number; code_name: string }, purged: number): Promise<void> {
    await addPurged(this.settings.db, tenant.id, purged, Date.now());
    this.settings.metrics?.purged(tenant.code_name, purged);
  }

  private async purgeTenant(
    tenant: { id: number; code_name: string },
    cutoff: number,
    floor: PurgeFloor,
  ): Promise<number> {
    const { db, purge, holder } = this.settings;
    const tenantId = tenant.id;
    const cited = await citedByOpenCases(db, tenantId);
    let after: After | undefined;
    let purged = 0;
    // Progress is counted and the lease renewed about once a second, not per batch: each is a
    // write of its own on the server's connection, which waits for the record writer's lock.
    let uncounted = 0;
    let countedAt = performance.now();
    let size = this.batchSize;
    // This pass's own writes also count as another connection's commit for the thread: its
    // progress counts and lease renewals, and before the first batch those of the tenant before
    // (or the pass's start), which would pace that batch as though ingest were running.
    let wrote = true;
    const progress = async (): Promise<boolean> => {
      if (uncounted > 0) await this.count(tenant, uncounted);
      uncounted = 0;
      countedAt = performance.now();
      wrote = true;
      // Renewed as it goes: a pass over millions of records outlasts one lease period.
      return takeLease(db, PURGER_LEASE, holder, this.leaseMs, Date.now());
    };
    while (!this.stopping) {
      const batch = await expiredBatch(db, tenantId, cutoff, after, floor, size);
      const last = batch.at(-1);
      if (!last) break;
      after = { receivedAt: last.received_at, seq: last.seq };
      const expired = batch.filter((row) => !cited.has(row.seq));
      const started = performance.now();
      let deleted: number;
      let took: number;
      let contended = true;
      if (this.sqlite) {
        // Paced by the time the write lock was held: waiting for it took nothing from writers.
        ({
          deleted,
          heldMs: took,
          contended,
        } = await this.sqlite.delete(
          tenantId,
          expired.map((row) => row.seq),
        ));
        contended &&= !wrote;
        wrote = false;
        // A commit costs about the same whatever its size, so a bigger batch purges more per
        // millisecond of lock; the bound keeps any one wait of the record writer short.
        if (took < this.targetHoldMs && batch.length === size) size = Math.min(this.maxBatchSize, size * 2);
        else if (took > 2 * this.targetHoldMs) size = Math.max(this.batchSize, Math.floor(size / 2));
      } else {
        deleted = await writeTransaction(db, (trx) => deleteRecords(trx, purge, tenantId, expired));
        await purge.reclaimPages(db, Math.max(64, expired.length));
        took = performance.now() - started;
      }
      uncounted += deleted;
      purged += deleted;
      if (performance.now() - countedAt >= PROGRESS_MS && !(await progress())) return purged;
      await this.pause(took, contended);
    }
    await progress();
    return purged;
  }

  /** After a batch: a tenth of the write time when others write, most of it when nobody does. */
  private pause(heldMs: number, contended: boolean): Promise<void> {
    const paced = heldMs * this.pauseFactor;
    return sleep(Math.max(this.minPauseMs, contended ? paced : Math.min(paced, this.idlePauseMs)));
  }

  /**
   * SQLite: rewrites the search index a few pages at a time until the entries this pass
   * deleted (tombstones until then) are gone, paced like the deletes. Cut short (stopping, the
   * lease lost, the step limit), the next pass that deletes anything carries it on.
   */
  private async reclaimSearchIndex(): Promise<void> {
    const sqlite = this.sqlite;
    if (!sqlite) return;
    let renewedAt = performance.now();
    // The pass's own writes since the thread's last batch (progress counts, the webhook log)
    // would read as another connection's commit on the first step.
    let renewed = true;
    for (let step = 0; step < RECLAIM_STEPS && !this.stopping; step++) {
      const { more, heldMs, contended } = await sqlite.reclaim(RECLAIM_PAGES);
      if (!more) return;
      const others = contended && !renewed;
      renewed = false;
      if (performance.now() - renewedAt >= PROGRESS_MS) {
        if (!(await takeLease(this.settings.db, PURGER_LEASE, this.settings.holder, this.leaseMs, Date.now()))) return;
        renewedAt = performance.now();
        renewed = true;
      }
      await this.pause(heldMs, others);
    }
  }

  /** Finished deliveries first: an event goes once no delivery refers to it. */
  private async purgeWebhookLog(tenantId: number, cutoff: number): Promise<{ deliveries: number; events: number }> {
    const { db } = this.settings;
    const purged = { deliveries: 0, events: 0 };
    for (const table of ['deliveries', 'events'] as const) {
      const purge = table === 'deliveries' ? purgeFinishedDeliveries : purgeUnreferencedEvents;
      while (!this.stopping) {
        const started = performance.now();
        const deleted = await writeTransaction(db, (trx) => purge(trx, tenantId, cutoff, this.batchSize));
        purged[table] += deleted;
        if (deleted < this.batchSize) break;
        if (!(await takeLease(db, PURGER_LEASE, this.settings.holder, this.leaseMs, Date.now()))) return purged;
        await sleep(Math.max(this.minPauseMs, (performance.now() - started) * this.pauseFactor));
      }
    }
    return purged;
  }

  /** Sweeps the log in chunks: each tenant's records and bytes; then its oldest record. */
  private async measure(tenants: { id: number; code: string }[]): Promise<void> {
    const { db } = this.settings;
    const end = await logEnd(db);
    const totals = new Map<number, UsageRow>();
    for (let from = 0; from < end && !this.stopping; from += this.sweepChunk) {
      const started = performance.now();
      for (const row of await usageChunk(db, from, from + this.sweepChunk)) {
        const total = totals.get(row.tenant_id) ?? { tenant_id: row.tenant_id, records: 0, bytes: 0 };
        total.records += row.records;
        total.bytes += row.bytes;
        totals.set(row.tenant_id, total);
      }
      // Paced between chunks; none after the last, which ends the sweep.
      if (from + this.sweepChunk < end)
        await sleep(Math.max(this.minPauseMs, (performance.now() - started) * this.pauseFactor));
    }
    if (this.stopping) return;
    const now = Date.now();
    for (const tenant of tenants) {
      const oldest = await oldestReceivedAt(db, tenant.id);
      const total = totals.get(tenant.id);
      await saveUsage(
        db,
        tenant.id,
        { records: total?.records ?? 0, bytes: total?.bytes ?? 0, oldestReceivedAt: oldest },
        now,
      );
      this.settings.metrics?.oldest(tenant.code, oldest);
    }
  }
}

/** For logs: what a failed pass says. */
export function describePassError(error: unknown): string {
  return `retention purge pass failed: ${errorMessage(error)}`;
}
