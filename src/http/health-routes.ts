// Liveness, readiness and Prometheus metrics. /healthz says the process answers; /readyz says
// it can take work (database reachable, record writer alive, write queue under its limit).
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Tables } from '../storage/schema.js';
import type { GroupCommitQueue } from '../pipeline/group-commit.js';
import type { RecordLogWriter } from '../pipeline/record-log.js';
import type { Metrics } from '../observability/metrics.js';
import { searchIndexLag } from '../telemetry/telemetry-store.js';

export interface HealthDependencies {
  db: Kysely<Tables>;
  queue: GroupCommitQueue;
  writer: RecordLogWriter;
  metrics: Metrics;
}

export async function healthRoutes(app: FastifyInstance, deps: HealthDependencies): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const checks = {
      database: await databaseReachable(deps.db),
      record_writer: deps.writer.healthy ? 'ok' : 'failed',
      write_queue: deps.queue.overLimit ? 'full' : 'ok',
    };
    const ready = Object.values(checks).every((value) => value === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks, queue_bytes: deps.queue.pendingBytes });
  });

  app.get('/metrics', async (_request, reply) => {
    deps.metrics.queueBytes.set(deps.queue.pendingBytes);
    deps.metrics.searchIndexLag.set(await searchIndexLag(deps.db));
    return reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });
}

async function databaseReachable(db: Kysely<Tables>): Promise<string> {
  try {
    await sql`SELECT 1`.execute(db);
    return 'ok';
  } catch (error) {
    return `unreachable: ${(error as Error).message}`;
  }
}
