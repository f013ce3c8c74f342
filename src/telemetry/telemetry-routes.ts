// Placeholder: replaced by the telemetry search and export routes.
import type { FastifyInstance } from 'fastify';
import type { Database } from '../storage/database.js';
import type { RecordLogWriter } from '../pipeline/record-log.js';

export async function telemetryRoutes(_app: FastifyInstance, _deps: { database: Database; writer: RecordLogWriter }): Promise<void> {}
