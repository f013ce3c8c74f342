// The storage ports a test hands to a feature, built from the opened database as the server
// builds them (src/storage/ports/storage-ports.ts), so suites beside a feature need not name a backend.
import type { Database } from '../../src/storage/database.js';
import { storagePorts } from '../../src/storage/ports/storage-ports.js';
import type { TelemetryReader } from '../../src/telemetry/telemetry-service.js';

export { storagePorts };

/** A reader of the database's telemetry, with no writer keeping its search index. */
export function telemetryReader(database: Database): TelemetryReader {
  const ports = storagePorts(database);
  return { database, storage: ports.telemetry, searchIndex: ports.searchIndex };
}
