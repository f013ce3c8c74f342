// Liveness, readiness and Prometheus metrics. /healthz says the process answers; /readyz says
// it can take work (database reachable, record writer alive, write queue under its limit).
// /metrics describes the whole deployment (volumes, errors), so on the main port it needs the
// scraper's bearer token (--metrics-token); --metrics-listen serves it on a private address.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../storage/schema.js';
import type { RecordLogReader, RecordLogWriter, RecordQueue } from '../record-log/record-log.js';
import type { ScaleNode } from './scale-node.js';
import type { Metrics } from '../observability/metrics.js';
import { searchIndexLag } from '../telemetry/telemetry-store.js';
import { DETECTION_CURSOR } from '../detection/detection-cursor.js';
import type { DetectionThreadHost } from '../pipeline/detection-thread-host.js';
import { describeFault, type StorageFault } from '../storage/storage-errors.js';
import { AppError } from '../core/errors.js';
import { sameSecret, sha256 } from '../core/secrets.js';

const HealthSchema = Type.Object({ status: Type.Literal('ok') });

const FAULTS = ['disk_full', 'read_only', 'locked', 'io_error', 'unreachable'] as const satisfies StorageFault[];
const Fault = FAULTS.map((fault) => Type.Literal(fault));

const ReadinessSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  checks: Type.Object({
    database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
    record_writer: Type.Union([Type.Literal('ok'), Type.Literal('failed'), ...Fault], {
      description: 'The record-log writer: ok, its thread failed, or why its last write failed (disk_full, …)',
    }),
    storage: Type.Union([Type.Literal('ok'), ...Fault], {
      description: 'The storage fault the writer or detection last met, until they write again',
    }),
    write_queue: Type.Union([Type.Literal('ok'), Type.Literal('full')]),
    detection: Type.Union([Type.Literal('ok'), Type.Literal('failing'), Type.Literal('off')], {
      description:
        'The detection thread: running, failing (retrying), or off in this process. Lag alone never makes the server not ready.',
    }),
  }),
  reasons: Type.Array(Type.String(), { description: 'What is wrong, one line per failing component' }),
  queue_bytes: Type.Integer(),
  detection_lag_records: Type.Integer({
    description:
      'Records the detection thread has not processed yet (scale-out: 0, detection runs in each stream batch apply; see scale.consumer_lag)',
  }),
  scale: Type.Optional(
    Type.Object(
      {
        roles: Type.Array(Type.String(), { description: 'The roles this process plays' }),
        queue: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')], {
          description: 'NATS connected with the record-log stream in place',
        }),
        worker: Type.Union([Type.Literal('ok'), Type.Literal('failing'), Type.Literal('off')]),
        partitions_owned: Type.Array(Type.Integer(), {
          description: 'Record-log stream partitions this node holds (worker role)',
        }),
        maintenance_lease: Type.Boolean({
          description: 'Whether this node holds the maintenance lease (it moves the search index cursor on)',
        }),
        consumer_lag: Type.Record(Type.String(), Type.Integer(), {
          description: 'Per owned stream partition: messages not yet applied',
        }),
        dead_letters: Type.Integer({
          description: 'Record-log messages set aside as unappliable (table log_dead_letters; the log says why)',
        }),
      },
      { description: 'Scale-out mode only (docs/scale.md)' },
    ),
  ),
});

export interface HealthDependencies {
  db: Kysely<Tables>;
  queue: RecordQueue;
  writer: RecordLogWriter;
  /** The scale-out parts, when the record log is on NATS JetStream. */
  scale: ScaleNode | undefined;
  /** The record log as its consumers see it (for detection's lag). */
  log: RecordLogReader;
  metrics: Metrics;
  /** Absent when detection is off in this process. */
  detectionThread: DetectionThreadHost | undefined;
  /** The bearer token /metrics needs on the main port; empty: it is refused there. */
  metricsToken: string;
}

/** The Prometheus exposition, gauges refreshed first. */
export async function metricsText(
  deps: Pick<HealthDependencies, 'db' | 'queue' | 'log' | 'metrics' | 'scale'>,
): Promise<{ contentType: string; text: string }> {
  deps.metrics.queueBytes.set(deps.queue.pendingBytes);
  // Refreshes the scale-out gauges (connection, consumer lag).
  await deps.scale?.status();
  deps.metrics.searchIndexLag.set(await searchIndexLag(deps.db));
  // Scale-out: detection runs inside each batch's apply, so its lag is the consumers' lag.
  deps.metrics.detectionLag.set(deps.scale ? 0 : await deps.log.lag(DETECTION_CURSOR));
  return { contentType: deps.metrics.registry.contentType, text: await deps.metrics.registry.metrics() };
}

/** Whether the request carries the metrics bearer token (compared by hash, in constant time). */
function presentsMetricsToken(authorization: string | undefined, token: string): boolean {
  if (token === '' || !authorization?.startsWith('Bearer ')) return false;
  return sameSecret(sha256(authorization.slice('Bearer '.length).trim()), sha256(token));
}

export async function healthRoutes(app: FastifyInstance, deps: HealthDependencies): Promise<void> {
  app.get('/healthz', { schema: { summary: 'Liveness', response: { 200: HealthSchema } } }, async () => ({
    status: 'ok' as const,
  }));

  app.get(
    '/readyz',
    { schema: { summary: 'Readiness', response: { 200: ReadinessSchema, 503: ReadinessSchema } } },
    async (request, reply) => {
      const database = await databaseReachable(deps.db, request.log);
      const detectionThread = deps.detectionThread;
      const writerFault = deps.writer.fault;
      const detectionFault = detectionThread?.fault;
      const storage = writerFault ?? detectionFault ?? 'ok';
      const checks = {
        database,
        record_writer: deps.writer.healthy ? (writerFault ?? 'ok') : 'failed',
        storage,
        write_queue: deps.queue.overLimit ? 'full' : 'ok',
        detection: detectionThread ? (detectionThread.healthy ? 'ok' : 'failing') : 'off',
      } as const;
      const reasons = [
        database === 'ok' ? undefined : 'database: not reachable',
        !deps.writer.healthy
          ? 'record_writer: its thread has stopped'
          : writerFault && `record_writer: ${describeFault(writerFault)}`,
        checks.write_queue === 'full'
          ? 'write_queue: full; the collector answers 503 until commits catch up'
          : undefined,
        detectionThread?.error ? `detection: ${detectionThread.error}` : undefined,
      ].filter((reason): reason is string => typeof reason === 'string');
      const ready =
        checks.database === 'ok' &&
        checks.record_writer === 'ok' &&
        checks.write_queue === 'ok' &&
        checks.detection !== 'failing';
      const lag = database === 'ok' && !deps.scale ? await deps.log.lag(DETECTION_CURSOR) : 0;
      const scale = await deps.scale?.status();
      const allReady = ready && (scale?.ready ?? true);
      return reply.code(allReady ? 200 : 503).send({
        status: allReady ? 'ready' : 'not_ready',
        checks,
        reasons: [...reasons, ...(scale?.reasons ?? [])],
        queue_bytes: deps.queue.pendingBytes,
        detection_lag_records: lag,
        ...(scale ? { scale: scale.status } : {}),
      });
    },
  );

  app.get('/metrics', async (request, reply) => {
    if (!presentsMetricsToken(request.headers.authorization, deps.metricsToken)) {
      throw new AppError(
        'invalid_credentials',
        deps.metricsToken === ''
          ? 'metrics are not served on this port: set SIGHTLINE_METRICS_TOKEN for scrapers, or --metrics-listen'
          : 'send the metrics token as Authorization: Bearer <token>',
        { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } },
      );
    }
    const { contentType, text } = await metricsText(deps);
    return reply.type(contentType).send(text);
  });
}

/** The reason goes to the server log only: it can name hosts and users. */
async function databaseReachable(db: Kysely<Tables>, log: FastifyBaseLogger): Promise<string> {
  try {
    await sql`SELECT 1`.execute(db);
    return 'ok';
  } catch (error) {
    log.warn({ err: error }, 'readiness: database unreachable');
    return 'unreachable';
  }
}
