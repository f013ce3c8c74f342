// OpenTelemetry's own log exporters, driven as an SDK drives them, for the OTLP intake tests: the
// SDK's processors hand records to the exporter without waiting for its answer, so this wrapper
// keeps each export until it is answered.
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';

export type ExportResult = Parameters<Parameters<LogRecordExporter['export']>[1]>[0];

/** An exporter that remembers its exports until they are answered. */
export class AnsweredExports implements LogRecordExporter {
  private readonly pending = new Set<Promise<ExportResult>>();
  constructor(private readonly inner: LogRecordExporter) {}

  export(...[logs, done]: Parameters<LogRecordExporter['export']>): void {
    const answer = new Promise<ExportResult>((resolve) => {
      this.inner.export(logs, (result) => {
        resolve(result);
        done(result);
      });
    });
    this.pending.add(answer);
  }

  async settled(): Promise<ExportResult[]> {
    const results = await Promise.all(this.pending);
    this.pending.clear();
    return results;
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
}
