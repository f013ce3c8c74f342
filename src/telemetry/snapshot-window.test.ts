// Cutting a snapshot with too many running transactions to carry (boundedSnapshot), checked
// with the server's own visibility test: the cut sees no more than the moment it was taken at
// and no less than the window's start, so a window ending there neither skips nor repeats.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { databaseTargets, type TestDatabase } from '../../test/helpers/databases.js';
import { schemaClient } from '../../test/helpers/postgres.js';
import { boundedSnapshot } from './snapshot-window.js';

const postgres = databaseTargets.find((target) => target.kind === 'postgres')!;

describe('snapshots cut to a bounded size', { skip: postgres.skip }, () => {
  let testDb: TestDatabase;
  let main: pg.Client;
  const running: pg.Client[] = [];

  before(async () => {
    testDb = await postgres.create();
    main = await schemaClient(testDb.databaseUrl);
  });
  after(async () => {
    for (const client of running) await client.end();
    await main.end();
    await testDb.cleanup();
  });

  const snapshot = async () => (await main.query<{ s: string }>('SELECT pg_current_snapshot()::text AS s')).rows[0]!.s;

  /** A transaction left running with an id, then one that commits after it. */
  async function runningThenCommitted(): Promise<void> {
    const client = await schemaClient(testDb.databaseUrl);
    running.push(client);
    await client.query('BEGIN');
    await client.query('SELECT pg_current_xact_id()');
    await main.query('SELECT pg_current_xact_id()');
  }

  /** Transaction ids in [from, to) that `a` sees and `b` does not. */
  async function seenOnlyBy(a: string, b: string, from: string, to: string): Promise<string[]> {
    const result = await main.query<{ id: string }>(
      `SELECT g::text AS id FROM generate_series($3::bigint, $4::bigint - 1) AS g
       WHERE pg_visible_in_snapshot(g::text::xid8, $1::pg_snapshot)
         AND NOT pg_visible_in_snapshot(g::text::xid8, $2::pg_snapshot)`,
      [a, b, from, to],
    );
    return result.rows.map((row) => row.id);
  }

  const xminOf = (s: string) => s.slice(0, s.indexOf(':'));
  const xmaxOf = (s: string) => s.split(':')[1]!;

  test('a cut sees what the window start saw, and nothing the moment did not', async () => {
    for (let i = 0; i < 4; i++) await runningThenCommitted();
    const seen = await snapshot();
    for (let i = 0; i < 4; i++) await runningThenCommitted();
    const now = await snapshot();
    const from = xminOf(seen);
    const to = String(BigInt(xmaxOf(now)) + 1n);
    // Room for one running transaction at most: far fewer than are running.
    for (const maxChars of [`${xminOf(now)}:${xmaxOf(now)}:`.length + 1, now.length - 1]) {
      const cut = boundedSnapshot(now, seen, maxChars);
      assert.ok(cut.length < now.length, `${cut} is shorter than ${now}`);
      assert.deepEqual(await seenOnlyBy(seen, cut, from, to), [], `${cut} sees all that ${seen} saw`);
      assert.deepEqual(await seenOnlyBy(cut, now, from, to), [], `${cut} sees nothing ${now} does not`);
    }
    // With room for most of the running list the cut also sees past the window start.
    const roomy = boundedSnapshot(now, seen, now.length - 1);
    assert.notDeepEqual(await seenOnlyBy(roomy, seen, from, to), [], `${roomy} moves past ${seen}`);
    // With no window start the cut keeps the oldest running transactions that fit.
    const fresh = boundedSnapshot(now, undefined, `${xminOf(now)}:${xmaxOf(now)}:`.length + 1);
    assert.equal(fresh, `${xminOf(now)}:${xminOf(now)}:`);
    assert.deepEqual(await seenOnlyBy(fresh, now, from, to), []);
    assert.equal(boundedSnapshot(now, seen, now.length), now, 'a snapshot that fits is kept whole');
  });
});
