// One running Sightline: database opened and migrated, record-log writer and group-commit queue
// started, HTTP server built. `sightline serve` and the end-to-end tests both start it here.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { assessReach, describeReach } from '../detection/rule-reach.js';
import { ConfigError, resolvePublicUrl, type Config } from '../config/config.js';
import { openDatabase, type Database } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { ensureFirstTenant, type Tenant } from '../identity/tenant-service.js';
import { GroupCommitQueue } from '../record-log/group-commit.js';
import type { RecordLogWriter, RecordQueue } from '../record-log/record-log.js';
import { SqlRecordLogReader } from '../record-log/record-follower.js';
import { SqliteRecordWriter } from '../storage/sqlite/record-writer.js';
import { PostgresRecordWriter } from '../storage/postgres/record-writer.js';
import { PostgresSearchIndexLoop } from '../storage/postgres/search-indexer.js';
import { CollectorTenants } from '../collector/tenant-routing.js';
import { CollectorDiagnostics } from '../collector/collector-diagnostics.js';
import { IngestKeyGate, VERSION_CHECK_MS } from '../collector/ingest-key-gate.js';
import { Metrics } from '../observability/metrics.js';
import { buildServer } from './server.js';
import { ensureFirstOperator, type User } from '../identity/user-service.js';
import { loadDetection } from '../detection/detection-setup.js';
import { deploymentRulePaths } from '../detection/rule-import.js';
import { DetectionWorker } from './detection-worker.js';
import { createSink, isolate } from '../summaries/monitoring/sink.js';
import { describeFault, storageFault } from '../storage/storage-errors.js';
import { errorMessage, overloaded } from '../core/errors.js';
import { instanceKey, saveInstanceSetting } from '../storage/instance-settings.js';
import { setCursorKey } from '../http/pagination.js';
import { setRecordIdKey } from '../core/record-ids.js';
import { startMetricsListener, type MetricsListener } from './metrics-listener.js';
import type { CollectorAddressSettings } from '../identity/tenant-service.js';
import { purgeExpired } from '../summaries/summary-store.js';
import { ScaleNode } from './scale-node.js';
import { PartitionDetection } from './partition-detection.js';
import { geoIpFromConfig } from '../devices/geoip.js';
import { backoffMs } from '../record-log/jetstream-connection.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { webhookSealer } from '../webhooks/webhook-secrets.js';
import { startOutboxWake } from '../webhooks/outbox-wake.js';
import { storagePorts } from './storage-ports.js';
import { webhookPolicy } from './reactions.js';
import { startRetention } from './retention-wiring.js';
import type { RetentionPurger } from '../retention/purger.js';

const CACHE_PURGE_MS = 3_600_000;

/**
 * How long requests in progress get to finish on shutdown before their connections are cut; with
 * the queue's commit after it, the whole shutdown stays within 5 s even under full load.
 */
const CLOSE_GRACE_MS = 2_500;

/** How long start-up waits for the record-log stream before serving anyway (then /readyz says why). */
const STREAM_CHECK_MS = 5_000;

export interface Sightline {
  server: FastifyInstance;
  database: Database;
  /** Where the collector hands records: the group-commit queue, or the JetStream publisher. */
  queue: RecordQueue;
  /** The scale-out parts (README: Running at scale) when --queue is given. */
  scale: ScaleNode | undefined;
  /** The tenant created on this start because the database was empty, if any. */
  firstTenant: Tenant | undefined;
  /** The operator account created on this start, with its password when it was generated. */
  firstOperator: { user: User; generatedPassword?: string } | undefined;
  /** How collector addresses are printed (base domain on the public scheme and port, once bound). */
  collectorAddress: CollectorAddressSettings;
  /** The background telemetry purger (README: Retention); tests run a pass with `runPass`. */
  retention: RetentionPurger;
  /** Stops taking requests, commits what was accepted, and closes the database. */
  close(): Promise<void>;
}

/**
 * The database, opened. A scale-out node waits for PostgreSQL with backoff (it may start before
 * the database does, or during a failover); the single process stops at once with the error.
 */
async function openWhenReachable(config: Config): Promise<Database> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await openDatabase(config);
    } catch (error) {
      if (config.queue.length === 0 || error instanceof ConfigError) throw error;
      const wait = backoffMs(attempt);
      process.emitWarning(`PostgreSQL unreachable (${errorMessage(error)}); retrying in ${wait} ms`);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

export async function createSightline(config: Config): Promise<Sightline> {
  const database = await openWhenReachable(config);
  let writer: RecordLogWriter | undefined;
  let detectionWorker: DetectionWorker | undefined;
  // Started before the start-up checks: a failed start stops them, or their connection and
  // timers would keep the process from exiting.
  let started: { stop(): Promise<void> }[] = [];
  let scale: ScaleNode | undefined;
  try {
    await migrateToLatest(database);
    // Cursors handed out by any node, before or after a restart, stay valid: one key in the database.
    setCursorKey(await instanceKey(database.db, 'cursor_key'));
    setRecordIdKey(await instanceKey(database.db, 'record_id_key', 16));
    const firstTenant = await ensureFirstTenant(database.db, config.defaultTenant);
    const firstOperator = await ensureFirstOperator(database.db, config);
    let log: FastifyBaseLogger | undefined;
    const reportIndexError = (error: unknown) => {
      // A storage fault is named (the indexer backs off, so this is one line per retry); the
      // message of anything else is logged as it came.
      const fault = storageFault(error);
      const what = fault ? describeFault(fault) : errorMessage(error);
      const retryInMs = (error as { retryInMs?: unknown }).retryInMs;
      // Indexing can fail before the server (and its logger) exists; say so on stderr then.
      if (log)
        log.error({ error: errorMessage(error), fault, retry_in_ms: retryInMs }, `search indexing failed: ${what}`);
      else process.emitWarning(`search indexing failed; retrying: ${what}`);
    };
    writer = createRecordWriter(database, reportIndexError);
    try {
      await writer.ready();
    } catch (error) {
      throw new Error(
        `the record-log writer could not start: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    const indexLoop =
      database.kind === 'postgres' && config.queue.length === 0
        ? new PostgresSearchIndexLoop(database.db, reportIndexError)
        : undefined;
    const metrics = new Metrics();
    // Imported rule packages (sightline rules import) load beside the configured rule paths.
    const rulePaths = deploymentRulePaths(config.detectionRulePaths, config.dataDir);
    const detection = loadDetection({ rulePaths, pipelinePath: config.detectionPipeline });
    const startDetectionWorker = async () => {
      const worker = new DetectionWorker(
        {
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          rulePaths,
          pipelinePath: config.detectionPipeline,
          chunk: config.detectionChunk,
          caseWindowMs: config.caseWindow,
          caseGrouping: config.caseGrouping,
          geoipDatabase: config.geoipDatabase,
        },
        metrics,
        () => log,
      );
      await worker.ready();
      return worker;
    };
    const scaled = config.queue.length > 0;
    if (config.detection === 'on' && !scaled) detectionWorker = await startDetectionWorker();
    const startedDetection = detectionWorker;
    const queue = new GroupCommitQueue(writer, {
      maxPendingBytes: config.maxQueueBytes,
      onCommit: ({ records, seconds }) => {
        metrics.commitSeconds.observe(seconds);
        metrics.commitRecords.observe(records);
        indexLoop?.poke();
        startedDetection?.poke();
      },
    });
    let leasedIndex: PostgresSearchIndexLoop | undefined;
    // Scale-out: each worker detects and indexes for the partitions it owns, inside each batch's
    // apply transaction; the one worker holding the maintenance lease moves the index cursor on.
    scale = scaled
      ? new ScaleNode(
          config,
          database,
          metrics,
          () => log,
          {
            start: () => {
              leasedIndex = new PostgresSearchIndexLoop(database.db, reportIndexError);
              leasedIndex.start();
              return Promise.resolve();
            },
            stop: async () => {
              await leasedIndex?.stop();
              leasedIndex = undefined;
            },
          },
          new PartitionDetection({
            build: config.detection === 'on' ? detection.buildProcessor : undefined,
            upkeep: {
              kind: database.kind,
              policy: { windowMs: config.caseWindow, grouping: config.caseGrouping },
              catalogue: detection.catalogue,
              geo: geoIpFromConfig(config.geoipDatabase),
            },
            partitions: config.queuePartitions,
            metrics,
            log: () => log,
          }),
        )
      : undefined;
    const recordQueue: RecordQueue = scale?.queue ?? queue;
    const tenants = new CollectorTenants(database.db, config);
    const diagnostics = new CollectorDiagnostics(database.db, (error) =>
      log?.warn({ error: errorMessage(error) }, 'collector diagnostics could not be saved'),
    );
    const ingestKeys = new IngestKeyGate(
      database.db,
      (error) => log?.warn({ error: errorMessage(error) }, "an ingest key's last use could not be saved"),
      // Other nodes may share a PostgreSQL database: their key changes must reach this one.
      database.kind === 'postgres' ? VERSION_CHECK_MS : undefined,
    );
    const rawSink = createSink({
      sink: config.summaryMonitoring,
      dataDir: config.dataDir,
      retentionDays: config.summaryMonitoringRetention,
      otlpEndpoint: config.otlpEndpoint,
      otlpHeaders: config.otlpHeaders,
      timeoutMs: 10_000,
    });
    // The monitoring provider failing never fails a request: counted and logged (without the payload).
    const summarySink = isolate(rawSink, (error, what) => {
      metrics.summaryMonitoringFailures.inc({ sink: rawSink.name, what });
      log?.warn(
        { sink: rawSink.name, what, error: error instanceof Error ? error.message : String(error) },
        'summary monitoring copy failed',
      );
    });
    const { limiter, accounts } = storagePorts(database).throttles({
      maxFailures: config.authMaxFailures,
      failureWindowMs: config.authFailureWindow,
    });
    const dispatcher = new WebhookDispatcher({
      db: database.db,
      locks: storagePorts(database).locks,
      sealer: await webhookSealer(database.db),
      policy: webhookPolicy(config),
      timeoutMs: config.webhookTimeout,
      retryBaseMs: config.webhookRetryBase,
      retryWindowMs: config.webhookRetryWindow,
      caFile: config.webhookCaFile,
      onError: (error) => log?.error({ error: errorMessage(error) }, 'webhook dispatch failed; retrying'),
    });
    // The public URL follows the port actually bound (--port 0 picks one), read when printed.
    let boundPort: number | undefined;
    const collectorAddress = {
      baseDomain: config.baseDomain,
      get publicUrl() {
        return resolvePublicUrl({ ...config, port: boundPort ?? config.port });
      },
    };
    // The record log as its consumers see it (lag for /readyz and /metrics).
    const logReader = new SqlRecordLogReader(database.db, storagePorts(database).logReading);
    const server = buildServer({
      config,
      db: database.db,
      log: logReader,
      database,
      queue: recordQueue,
      writer,
      scale,
      tenants,
      metrics,
      limiter,
      accounts,
      detection,
      detectionWorker: startedDetection,
      metricsToken: config.metricsToken,
      summarySink,
      collectorAddress,
      diagnostics,
      ingestKeys,
      webhooksQueued: () => dispatcher.poke(),
    });
    diagnostics.start();
    dispatcher.start();
    const outboxWake = startOutboxWake(
      storagePorts(database).outboxListener,
      () => dispatcher.poke(),
      (error) => log?.warn({ error: errorMessage(error) }, 'webhook wake-up listener failed; the dispatcher polls'),
    );
    started = [outboxWake, dispatcher, diagnostics];
    log = server.log;
    // The same summary `sightline rules test` prints: rules no parsed input can make fire are named here.
    const reach = assessReach(detection.compilation, detection.pipeline).summary;
    server.log.info(
      { loaded: reach.loaded, reachable: reach.reachable, unreachable: reach.unreachable, rejected: reach.rejected },
      describeReach(reach),
    );
    let metricsListener: MetricsListener | undefined;
    server.addHook('onListen', async () => {
      const address = server.server.address();
      if (typeof address === 'object' && address) boundPort = address.port;
      if (config.metricsListen !== '' && !metricsListener) {
        const scraped = { db: database.db, queue: recordQueue, log: logReader, metrics, scale };
        metricsListener = await startMetricsListener(config.metricsListen, scraped, server.log);
      }
      // Other processes on this database (the CLI) print collector addresses with it. In the
      // scale-out mode many nodes share the database, each deriving its own address from its
      // port, so only a configured --public-url (the same on every node behind the load
      // balancer) is saved: whichever node starts last, the CLI prints the same address.
      if (!scaled || config.publicUrl !== '')
        await saveInstanceSetting(database.db, 'public_url', collectorAddress.publicUrl);
    });
    indexLoop?.start();
    scale?.start();
    // A stream with another partition count can never be used: stop here, naming the setting.
    await scale?.startupCheck(STREAM_CHECK_MS);
    // The model cache holds case data: expired entries go within the hour even when nobody
    // generates summaries (generation purges too).
    const purgeCache = () =>
      purgeExpired(database.db, Date.now()).catch((error: unknown) =>
        log.warn({ error: error instanceof Error ? error.message : String(error) }, 'summary cache purge failed'),
      );
    await purgeCache();
    const cachePurge = setInterval(() => void purgeCache(), CACHE_PURGE_MS);
    cachePurge.unref();
    const retention = await startRetention(
      database,
      metrics.registry,
      config.retentionInterval,
      (error) => log.warn({ error: errorMessage(error) }, 'retention purge pass failed; the next pass retries'),
      config.webhookLogRetention,
    );
    const startedWriter = writer;
    const close = async () => {
      // Each step is timed and the whole logged, so a slow shutdown says where it waited.
      const steps: Record<string, number> = {};
      const step = async (name: string, work: () => Promise<void> | undefined) => {
        const started = performance.now();
        await work();
        steps[name] = Math.round(performance.now() - started);
      };
      // Requests in progress get a moment to finish; past it their connections are cut (the
      // sender resends what got no answer), so a stalled client cannot block shutdown.
      const deadline = setTimeout(() => server.server.closeAllConnections(), CLOSE_GRACE_MS);
      // Detection and the search index follow the log and resume where they stopped, and a
      // retention pass is redone by the next one: they stop now, beside the requests finishing,
      // rather than after them (under load each waits for a chunk of work that can take seconds).
      const detectionStopped = step('detection', () => startedDetection?.stop());
      const indexStopped = step('search_index', () => indexLoop?.stop());
      clearInterval(cachePurge);
      const retentionStopped = step('retention', () => retention.stop());
      await step('http', () => server.close());
      clearTimeout(deadline);
      // No request can be answered any more: what is still queued was acknowledged to nobody
      // (its connection was cut) and is refused rather than written, so the queue's wait is the
      // one commit under way, not up to max-queue-bytes at the database's pace.
      queue.stopTaking(() => overloaded('the server is shutting down'));
      await step('metrics_listener', () => metricsListener?.close());
      await step('queue', () => queue.drain());
      await step('scale', () => scale?.close());
      await step('collector_diagnostics', () => diagnostics.stop());
      await step('webhooks', async () => {
        await outboxWake.stop();
        await dispatcher.stop();
      });
      await retentionStopped;
      await step('summary_sink', () => summarySink.close());
      await indexStopped;
      await detectionStopped;
      await step('record_writer', () => startedWriter.close());
      log.info({ steps_ms: steps }, 'closed');
      await database.close();
    };
    return {
      server,
      database,
      queue: recordQueue,
      scale,
      firstTenant,
      firstOperator,
      collectorAddress,
      retention,
      close,
    };
  } catch (error) {
    for (const part of started) await part.stop();
    await scale?.close();
    await detectionWorker?.stop();
    await writer?.close();
    await database.close();
    throw error;
  }
}

function createRecordWriter(database: Database, onIndexError: (error: unknown) => void): RecordLogWriter {
  if (database.kind === 'sqlite')
    return new SqliteRecordWriter(database.sqlitePath, (failure) =>
      onIndexError(Object.assign(new Error(failure.indexError), { code: failure.code, retryInMs: failure.retryInMs })),
    );
  return new PostgresRecordWriter(database.pgConfig);
}
