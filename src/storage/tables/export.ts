// Export to object storage (export/exporter.ts): how far each destination has got.

/** One row per destination (bucket, prefix and endpoint): the hour under way and its progress. */
export interface ExportCursorsTable {
  destination: string;
  /** Start of the hour being exported, epoch milliseconds; every earlier hour is complete. */
  hour: number;
  /** Tenants up to this id have their files for `hour` written (0: none yet). */
  after_tenant_id: number;
  /** Totals written to this destination so far. */
  exported_records: number;
  exported_findings: number;
  updated_at: number;
}
