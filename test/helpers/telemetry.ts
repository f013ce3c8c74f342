// Calling /v1/telemetry in tests: every page of a search, the raw export response, one tail
// call, a tail polled until what a test expects has arrived; and the suites' readers.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RecordAsRead as StoredRecord } from '../../src/telemetry/telemetry-service.js';
import { parseTelemetryQuery } from '../../src/telemetry/telemetry-query.js';
import type { RecordMatch } from '../../src/telemetry/telemetry-store.js';
import { apiClient, bearer, issueToken, type ApiClient, type ApiResponse } from './api.js';
import type { ApiSuite } from './suite.js';
import type { RecordSearch } from './responses.js';
import type { TestServer } from './server.js';
import type { Database } from '../../src/storage/database.js';
import { streamRecords, type TelemetryReader } from '../../src/telemetry/telemetry-service.js';
import { stringifyWithRawJson } from '../../src/core/exact-json.js';
import { storagePorts } from '../../src/storage/ports/storage-ports.js';

/** Every record of a search, following next_cursor; also returns how many pages it took. */
export async function searchAll(
  client: ApiClient,
  body: Record<string, unknown>,
): Promise<{ records: StoredRecord[]; pages: number }> {
  // A text search answers with what the index holds after a short wait, saying when that is not
  // everything (`partial`): as a client should, ask again until it is complete.
  const deadline = Date.now() + PARTIAL_RETRY_MS;
  for (;;) {
    const found = await searchPages(client, body);
    if (!found.partial) return { records: found.records, pages: found.pages };
    assert.ok(Date.now() < deadline, `the search was still partial after ${PARTIAL_RETRY_MS} ms`);
    await sleep(100);
  }
}

/** How long searchAll asks again while the search index catches up. */
const PARTIAL_RETRY_MS = 30_000;

async function searchPages(
  client: ApiClient,
  body: Record<string, unknown>,
): Promise<{ records: StoredRecord[]; pages: number; partial: boolean }> {
  const records: StoredRecord[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let partial = false;
  do {
    const response: ApiResponse<RecordSearch> = await client.post('/v1/telemetry/search', {
      ...body,
      ...(cursor ? { cursor } : {}),
    });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    records.push(...response.body.records);
    partial ||= response.body.partial;
    cursor = response.body.next_cursor;
    pages++;
  } while (cursor);
  return { records, pages, partial };
}

/** POST /v1/telemetry/export with a token; the raw response, to read the stream or the problem. */
export async function exportRecords(server: TestServer, token: string, body: unknown): Promise<Response> {
  return fetch(`${server.baseUrl}/v1/telemetry/export`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** POST /v1/telemetry/tail */
export interface TailAnswer {
  records: StoredRecord[];
  tail_cursor: string;
  caught_up: boolean;
}

/** One tail call; asserts success. */
export async function tail(client: ApiClient, body: Record<string, unknown>): Promise<TailAnswer> {
  const response = await client.post<TailAnswer>('/v1/telemetry/tail', body);
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body;
}

/**
 * Polls the tail from `cursor` until `done` says enough has arrived and the tail is caught
 * up; returns every record returned and the final cursor. PostgreSQL holds records back
 * while older write transactions run (other suites share the server), hence the deadline.
 */
export async function drainTail(
  client: ApiClient,
  body: Record<string, unknown>,
  cursor: string,
  done: (records: StoredRecord[]) => boolean,
): Promise<{ records: StoredRecord[]; cursor: string }> {
  const records: StoredRecord[] = [];
  const deadline = Date.now() + 20_000;
  for (;;) {
    const answer = await tail(client, { ...body, tail_cursor: cursor });
    records.push(...answer.records);
    cursor = answer.tail_cursor;
    if (answer.caught_up && done(records)) return { records, cursor };
    assert.ok(Date.now() < deadline, `the tail did not deliver in time: ${records.length} records so far`);
    if (answer.caught_up) await sleep(50);
  }
}

/** Clients with telemetry:read for acme (and its token, for the export) and for globex. */
export async function telemetryReaders(
  suite: ApiSuite,
): Promise<{ acmeToken: string; reader: ApiClient; globexReader: ApiClient }> {
  const { server, acme, globex } = suite;
  const acmeToken = (await issueToken(server, acme, ['telemetry:read'])).value;
  return {
    acmeToken,
    reader: apiClient(server, bearer(acmeToken)),
    globexReader: apiClient(server, bearer((await issueToken(server, globex, ['telemetry:read'])).value)),
  };
}

/** A store-level match for a query of the telemetry query language (bare words: all must occur). */
export function matchText(query: string): RecordMatch {
  const parsed = parseTelemetryQuery(query);
  return parsed ? { query: parsed } : {};
}

/** How the CLI reads telemetry: the database and its search index port, without a server's writer. */
export function readerOf(database: Database): TelemetryReader {
  const ports = storagePorts(database);
  return { database, storage: ports.telemetry, searchIndex: ports.searchIndex };
}

/** Every stored record matching, read straight from the database, as a client would read each. */
export async function readStored(
  reader: TelemetryReader,
  tenantId: number,
  match: RecordMatch = {},
): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  for await (const record of streamRecords(reader, tenantId, match))
    records.push(JSON.parse(stringifyWithRawJson(record)) as StoredRecord);
  return records;
}
