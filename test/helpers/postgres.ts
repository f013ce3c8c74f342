// PostgreSQL housekeeping shared by the tests and the benchmarks (no side effects on import).
import pg from 'pg';

/** Drops a schema made for a test or benchmark run (`schema` is generated, never user input). */
export async function dropSchema(pgUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
