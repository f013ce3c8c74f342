// Retention's Prometheus metrics, registered on the server's registry: records purged and the
// oldest raw record kept, per tenant (tenants are few; their code names are the labels).
import { Counter, Gauge, type Registry } from 'prom-client';

export interface RetentionMetrics {
  purged(tenant: string, records: number): void;
  oldest(tenant: string, receivedAt: number | null): void;
}

export function retentionMetrics(registry: Registry): RetentionMetrics {
  const purged = new Counter({
    name: 'sightline_retention_purged_records_total',
    help: 'Raw telemetry records deleted by retention, per tenant.',
    labelNames: ['tenant'] as const,
    registers: [registry],
  });
  const oldest = new Gauge({
    name: 'sightline_retention_oldest_record_timestamp_seconds',
    help: "Receive time of each tenant's oldest raw telemetry record kept (Unix seconds), as of the last purge pass.",
    labelNames: ['tenant'] as const,
    registers: [registry],
  });
  return {
    purged: (tenant, records) => purged.inc({ tenant }, records),
    oldest: (tenant, receivedAt) => {
      if (receivedAt === null) oldest.remove({ tenant });
      else oldest.set({ tenant }, receivedAt / 1000);
    },
  };
}
