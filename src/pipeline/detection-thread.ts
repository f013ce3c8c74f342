// The detection thread: its own database connection, its own copy of the rules, and the
// detection consumer driven along the record log (record-log/log-follower.ts). Detection is CPU
// work (normalising, matching thousands of rules), so it runs here and never holds up the event
// loop that answers collectors and API calls.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../storage/database.js';
import { loadDetection } from '../detection/detection-setup.js';
import { geoIpFromConfig } from '../devices/geoip.js';
import type { CaseGrouping } from '../config/config.js';
import { SqlRecordLogReader } from '../record-log/record-follower.js';
import { LogFollower } from '../record-log/log-follower.js';
import { DetectionConsumer, type DetectionOutcome } from './detection-consumer.js';
import { delaysOf, failureMessages, type DetectionProgress } from './detection-report.js';
import { describeFault, storageFault, type StorageFault } from '../storage/storage-errors.js';
import { errorMessage } from '../core/errors.js';
import { onDeliveriesQueued } from '../webhooks/outbox-wake.js';
import { DETECTION_CURSOR } from '../detection/detection-cursor.js';
import { ACTIVE_GAP_MS, restAfterChunk } from '../detection/burst-pacing.js';
import { storagePorts } from '../storage/ports/storage-ports.js';

export interface DetectionThreadData {
  databaseUrl: string;
  dataDir: string;
  rulePaths: string[];
  pipelinePath: string;
  /** Records per detection transaction. */
  chunk: number;
  caseWindowMs: number;
  caseGrouping: CaseGrouping;
  geoipDatabase: string[];
  /** What the storage shares between the threads that write it (storage/writer-threads.ts). */
  writerThreads: SharedArrayBuffer | undefined;
}

export type ToDetectionThread = { type: 'poke' } | { type: 'stop' };

export type FromDetectionThread =
  | { type: 'ready'; rules: number; correlations: number; rejected: number }
  | ({
      type: 'progress';
      /** The chunk's commit queued webhook deliveries (SQLite; on PostgreSQL the commit notifies). */
      webhooks: boolean;
    } & DetectionProgress)
  | { type: 'error'; message: string; fault?: StorageFault; retryInMs: number }
  | { type: 'recovered' }
  | { type: 'stopped' };

const POLL_MS = 1_000;
/** After a failure the loop waits this long, doubling per failure in a row up to the maximum. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;

const port = parentPort;
if (!port) throw new Error('detection-thread must run as a worker thread');
const post = (message: FromDetectionThread) => port.postMessage(message);

const data = workerData as DetectionThreadData;
const database = await openDatabase({ databaseUrl: data.databaseUrl, dataDir: data.dataDir });
// Everything this thread writes (observations, cases, devices, its cursor) derives from the
// record log and commits with its cursor: a commit a power cut takes is done again from the log.
// Its fsync, under the write lock, held up the record writer's commits.
const ports = storagePorts(database);
ports.writerThreads.join(data.writerThreads);
await ports.relaxDerivedCommits();
const setup = loadDetection({ rulePaths: data.rulePaths, pipelinePath: data.pipelinePath });
const log = new SqlRecordLogReader(database.db, ports.logReading);
/** What the chunk just committed detected (the consumer tells once its transaction commits). */
let lastCommitted: DetectionOutcome | undefined;
const takeCommitted = () => {
  const outcome = lastCommitted;
  lastCommitted = undefined;
  return outcome;
};
const detection = new DetectionConsumer({
  build: setup.buildProcessor,
  upkeep: {
    locks: ports.locks,
    policy: { windowMs: data.caseWindowMs, grouping: data.caseGrouping },
    catalogue: setup.catalogue,
    geo: geoIpFromConfig(data.geoipDatabase),
  },
  report: (outcome) => {
    lastCommitted = outcome;
  },
});
const follower = new LogFollower(database.db, log, DETECTION_CURSOR, detection, data.chunk);

const stop = new AbortController();
/** Read afresh each time: a 'stop' message can arrive during any await. */
const stopping = () => stop.signal.aborted;
let wake: ((reason: ToDetectionThread['type']) => void) | undefined;
/** When the last commit to the log was announced (a poke), for burst pacing. */
let lastWriteAt = 0;
port.on('message', (message: ToDetectionThread) => {
  if (message.type === 'stop') stop.abort();
  if (message.type === 'poke') lastWriteAt = Date.now();
  wake?.(message.type);
});

post({
  type: 'ready',
  rules: setup.compilation.rules.length,
  correlations: setup.compilation.correlations.length,
  rejected: setup.compilation.rejected.length,
});

// This thread's connection is its own: the server's dispatcher hears of deliveries a chunk
// queued from the progress message, which is sent after the commit.
let webhooksQueued = false;
onDeliveriesQueued(() => {
  webhooksQueued = true;
});

let failuresInARow = 0;
while (!stopping()) {
  let pause = POLL_MS;
  /** Resting during a burst: new writes do not cut the rest short (they are the burst). */
  let resting = false;
  webhooksQueued = false;
  try {
    const began = performance.now();
    const result = await follower.runChunk();
    if (failuresInARow > 0) post({ type: 'recovered' });
    failuresInARow = 0;
    // Another process moved the cursor first: what it left may be read at once.
    if (result.moved) pause = 0;
    const committed = takeCommitted();
    if (committed) {
      // Straight on to the next chunk unless a burst has outrun detection (burst-pacing.ts). Only
      // where the lag is cheap to ask (the log's end minus the cursor); counting the unprocessed
      // rows after every chunk would cost more than the pacing saves.
      const sinceWriteMs = Date.now() - lastWriteAt;
      if (log.lagIsCheap && sinceWriteMs < ACTIVE_GAP_MS) {
        const tookMs = performance.now() - began;
        pause = restAfterChunk({ tookMs, sinceWriteMs, lag: await log.lag(DETECTION_CURSOR) });
      } else pause = 0;
      resting = pause > 0;
      post({
        type: 'progress',
        records: committed.records,
        observations: committed.observations,
        failures: failureMessages(committed.failures),
        ...delaysOf(committed),
        webhooks: webhooksQueued,
      });
    }
  } catch (error) {
    // New records must not cut a back-off short: every commit pokes the loop, so a full disk
    // would otherwise be retried (and reported) at the ingest rate.
    pause = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** failuresInARow);
    failuresInARow++;
    const fault = storageFault(error);
    const message = fault
      ? `${describeFault(fault)} (${errorMessage(error)})`
      : error instanceof Error
        ? error.message
        : String(error);
    post({ type: 'error', message, ...(fault ? { fault } : {}), retryInMs: pause });
  }
  // SQLite answers synchronously, so a busy loop never reaches the event loop on its own: yield
  // between chunks, or a 'stop' message would wait for the whole backlog to be processed.
  if (pause === 0) await new Promise((resolve) => setImmediate(resolve));
  if (pause > 0 && !stopping()) {
    const backingOff = failuresInARow > 0;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pause);
      wake = (reason) => {
        if ((backingOff || resting) && reason === 'poke') return;
        clearTimeout(timer);
        resolve();
      };
    });
    wake = undefined;
  }
}
await database.close();
post({ type: 'stopped' });
// The message listener would keep the thread alive: closing the port lets it exit.
port.close();
