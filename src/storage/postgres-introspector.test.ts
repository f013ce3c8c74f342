// Migrations must not fail because some other schema in the same database is dropped while they
// run (another Sightline install sharing the database, or a parallel test cleaning up). Kysely's
// own introspector failed here with `schema "…" does not exist`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from './database.js';
import { migrateToLatest } from './migrate.js';
import { databaseTargets, tempDir } from '../../test/helpers/databases.js';
import { dropSchema } from '../../test/helpers/postgres.js';

const target = databaseTargets.find((candidate) => candidate.kind === 'postgres')!;
const base = process.env.SIGHTLINE_TEST_DATABASE_URL ?? '';

describe('PostgreSQL migrations beside other schemas', { skip: target.skip }, () => {
  let stop = false;
  let churners: Promise<void>[] = [];

  // Other schemas appear and vanish continuously while the migrations below run.
  async function churn(): Promise<void> {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      while (!stop) {
        const schema = `churn_${randomBytes(4).toString('hex')}`;
        await client.query(
          `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.a (x serial PRIMARY KEY, y text); CREATE TABLE ${schema}.b (x int)`,
        );
        await client.query(`DROP SCHEMA ${schema} CASCADE`);
      }
    } finally {
      await client.end();
    }
  }

  before(() => {
    churners = [churn(), churn(), churn()];
  });
  after(async () => {
    stop = true;
    await Promise.all(churners);
  });

  test('a fresh schema migrates while other schemas are created and dropped', async () => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const database = await openDatabase({
        databaseUrl: `${base}${base.includes('?') ? '&' : '?'}schema=${schema}`,
        dataDir: tempDir(),
      });
      try {
        const applied = await migrateToLatest(database);
        assert.ok(applied.length > 0, 'every migration applied to the fresh schema');
        const tables = await database.db.introspection.getTables();
        assert.ok(tables.length > 0);
        assert.ok(
          tables.every((table) => table.schema === schema),
          'only our schema is introspected',
        );
        assert.ok(tables.some((table) => table.name === 'telemetry_records'));
        assert.ok(
          !tables.some((table) => table.name.startsWith('kysely_migration')),
          'bookkeeping tables hidden unless asked for',
        );
      } finally {
        await database.close();
        await dropSchema(base, schema);
      }
    }
  });
});
