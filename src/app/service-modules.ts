// The modules that serve and maintain: the HTTP server and what it hands work to (collector
// diagnostics, webhook delivery, the summary monitoring copy, the metrics listener), and the
// background upkeep (summary cache purge, retention).
import type { Module } from './supervisor.js';
import { running, type Wiring } from './wiring.js';
import { resolvePublicUrl } from '../config/config.js';
import { assessReach, describeReach } from '../detection/rule-reach.js';
import { SqlRecordLogReader } from '../record-log/record-follower.js';
import { CollectorTenants } from '../collector/intake/tenant-routing.js';
import { CollectorDiagnostics } from '../collector/diagnostics/collector-diagnostics.js';
import { IngestKeyGate, VERSION_CHECK_MS } from '../collector/ingest-keys/ingest-key-gate.js';
import { IngestLimitSync } from '../collector/ingest-limits/ingest-limit-sync.js';
import { createSink, isolate } from '../summaries/monitoring/sink.js';
import { purgeExpired } from '../summaries/summary-store.js';
import { errorMessage } from '../core/errors.js';
import { BackgroundLoop } from '../core/background-loop.js';
import { saveInstanceSetting } from '../storage/instance-settings.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { webhookSealer } from '../webhooks/webhook-secrets.js';
import { startOutboxWake } from '../webhooks/outbox-wake.js';
import { webhookPolicy } from './reactions.js';
import { startRetention } from './retention-wiring.js';
import { startMetricsListener } from './metrics-listener.js';
import { buildServer } from './server.js';

const CACHE_PURGE_MS = 3_600_000;

/**
 * How long requests in progress get to finish on shutdown before their connections are cut; with
 * the queue's commit after it, the whole shutdown stays within 5 s even under full load.
 */
const CLOSE_GRACE_MS = 2_500;

export function summarySinkModule(w: Wiring): Module {
  const { config, metrics } = w;
  return {
    name: 'summary_sink',
    start: () => {
      const rawSink = createSink({
        sink: config.summaryMonitoring,
        dataDir: config.dataDir,
        retentionDays: config.summaryMonitoringRetention,
        otlpEndpoint: config.otlpEndpoint,
        otlpHeaders: config.otlpHeaders,
        timeoutMs: 10_000,
      });
      // The monitoring provider failing never fails a request: counted and logged (without the payload).
      w.parts.summarySink = isolate(rawSink, (error, what) => {
        metrics.summaryMonitoringFailures.inc({ sink: rawSink.name, what });
        w.log?.warn(
          { sink: rawSink.name, what, error: error instanceof Error ? error.message : String(error) },
          'summary monitoring copy failed',
        );
      });
    },
    stop: () => w.parts.summarySink?.close(),
  };
}

export function collectorDiagnosticsModule(w: Wiring): Module {
  return {
    name: 'collector_diagnostics',
    start: () => {
      w.parts.diagnostics = new CollectorDiagnostics(w.database.db, (error) =>
        w.log?.warn({ error: errorMessage(error) }, 'collector diagnostics could not be saved'),
      );
      w.parts.diagnostics.start();
    },
    stop: () => w.parts.diagnostics?.stop(),
  };
}

export function webhooksModule(w: Wiring): Module {
  const { config, database, parts } = w;
  return {
    name: 'webhooks',
    start: async () => {
      const dispatcher = new WebhookDispatcher({
        db: database.db,
        locks: w.ports.locks,
        sealer: await webhookSealer(database.db),
        policy: webhookPolicy(config),
        timeoutMs: config.webhookTimeout,
        retryBaseMs: config.webhookRetryBase,
        retryWindowMs: config.webhookRetryWindow,
        caFile: config.webhookCaFile,
        onError: (error) => w.log?.error({ error: errorMessage(error) }, 'webhook dispatch failed; retrying'),
      });
      parts.dispatcher = dispatcher;
      dispatcher.start();
      parts.outboxWake = startOutboxWake(
        w.ports.outboxListener,
        () => dispatcher.poke(),
        (error) => w.log?.warn({ error: errorMessage(error) }, 'webhook wake-up listener failed; the dispatcher polls'),
      );
    },
    stop: async () => {
      await parts.outboxWake?.stop();
      await parts.dispatcher?.stop();
    },
  };
}

/**
 * Each tenant's ingest limits, reloaded every few seconds; where processes share a PostgreSQL
 * database, this node's heartbeat too, so each divides the rates by the collector nodes running.
 */
export function ingestLimitsModule(w: Wiring): Module {
  return {
    name: 'ingest_limits',
    start: async () => {
      const sync = new IngestLimitSync(
        w.database.db,
        w.database.kind === 'postgres' && w.config.role.includes('collector'),
        (error) => w.log?.warn({ error: errorMessage(error) }, 'ingest limits could not be reloaded; retrying'),
        (nodes) => w.metrics.collectorNodes.set(nodes),
      );
      await sync.start();
      w.parts.ingestLimits = sync;
    },
    stop: () => w.parts.ingestLimits?.stop(),
  };
}

/** Started when the server listens (see httpModule); stopped once no request is answered. */
export function metricsListenerModule(w: Wiring): Module {
  return { name: 'metrics_listener', stop: () => w.parts.metricsListener?.close() };
}

export function httpModule(w: Wiring): Module {
  return {
    name: 'http',
    dependsOn: [
      'record_writer',
      'queue',
      'scale',
      'summary_sink',
      'collector_diagnostics',
      'ingest_limits',
      'webhooks',
      'metrics_listener',
    ],
    start: () => startHttp(w),
    stop: async () => {
      const server = running(w.parts.server, 'the server');
      // Requests in progress get a moment to finish; past it their connections are cut (the
      // sender resends what got no answer), so a stalled client cannot block shutdown.
      const deadline = setTimeout(() => server.server.closeAllConnections(), CLOSE_GRACE_MS);
      await server.close();
      clearTimeout(deadline);
    },
  };
}

function startHttp(w: Wiring): void {
  const { config, database, metrics, detection, parts, scaled } = w;
  const tenants = new CollectorTenants(database.db, config);
  const ingestKeys = new IngestKeyGate(
    database.db,
    (error) => w.log?.warn({ error: errorMessage(error) }, "an ingest key's last use could not be saved"),
    // Other nodes may share a PostgreSQL database: their key changes must reach this one.
    database.kind === 'postgres' ? VERSION_CHECK_MS : undefined,
  );
  const { limiter, accounts } = w.ports.throttles({
    maxFailures: config.authMaxFailures,
    failureWindowMs: config.authFailureWindow,
  });
  // The public URL follows the port actually bound (--port 0 picks one), read when printed.
  let boundPort: number | undefined;
  const collectorAddress = {
    baseDomain: config.baseDomain,
    get publicUrl() {
      return resolvePublicUrl({ ...config, port: boundPort ?? config.port });
    },
  };
  parts.collectorAddress = collectorAddress;
  const scale = parts.scale;
  const recordQueue = scale?.queue ?? running(parts.queue, 'the queue');
  // The record log as its consumers see it (lag for /readyz and /metrics).
  const logReader = new SqlRecordLogReader(database.db, w.ports.logReading);
  const dispatcher = running(parts.dispatcher, 'the webhook dispatcher');
  const ingestLimits = running(parts.ingestLimits, 'ingest limits');
  const server = buildServer({
    config,
    db: database.db,
    log: logReader,
    database,
    ports: w.ports,
    queue: recordQueue,
    writer: running(parts.writer, 'the record writer'),
    scale,
    tenants,
    metrics,
    limiter,
    accounts,
    detection,
    detectionThread: parts.detectionThread,
    metricsToken: config.metricsToken,
    summarySink: running(parts.summarySink, 'the summary sink'),
    collectorAddress,
    diagnostics: running(parts.diagnostics, 'collector diagnostics'),
    ingestKeys,
    ingestLimits: ingestLimits.limiter,
    ingestLimitsApplied: (tenantId, limits) => ingestLimits.applied(tenantId, limits),
    webhooksQueued: () => dispatcher.poke(),
  });
  parts.server = server;
  w.log = server.log;
  // The same summary `sightline rules test` prints: rules no parsed input can make fire are named here.
  const reach = assessReach(detection.compilation, detection.pipeline).summary;
  server.log.info(
    { loaded: reach.loaded, reachable: reach.reachable, unreachable: reach.unreachable, rejected: reach.rejected },
    describeReach(reach),
  );
  server.addHook('onListen', async () => {
    const address = server.server.address();
    if (typeof address === 'object' && address) boundPort = address.port;
    if (config.metricsListen !== '' && !parts.metricsListener) {
      const scraped = { db: database.db, queue: recordQueue, log: logReader, metrics, scale };
      parts.metricsListener = await startMetricsListener(config.metricsListen, scraped, server.log);
    }
    // Other processes on this database (the CLI) print collector addresses with it. In the
    // scale-out mode many nodes share the database, each deriving its own address from its
    // port, so only a configured --public-url (the same on every node behind the load
    // balancer) is saved: whichever node starts last, the CLI prints the same address.
    if (!scaled || config.publicUrl !== '')
      await saveInstanceSetting(database.db, 'public_url', collectorAddress.publicUrl);
  });
}

/**
 * The model cache holds case data: expired entries go within the hour even when nobody
 * generates summaries (generation purges too). The first purge is part of start.
 */
export function summaryCachePurgeModule(w: Wiring): Module {
  const purge = async () => {
    await purgeExpired(w.database.db, Date.now());
    return undefined;
  };
  const report = (error: unknown) => w.log?.warn({ error: errorMessage(error) }, 'summary cache purge failed');
  const loop = new BackgroundLoop({
    run: purge,
    idleMs: CACHE_PURGE_MS,
    backoff: { baseMs: CACHE_PURGE_MS, maxMs: CACHE_PURGE_MS },
    onError: report,
  });
  return {
    name: 'summary_cache_purge',
    start: async () => {
      await purge().catch(report);
      loop.start(CACHE_PURGE_MS);
    },
    stop: () => loop.stop(),
  };
}

/** A retention pass is redone by the next one: it stops beside the HTTP drain, not after it. */
export function retentionModule(w: Wiring): Module {
  return {
    name: 'retention',
    start: async () => {
      w.parts.retention = await startRetention(
        w.database,
        w.ports.recordPurge,
        w.metrics.registry,
        w.config.retentionInterval,
        (error) => w.log?.warn({ error: errorMessage(error) }, 'retention purge pass failed; the next pass retries'),
        w.config.webhookLogRetention,
      );
    },
    stop: () => w.parts.retention?.stop(),
  };
}
