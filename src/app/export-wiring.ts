// Starts the export to object storage when --export-url is set: the S3 client, the exporter's
// metrics on the server's registry, and its lease holder named after this process.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config/config.js';
import { errorMessage } from '../core/errors.js';
import { Exporter } from '../export/exporter.js';
import { exportMetrics } from '../export/export-metrics.js';
import { s3ObjectStore } from '../export/object-store.js';
import type { Module } from './supervisor.js';
import type { Wiring } from './wiring.js';

/** Names a destination's progress: the same bucket and prefix on another server is another destination. */
export function exportDestination(config: Pick<Config, 'exportUrl' | 'exportEndpoint'>): string {
  return config.exportEndpoint === '' ? config.exportUrl : `${config.exportUrl} at ${config.exportEndpoint}`;
}

export function exportModule(w: Wiring): Module {
  let exporter: Exporter | undefined;
  let close: (() => void) | undefined;
  return {
    name: 'export',
    start: () => {
      const { config } = w;
      if (config.exportUrl === '') return;
      const store = s3ObjectStore({
        url: config.exportUrl,
        endpoint: config.exportEndpoint,
        region: config.exportRegion,
        accessKeyId: config.exportAccessKeyId,
        secretAccessKey: config.exportSecretAccessKey,
      });
      close = () => store.close();
      exporter = new Exporter({
        db: w.database.db,
        store,
        catalogue: w.detection.catalogue,
        findings: config.exportFindings,
        partBytes: 64 * 1024 * 1024,
        pageSize: 2_000,
        destination: exportDestination(config),
        delayMs: config.exportDelay,
        since: config.exportSince,
        holder: `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
        leaseMs: 120_000,
        metrics: exportMetrics(w.metrics.registry),
        onError: (error) => w.log?.warn({ error: errorMessage(error) }, 'export pass failed; the next pass carries on'),
      });
      exporter.start();
      w.log?.info({ destination: exportDestination(config) }, 'exporting telemetry and findings to object storage');
    },
    stop: async () => {
      await exporter?.stop();
      close?.();
    },
  };
}
