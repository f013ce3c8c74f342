// One running Sightline: database opened and migrated, first-start seeding, then the modules its
// role runs (record writer, queue, consumers, server, upkeep) started by one supervisor, which
// also stops them in reverse. `sightline serve` and the end-to-end tests both start it here.
import type { FastifyInstance } from 'fastify';
import { ConfigError, type Config } from '../config/config.js';
import { openDatabase, type Database } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { storagePorts } from '../storage/ports/storage-ports.js';
import { ensureFirstTenant, type Tenant } from '../identity/tenants/tenant-service.js';
import type { RecordQueue } from '../record-log/record-log.js';
import { Metrics } from '../observability/metrics.js';
import { ensureFirstOperator, type User } from '../identity/users/user-service.js';
import { setPasswordHashCost } from '../identity/users/password.js';
import { loadDetection } from '../detection/detection-setup.js';
import { deploymentRulePaths } from '../detection/rule-import.js';
import { describeFault, storageFault } from '../storage/storage-errors.js';
import { errorMessage } from '../core/errors.js';
import { instanceKey } from '../storage/instance-settings.js';
import { setCursorKey } from '../http/pagination.js';
import { setRecordIdKey } from '../core/record-ids.js';
import type { CollectorAddressSettings } from '../identity/tenants/tenant-service.js';
import type { ScaleNode } from './scale-node.js';
import { backoffMs } from '../record-log/jetstream-connection.js';
import type { RetentionPurger } from '../retention/purger.js';
import { selectModules, Supervisor, type Module } from './supervisor.js';
import { running, type Wiring } from './wiring.js';
import { exportModule } from './export-wiring.js';
import { slaWatcherModule } from './sla-wiring.js';
import {
  detectionModule,
  followingModule,
  indexFreshnessModule,
  queueModule,
  recordWriterModule,
  scaleModule,
  searchIndexModule,
} from './record-log-modules.js';
import {
  collectorDiagnosticsModule,
  httpModule,
  ingestLimitsModule,
  metricsListenerModule,
  retentionModule,
  summaryCachePurgeModule,
  summarySinkModule,
  webhooksModule,
} from './service-modules.js';

export interface Sightline {
  server: FastifyInstance;
  database: Database;
  /** Where the collector hands records: the group-commit queue, or the JetStream publisher. */
  queue: RecordQueue;
  /** The scale-out parts (docs/scale.md) when --queue is given. */
  scale: ScaleNode | undefined;
  /** The tenant created on this start because the database was empty, if any. */
  firstTenant: Tenant | undefined;
  /** The operator account created on this start, with its password when it was generated. */
  firstOperator: { user: User; generatedPassword?: string } | undefined;
  /** How collector addresses are printed (base domain on the public scheme and port, once bound). */
  collectorAddress: CollectorAddressSettings;
  /** The background telemetry purger (docs/operations.md, Retention); tests run a pass with `runPass`. */
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

/** Process-wide keys and first-start seeding, before any module starts. */
async function prepare(database: Database, config: Config) {
  await migrateToLatest(database);
  // Cursors handed out by any node, before or after a restart, stay valid: one key in the database.
  setCursorKey(await instanceKey(database.db, 'cursor_key'));
  setRecordIdKey(await instanceKey(database.db, 'record_id_key', 16));
  setPasswordHashCost(config.passwordHashCost);
  const firstTenant = await ensureFirstTenant(database.db, config.defaultTenant);
  const firstOperator = await ensureFirstOperator(database.db, config);
  return { firstTenant, firstOperator };
}

function wiring(config: Config, database: Database): Wiring {
  // Imported rule packages (sightline rules import) load beside the configured rule paths.
  const rulePaths = deploymentRulePaths(config.detectionRulePaths, config.dataDir);
  const w: Wiring = {
    config,
    database,
    ports: storagePorts(database),
    metrics: new Metrics(),
    detection: loadDetection({ rulePaths, pipelinePath: config.detectionPipeline }),
    rulePaths,
    scaled: config.queue.length > 0,
    log: undefined,
    reportIndexError: (error: unknown) => {
      // A storage fault is named (the indexer backs off, so this is one line per retry); the
      // message of anything else is logged as it came.
      const fault = storageFault(error);
      const what = fault ? describeFault(fault) : errorMessage(error);
      const retryInMs = (error as { retryInMs?: unknown }).retryInMs;
      // Indexing can fail before the server (and its logger) exists; say so on stderr then.
      if (w.log)
        w.log.error({ error: errorMessage(error), fault, retry_in_ms: retryInMs }, `search indexing failed: ${what}`);
      else process.emitWarning(`search indexing failed; retrying: ${what}`);
    },
    parts: {},
  };
  return w;
}

/**
 * The modules of this process, in the order they start when nothing else decides it. A single
 * process consumes the record log itself (detection thread, search index loop); a scale-out node
 * (--queue) does so inside each stream batch's apply, and its --role picks the JetStream parts.
 */
export function processModules(w: Wiring): Module[] {
  const all = [
    recordWriterModule(w),
    detectionModule(w),
    searchIndexModule(w),
    queueModule(w),
    scaleModule(w),
    summarySinkModule(w),
    collectorDiagnosticsModule(w),
    ingestLimitsModule(w),
    webhooksModule(w),
    metricsListenerModule(w),
    httpModule(w),
    followingModule(w),
    indexFreshnessModule(w),
    summaryCachePurgeModule(w),
    retentionModule(w),
    exportModule(w),
    slaWatcherModule(w),
  ];
  const embeddedOnly = new Set(['detection', 'search_index']);
  return selectModules(all, (name) => (w.scaled ? !embeddedOnly.has(name) : name !== 'scale'));
}

export async function createSightline(config: Config): Promise<Sightline> {
  const database = await openWhenReachable(config);
  try {
    const { firstTenant, firstOperator } = await prepare(database, config);
    const w = wiring(config, database);
    const supervisor = new Supervisor(processModules(w));
    await supervisor.start();
    const { parts } = w;
    const server = running(parts.server, 'the server');
    const close = async () => {
      // Each step is timed and the whole logged, so a slow shutdown says where it waited.
      const steps = await supervisor.stop();
      server.log.info({ steps_ms: steps }, 'closed');
      await database.close();
    };
    return {
      server,
      database,
      queue: parts.scale?.queue ?? running(parts.queue, 'the queue'),
      scale: parts.scale,
      firstTenant,
      firstOperator,
      collectorAddress: running(parts.collectorAddress, 'the server'),
      retention: running(parts.retention, 'retention'),
      close,
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
