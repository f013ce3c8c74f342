// How SQLite reads the rows of a page. The server never runs ANALYZE, and without statistics
// SQLite takes `tenant_id = ?` for a better filter than an IN list of a few keys (3 or more; 8
// when sorted by the key), and any tenant-first index for as good as one in the page's order:
// it then read every index entry of the tenant to find a page's few rows, or sorted all of the
// tenant's rows to return the newest hundred. Rows fetched by key (a case page's devices, their
// addresses, the cases' summaries, the cases of a list of observations, the cases a merge locks,
// the cases merged into a case,
// the process and network events of an observation's records, the other cases holding a case's
// observables)
// must be found by that key; a list in index order must be read in that order, not sorted.
// Each store function runs against a migrated SQLite file and the plan of what it sent is read.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { Tables } from '../../src/storage/schema.js';
import { findAddresses, findDevicesByIds } from '../../src/devices/device-store.js';
import { findSummaries } from '../../src/summaries/summary-store.js';
import { casesMergedInto, lockCases } from '../../src/cases/case-store.js';
import { sqliteRowLocks } from '../../src/storage/sqlite/row-locks.js';
import { findObservationCases, listObservations } from '../../src/observations/observation-store.js';
import { recordEvents } from '../../src/telemetry/process-event-reads.js';
import { listObservables, observableSpread, sharedValues } from '../../src/cases/case-observable-store.js';
import { closeOpened } from '../helpers/suite.js';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';

/** Keys of a page: enough for SQLite to prefer the tenant's index entries when nothing else serves the lookup. */
const KEYS = Array.from({ length: 20 }, (_, i) => `key_${i}`);

describe('page reads on SQLite without statistics', () => {
  let testDb: TestDatabase;
  let connection: SQLite.Database;
  let db: Kysely<Tables>;
  const sent: CompiledQuery[] = [];

  before(async () => {
    testDb = await databaseTargets[0]!.create();
    const database = await openDatabase({ dataDir: testDb.dataDir, databaseUrl: '' });
    await migrateToLatest(database);
    await database.close();
    connection = new SQLite(path.join(testDb.dataDir, 'sightline.db'));
    db = new Kysely<Tables>({
      dialect: new SqliteDialect({ database: connection }),
      log: (event) => {
        if (event.level === 'query') sent.push(event.query);
      },
    });
  });
  after(() => closeOpened(db, testDb));

  /** The plan of the one statement `run` sends. */
  async function planOf(run: () => Promise<unknown>): Promise<string[]> {
    sent.length = 0;
    await run();
    assert.equal(sent.length, 1, 'one statement');
    const query = sent[0]!;
    const rows = connection.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...(query.parameters as unknown[])) as {
      detail: string;
    }[];
    return rows.map((row) => row.detail);
  }

  /** The table is searched by the key (with or without the tenant beside it), never by the tenant alone. */
  function assertByKey(plan: string[], table: string, key: string): void {
    const search = plan.find((line) => new RegExp(`^(SEARCH|SCAN) ${table}\\b`).test(line));
    assert.ok(search, `${table} is read: ${plan.join(' / ')}`);
    assert.match(
      search,
      new RegExp(`^SEARCH ${table} USING (COVERING )?INDEX \\w+ \\((tenant_id=\\? AND )?${key}=\\?\\)`),
      plan.join(' / '),
    );
  }

  test('devices by id', async () => {
    assertByKey(await planOf(() => findDevicesByIds(db, 1, KEYS)), 'devices', 'id');
  });

  test('the addresses of devices, one device or many', async () => {
    assertByKey(await planOf(() => findAddresses(db, 1, KEYS.slice(0, 1))), 'device_addresses', 'device_id');
    assertByKey(await planOf(() => findAddresses(db, 1, KEYS)), 'device_addresses', 'device_id');
  });

  test('summaries of a page of cases', async () => {
    assertByKey(await planOf(() => findSummaries(db, 1, KEYS)), 'case_summaries', 'case_id');
  });

  test('the cases of a list of observations: from the observations to their cases, never every case', async () => {
    const plan = await planOf(() => findObservationCases(db, 1, KEYS));
    assert.match(plan[0] ?? '', /^SEARCH case_observations\b/, `the observations drive: ${plan.join(' / ')}`);
    assertByKey(plan, 'case_observations', 'observation_id');
    assertByKey(plan, 'cases', 'id');
  });

  test("the cases merged into a case (each case's detail), by the case merged into", async () => {
    const plan = await planOf(() => casesMergedInto(db, 1, 'case_1'));
    assert.match(plan[0] ?? '', /^SEARCH cases USING INDEX cases_merged_into \(merged_into=\?\)$/, plan.join(' / '));
  });

  test('the cases a merge locks', async () => {
    assertByKey(await planOf(() => lockCases(db, sqliteRowLocks, 1, KEYS)), 'cases', 'id');
  });

  test('the newest observations are read in order, not sorted (GET /v1/observations, unfiltered and by level)', async () => {
    for (const filter of [{}, { levels: ['high', 'critical'] }]) {
      const plan = await planOf(() => listObservations(db, 1, filter, { limit: 100 }));
      assert.match(plan[0] ?? '', /^SEARCH observations USING INDEX \w+ \(tenant_id=\?\)$/, plan.join(' / '));
      assert.ok(
        !plan.some((line) => line.includes('TEMP B-TREE')),
        `no sort of the tenant's observations: ${plan.join(' / ')}`,
      );
    }
  });

  test("the process and network events of an observation's records, by record, not by walking the tenant's events", async () => {
    const seqs = KEYS.map((_, i) => 1_000 + i);
    for (const table of ['endpoint_process_events', 'network_process_events'] as const) {
      assertByKey(await planOf(() => recordEvents(db, table, 1, seqs, 10)), table, 'record_seq');
    }
  });

  test("a case's observables, in order; the cases and devices holding each value, by value, never the tenant's", async () => {
    const listed = await planOf(() => listObservables(db, 1, 'case_1', false));
    assert.match(
      listed[0] ?? '',
      /^SEARCH case_observables USING INDEX case_observables_case \(tenant_id=\? AND case_id=\?\)$/,
    );
    assert.ok(!listed.some((line) => line.includes('TEMP B-TREE FOR ORDER BY')), listed.join(' / '));
    for (const plan of [
      await planOf(() => observableSpread(db, 1, 'case_1')),
      await planOf(() => sharedValues(db, 1, 'case_1', { perValue: 50, limit: 5_000 })),
    ]) {
      const reads = plan.filter((line) => /^(SEARCH|SCAN) (case_observables|o|x|cd)\b/.test(line));
      assert.match(
        reads[0] ?? '',
        /^SEARCH o USING INDEX case_observables_case \(tenant_id=\? AND case_id=\?\)$/,
        plan.join(' / '),
      );
      for (const line of reads.slice(1))
        assert.match(line, /\(tenant_id=\? AND (type=\? AND value=\?|case_id=\?)\)$/, plan.join(' / '));
    }
  });
});
