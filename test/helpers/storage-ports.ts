// The storage ports a test hands to a feature, built from the opened database as the server
// builds them (src/app/storage-ports.ts), so suites beside a feature need not name a backend.
import type { Database } from '../../src/storage/database.js';
import { storagePorts } from '../../src/app/storage-ports.js';
import type { TelemetryReader } from '../../src/telemetry/telemetry-service.js';

export { storagePorts };

/** A reader of the database's telemetry, with no writer keeping its search index. */
export function telemetryReader(database: Database): TelemetryReader {
  return { database, storage: storagePorts(database).telemetry };
}
