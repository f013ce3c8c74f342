// The modules around the record log: its writer, the group-commit queue in front of it, its
// consumers on this process (the detection thread, the search index loop), and on a scale-out
// node the JetStream parts (docs/architecture.md describes the scale-out mode).
import type { Module } from './supervisor.js';
import { running, type Wiring } from './wiring.js';
import type { Database } from '../storage/database.js';
import type { RecordLogWriter } from '../record-log/record-log.js';
import { GroupCommitQueue } from '../record-log/group-commit.js';
import { SqliteRecordWriter } from '../storage/sqlite/record-writer.js';
import { PostgresRecordWriter } from '../storage/postgres/record-writer.js';
import { PostgresSearchIndexLoop, searchIndexConsumer } from '../storage/postgres/search-indexer.js';
import { overloaded } from '../core/errors.js';
import { geoIpFromConfig } from '../devices/geoip.js';
import { DetectionThreadHost } from '../pipeline/detection-thread-host.js';
import { DetectionConsumer } from '../pipeline/detection-consumer.js';
import { delaysOf, failureMessages, reportDetection } from '../pipeline/detection-report.js';
import type { RecordConsumer } from '../record-log/record-consumer.js';
import { ScaleNode } from './scale-node.js';
import { searchIndexDelaySeconds } from '../telemetry/search-index.js';

/** How long start-up waits for the record-log stream before serving anyway (then /readyz says why). */
const STREAM_CHECK_MS = 5_000;

export function recordWriterModule(w: Wiring): Module {
  return {
    name: 'record_writer',
    start: async () => {
      const writer = createRecordWriter(w.database, w.reportIndexError);
      w.parts.writer = writer;
      try {
        await writer.ready();
      } catch (error) {
        // Its thread or connection would keep the process from exiting after a failed start.
        await writer.close();
        throw new Error(
          `the record-log writer could not start: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    },
    stop: () => w.parts.writer?.close(),
  };
}

function createRecordWriter(database: Database, onIndexError: (error: unknown) => void): RecordLogWriter {
  if (database.kind === 'sqlite')
    return new SqliteRecordWriter(database.sqlitePath, (failure) =>
      onIndexError(Object.assign(new Error(failure.indexError), { code: failure.code, retryInMs: failure.retryInMs })),
    );
  return new PostgresRecordWriter(database.pgConfig);
}

/** The detection thread follows the log on this process (not on a scale-out node: there each batch's apply detects). */
export function detectionModule(w: Wiring): Module {
  const { config, metrics, rulePaths } = w;
  return {
    name: 'detection',
    dependsOn: ['record_writer'],
    start: async () => {
      if (config.detection !== 'on') return;
      const writerThreads = w.ports.writerThreads;
      const shared = writerThreads.share();
      const thread = new DetectionThreadHost(
        {
          databaseUrl: config.databaseUrl,
          dataDir: config.dataDir,
          rulePaths,
          pipelinePath: config.detectionPipeline,
          chunk: config.detectionChunk,
          caseWindowMs: config.caseWindow,
          caseGrouping: config.caseGrouping,
          geoipDatabase: config.geoipDatabase,
          writerThreads: shared,
        },
        metrics,
        () => w.log,
        (threadId) => writerThreads.ended(shared, threadId),
      );
      await thread.ready();
      w.parts.detectionThread = thread;
    },
    stop: () => w.parts.detectionThread?.stop(),
  };
}

/**
 * The search index loop of embedded PostgreSQL (SQLite's writer thread indexes as it writes).
 * It starts following with the rest (followingModule); it stops beside the HTTP drain, since it
 * resumes where it stopped and under load waits for a chunk of work that can take seconds.
 */
export function searchIndexModule(w: Wiring): Module {
  return {
    name: 'search_index',
    dependsOn: ['record_writer'],
    start: () => {
      if (w.database.kind === 'postgres')
        w.parts.indexLoop = new PostgresSearchIndexLoop(w.database.db, w.reportIndexError);
    },
    stop: () => w.parts.indexLoop?.stop(),
  };
}

export function queueModule(w: Wiring): Module {
  const { config, metrics, parts } = w;
  return {
    name: 'queue',
    dependsOn: ['record_writer'],
    start: () => {
      parts.queue = new GroupCommitQueue(running(parts.writer, 'the record writer'), {
        maxPendingBytes: config.maxQueueBytes,
        onCommit: ({ records, seconds }) => {
          metrics.commitSeconds.observe(seconds);
          metrics.commitRecords.observe(records);
          parts.indexLoop?.poke();
          parts.detectionThread?.poke();
        },
      });
    },
    stop: async () => {
      const queue = running(parts.queue, 'the queue');
      // No request can be answered any more: what is still queued was acknowledged to nobody
      // (its connection was cut) and is refused rather than written, so the queue's wait is the
      // one commit under way, not up to max-queue-bytes at the database's pace.
      queue.stopTaking(() => overloaded('the server is shutting down'));
      await queue.drain();
    },
  };
}

/**
 * Scale-out: each node consuming the stream applies the record log's consumers (the search index,
 * then detection) to the stream partitions it owns, inside each batch's apply transaction; the one
 * holding the maintenance lease moves the index cursor on.
 */
export function scaleModule(w: Wiring): Module {
  const { config, database, metrics } = w;
  let leasedIndex: PostgresSearchIndexLoop | undefined;
  return {
    name: 'scale',
    start: () => {
      w.parts.scale = new ScaleNode(
        config,
        database,
        metrics,
        () => w.log,
        {
          start: () => {
            leasedIndex = new PostgresSearchIndexLoop(database.db, w.reportIndexError);
            leasedIndex.start();
            return Promise.resolve();
          },
          stop: async () => {
            await leasedIndex?.stop();
            leasedIndex = undefined;
          },
        },
        streamConsumers(w),
      );
    },
    stop: () => w.parts.scale?.close(),
  };
}

/** The consumers a stream partition's batch is applied to, in order: the same detection as the detection thread's. */
function streamConsumers(w: Wiring): RecordConsumer[] {
  const { config, detection } = w;
  if (config.detection !== 'on') return [searchIndexConsumer];
  const detecting = new DetectionConsumer({
    build: detection.buildProcessor,
    upkeep: {
      locks: w.ports.locks,
      policy: { windowMs: config.caseWindow, grouping: config.caseGrouping },
      catalogue: detection.catalogue,
      geo: geoIpFromConfig(config.geoipDatabase),
    },
    report: (outcome) =>
      reportDetection(
        w.metrics,
        w.log,
        {
          records: outcome.records,
          observations: outcome.observations,
          failures: failureMessages(outcome.failures),
          ...delaysOf(outcome),
        },
        outcome.scope.kind === 'stream-partition' ? { partition: outcome.scope.partition } : {},
      ),
  });
  return [searchIndexConsumer, detecting];
}

/**
 * Once the server (and its logger) is up, the loops start following the record log. It names no
 * dependency on the server on purpose: what it starts stops with its own module, beside the HTTP
 * drain rather than after it.
 */
export function followingModule(w: Wiring): Module {
  return {
    name: 'following',
    dependsOn: w.scaled ? ['scale'] : ['search_index'],
    start: async () => {
      w.parts.indexLoop?.start();
      w.parts.scale?.start();
      // A stream with another stream partition count can never be used: stop here, naming the setting.
      await w.parts.scale?.startupCheck(STREAM_CHECK_MS);
    },
  };
}

/** How often the search index's delay is sampled into its histogram. */
const INDEX_DELAY_SAMPLE_MS = 1_000;

/**
 * Samples how far behind the full-text index is, in time, once a second: what a text search
 * cannot find yet (`sightline_search_index_delay_seconds`).
 */
export function indexFreshnessModule(w: Wiring): Module {
  let timer: NodeJS.Timeout | undefined;
  let sampling = false;
  const sample = async () => {
    if (sampling) return;
    sampling = true;
    try {
      w.metrics.searchIndexDelay.observe(await searchIndexDelaySeconds(w.database.db));
    } catch {
      // A sample missed while the database is unreachable; /readyz and the logs say why.
    } finally {
      sampling = false;
    }
  };
  return {
    name: 'index_freshness',
    dependsOn: ['following'],
    start: () => {
      timer = setInterval(() => void sample(), INDEX_DELAY_SAMPLE_MS);
      timer.unref();
    },
    stop: () => clearInterval(timer),
  };
}
