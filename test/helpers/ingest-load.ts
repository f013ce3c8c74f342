// Load as forwarders send it, for the tests that stop the server mid-load: senders post fresh
// NDJSON batches of application records, resend a batch that got no 201 until it does (or time
// is up), and collect the markers of every record that was acknowledged.
import http from 'node:http';
import { appRecord, ndjson } from './factories.js';
import { spawnSightline, type Child } from './processes.js';

/**
 * How long a server started from source may take to answer /readyz. Generous: on a CI machine
 * running the other suites alongside, compiling the sources alone can take half a minute.
 */
export const READY_TIMEOUT_MS = 90_000;

/** `sightline serve` from source on a test database, as its own process (the one that gets killed). */
export function spawnServer(
  database: { dataDir: string; databaseUrl: string },
  port: number,
  logLevel = 'warn',
): Child {
  const storage = ['--data', database.dataDir, ...(database.databaseUrl ? ['--database', database.databaseUrl] : [])];
  return spawnSightline(['serve', ...storage, '--port', String(port), '--log-level', logLevel]);
}

export const SENDERS = 6;
export const RECORDS_PER_REQUEST = 200;

function post(port: number, body: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/log_sink',
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        agent: false,
        timeout: 20_000,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', () => resolve(0));
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
    request.end(body);
  });
}

export interface LoadResult {
  acknowledged: Set<string>;
  failedAttempts: number;
}

/** Each sender posts fresh batches; a failed batch is resent until it gets a 201 or time is up. */
export async function generateLoad(port: number, until: () => boolean): Promise<LoadResult> {
  const acknowledged = new Set<string>();
  let failedAttempts = 0;
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (!until()) {
        const records = Array.from({ length: RECORDS_PER_REQUEST }, () => appRecord());
        const body = ndjson(records);
        let status = 0;
        while (!until()) {
          status = await post(port, body);
          if (status === 201) break;
          failedAttempts++;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        if (status === 201) for (const record of records) acknowledged.add(String(record.marker));
      }
    }),
  );
  return { acknowledged, failedAttempts };
}
