// What the modules of one process share while it starts: the configuration, the database, the
// metrics, the loaded rules, the server's logger once there is one, and the parts started so far
// (each module fills in its own, and the ones after it read them).
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import type { Database } from '../storage/database.js';
import type { StoragePorts } from '../storage/ports/storage-ports.js';
import type { Metrics } from '../observability/metrics.js';
import type { DetectionSetup } from '../detection/detection-setup.js';
import type { RecordLogWriter } from '../record-log/record-log.js';
import type { GroupCommitQueue } from '../record-log/group-commit.js';
import type { PostgresSearchIndexLoop } from '../storage/postgres/search-indexer.js';
import type { CollectorDiagnostics } from '../collector/diagnostics/collector-diagnostics.js';
import type { MonitoringSink } from '../summaries/monitoring/monitoring-sink.js';
import type { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import type { OutboxWake } from '../webhooks/outbox-wake.js';
import type { CollectorAddressSettings } from '../identity/tenants/tenant-service.js';
import type { RetentionPurger } from '../retention/purger.js';
import type { DetectionThreadHost } from '../pipeline/detection-thread-host.js';
import type { ScaleNode } from './scale-node.js';
import type { MetricsListener } from './metrics-listener.js';
import type { IngestLimitSync } from '../collector/ingest-limits/ingest-limit-sync.js';

export interface Parts {
  writer?: RecordLogWriter;
  detectionThread?: DetectionThreadHost;
  indexLoop?: PostgresSearchIndexLoop;
  queue?: GroupCommitQueue;
  scale?: ScaleNode;
  summarySink?: MonitoringSink;
  diagnostics?: CollectorDiagnostics;
  dispatcher?: WebhookDispatcher;
  outboxWake?: OutboxWake;
  metricsListener?: MetricsListener;
  server?: FastifyInstance;
  collectorAddress?: CollectorAddressSettings;
  retention?: RetentionPurger;
  ingestLimits?: IngestLimitSync;
}

export interface Wiring {
  config: Config;
  database: Database;
  /** The database's storage ports, built once: what the features are given instead of its kind. */
  ports: StoragePorts;
  metrics: Metrics;
  detection: DetectionSetup;
  /** The configured rule paths with the imported rule packages (sightline rules import). */
  rulePaths: string[];
  /** The record log is on NATS JetStream (--queue): this process is one node of several. */
  scaled: boolean;
  /** The server's logger, once the server is built. */
  log: FastifyBaseLogger | undefined;
  reportIndexError: (error: unknown) => void;
  parts: Parts;
}

/** A part a module needs, started by a module it depends on. */
export function running<T>(part: T | undefined, name: string): T {
  if (part === undefined) throw new Error(`${name} is not running`);
  return part;
}
