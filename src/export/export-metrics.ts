// The export's Prometheus metrics: what it wrote per tenant, its failed passes, and how far
// behind it is (the start of the oldest hour not yet written, as an age).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { HourExport } from './hour-export.js';

export interface ExportMetrics {
  written(tenant: string, hour: HourExport): void;
  failed(): void;
  behind(ms: number): void;
}

export function exportMetrics(registry: Registry): ExportMetrics {
  const records = new Counter({
    name: 'sightline_export_records_total',
    help: 'Raw records and findings written to object storage, per tenant and kind (telemetry, findings).',
    labelNames: ['tenant', 'kind'] as const,
    registers: [registry],
  });
  const files = new Counter({
    name: 'sightline_export_files_total',
    help: 'Files written to object storage (data parts and manifests).',
    registers: [registry],
  });
  const failures = new Counter({
    name: 'sightline_export_failures_total',
    help: 'Export passes that failed (the next pass, after a backoff, carries on where it stopped).',
    registers: [registry],
  });
  const lag = new Gauge({
    name: 'sightline_export_behind_seconds',
    help: 'Age of the oldest hour not yet written to object storage, as of the last pass.',
    registers: [registry],
  });
  return {
    written: (tenant, hour) => {
      records.inc({ tenant, kind: 'telemetry' }, hour.records);
      records.inc({ tenant, kind: 'findings' }, hour.findings);
      files.inc(hour.files.length === 0 ? 0 : hour.files.length + 1);
    },
    failed: () => failures.inc(),
    behind: (ms) => lag.set(Math.max(0, ms) / 1000),
  };
}
