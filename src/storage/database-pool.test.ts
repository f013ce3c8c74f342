// A PostgreSQL connection dropped by the server while the pool has lent it out between two
// queries (a transaction doing work in between): the process keeps running, that client's next
// query fails, and the pool serves the next caller on a new connection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { databaseTargets, type TestDatabase } from '../../test/helpers/databases.js';
import { createPool } from './database.js';

const postgres = databaseTargets.find((target) => target.kind === 'postgres');

describe('PostgreSQL pool', { skip: postgres?.skip ?? 'no PostgreSQL target' }, () => {
  let testDb: TestDatabase;
  before(async () => {
    if (!postgres) throw new Error('no PostgreSQL target');
    testDb = await postgres.create();
  });
  after(() => testDb.cleanup());

  test('a connection dropped while lent out is no uncaught error; the pool goes on', async () => {
    const name = `pool-test-${randomUUID()}`;
    const pool = createPool({ connectionString: testDb.databaseUrl, application_name: name, max: 2 });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const lent = await pool.connect();
      await lent.query('SELECT 1');
      const admin = new pg.Client({ connectionString: testDb.databaseUrl });
      await admin.connect();
      try {
        const killed = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
          [name],
        );
        assert.equal(killed.rowCount, 1);
      } finally {
        await admin.end();
      }
      // Long enough for the server's message and the socket's end to arrive.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await assert.rejects(lent.query('SELECT 1'), 'the dropped client says so on its next query');
      lent.release();
      const answer = await pool.query<{ one: number }>('SELECT 1 AS one');
      assert.equal(answer.rows[0]?.one, 1);
      assert.deepEqual(uncaught, [], 'nothing escaped as an uncaught error');
    } finally {
      process.off('uncaughtException', onUncaught);
      await pool.end();
    }
  });
});
