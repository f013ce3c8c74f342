// The export to object storage. Each pass takes the `exporter` lease (one node exports at a time,
// however many share the database), then writes every hour that has ended at least `delayMs`
// ago, tenant by tenant in id order, saving after each tenant where it got to: a pass stopped
// anywhere (a restart, a lost lease, the store unreachable) is carried on by the next one, which
// writes that tenant's hour again under the same keys. An hour with nothing in it for a tenant
// leaves no files.
import { BackgroundLoop } from '../core/background-loop.js';
import { releaseLease, takeLease } from '../retention/retention-store.js';
import type { ExportMetrics } from './export-metrics.js';
import { exportTenantHour, HOUR_MS, type HourExportDeps } from './hour-export.js';
import { hourDone, openCursor, tenantDone, type ExportCursor } from './export-store.js';
import { tenantsAfter } from './export-reader.js';

export const EXPORTER_LEASE = 'exporter';

export interface ExporterSettings extends HourExportDeps {
  /** Names this destination's progress: the bucket and prefix, and the endpoint. */
  destination: string;
  /** How long after an hour ends it is written. */
  delayMs: number;
  /** The first hour of a destination seen for the first time; null: the current hour. */
  since: number | null;
  holder: string;
  leaseMs: number;
  metrics: ExportMetrics;
  onError(error: unknown): void;
}

export interface ExportPass {
  /** False when another node holds the lease. */
  ran: boolean;
  hours: number;
  records: number;
  findings: number;
  files: number;
}

export class Exporter {
  private readonly loop: BackgroundLoop;
  private stopping = false;

  constructor(private readonly settings: ExporterSettings) {
    this.loop = new BackgroundLoop({
      run: async () => {
        await this.pass(Date.now());
        return undefined;
      },
      idleMs: 60_000,
      backoff: { baseMs: 10_000, maxMs: 600_000 },
      onError: (error) => {
        settings.metrics.failed();
        settings.onError(error);
      },
    });
  }

  start(): void {
    this.stopping = false;
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
  }

  /** Writes every hour due at `now`; the loop runs it each minute, tests call it with their clock. */
  async pass(now: number): Promise<ExportPass> {
    const { db, holder, leaseMs, destination } = this.settings;
    const report: ExportPass = { ran: false, hours: 0, records: 0, findings: 0, files: 0 };
    if (!(await takeLease(db, EXPORTER_LEASE, holder, leaseMs, Date.now()))) return report;
    report.ran = true;
    try {
      let cursor = await openCursor(db, destination, this.settings.since ?? now - (now % HOUR_MS), Date.now());
      while (cursor.hour + HOUR_MS + this.settings.delayMs <= now && !this.stopping) {
        if (!(await this.hour(cursor, report))) return report;
        await hourDone(db, destination, cursor.hour, cursor.hour + HOUR_MS, Date.now());
        cursor = { hour: cursor.hour + HOUR_MS, afterTenantId: 0 };
        report.hours += 1;
      }
      this.settings.metrics.behind(now - cursor.hour);
      return report;
    } finally {
      await releaseLease(db, EXPORTER_LEASE, holder).catch((error: unknown) => this.settings.onError(error));
    }
  }

  /** One hour, from the cursor's tenant on; false when it stopped before the last tenant. */
  private async hour(cursor: ExportCursor, report: ExportPass): Promise<boolean> {
    const { db, destination, holder, leaseMs, metrics } = this.settings;
    for (const tenant of await tenantsAfter(db, cursor.afterTenantId)) {
      if (this.stopping) return false;
      const written = await exportTenantHour(this.settings, tenant, cursor.hour);
      await tenantDone(db, destination, { hour: cursor.hour, afterTenantId: tenant.id }, written, Date.now());
      metrics.written(tenant.code_name, written);
      report.records += written.records;
      report.findings += written.findings;
      report.files += written.files.length;
      // Renewed as it goes: a backfill of many hours outlasts one lease period.
      if (!(await takeLease(db, EXPORTER_LEASE, holder, leaseMs, Date.now()))) return false;
    }
    return true;
  }
}
