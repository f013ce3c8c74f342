// A text search waits only briefly for the index: past that it answers with what is indexed and
// says up to when that is complete, per tenant; it never waits for a catch-up that lags.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sql } from 'kysely';
import { tempDir } from '../../test/helpers/databases.js';
import { openDatabase, type SqliteDatabase } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { COMPLETE, freshIndex } from './search-index.js';

let dataDir: string;
let database: SqliteDatabase;
const tenants: Record<string, number> = {};
const RECEIVED = Date.UTC(2026, 11, 2, 9, 0, 0);

before(async () => {
  dataDir = tempDir();
  const opened = await openDatabase({ dataDir, databaseUrl: '' });
  if (opened.kind !== 'sqlite') throw new Error('expected SQLite');
  database = opened;
  await migrateToLatest(database);
  for (const code of ['busy', 'quiet']) {
    await sql`INSERT INTO tenants (code_name, name, created_at) VALUES (${code}, ${code}, 0)`.execute(database.db);
    tenants[code] = (
      await database.db.selectFrom('tenants').select('id').where('code_name', '=', code).executeTakeFirstOrThrow()
    ).id;
  }
  // quiet's record first, then busy's ten, one second apart; the index has reached the fourth.
  const rows: [number, number][] = [[tenants.quiet ?? 0, RECEIVED]];
  for (let i = 1; i <= 10; i++) rows.push([tenants.busy ?? 0, RECEIVED + i * 1000]);
  for (const [tenantId, at] of rows)
    await sql`INSERT INTO telemetry_records (tenant_id, received_at, event_time, record)
      VALUES (${tenantId}, ${at}, ${at}, '{"message":"hello"}')`.execute(database.db);
  const fourth = await sql<{ seq: number }>`SELECT seq FROM telemetry_records ORDER BY seq LIMIT 1 OFFSET 3`.execute(
    database.db,
  );
  await sql`UPDATE log_cursors SET seq = ${fourth.rows[0]?.seq ?? 0} WHERE name = 'search_index'`.execute(database.db);
});

after(async () => {
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const never = () => new Promise<void>(() => undefined);

test('past its wait a search is partial, complete up to the receive time of the first record not indexed', async () => {
  const started = performance.now();
  const freshness = await freshIndex(database.db, tenants.busy ?? 0, never, 50);
  assert.ok(performance.now() - started < 2_000, 'it did not wait for the catch-up');
  // Indexed: quiet's record and busy's first three; busy's fourth (received at +4 s) is not.
  assert.deepEqual(freshness, { partial: true, completeUpTo: RECEIVED + 4_000 });
});

test('a tenant whose records are all indexed is complete, whatever other tenants wait for', async () => {
  assert.deepEqual(await freshIndex(database.db, tenants.quiet ?? 0, never, 50), COMPLETE);
});

test('a catch-up that indexes the rest within the wait makes the search complete; one that did not, not', async () => {
  // Resolving is not enough: a catch-up shared with an earlier search may have stopped short.
  assert.equal((await freshIndex(database.db, tenants.busy ?? 0, () => Promise.resolve(), 1_000)).partial, true);
  const indexAll = async () => {
    await sql`UPDATE log_cursors SET seq = (SELECT max(seq) FROM telemetry_records) WHERE name = 'search_index'`.execute(
      database.db,
    );
  };
  assert.deepEqual(await freshIndex(database.db, tenants.busy ?? 0, indexAll, 1_000), COMPLETE);
});
