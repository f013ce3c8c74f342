// PostgreSQL housekeeping shared by the tests and the benchmarks (no side effects on import).
import { randomBytes } from 'node:crypto';
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

/** A schema of its own for one test or benchmark run, named `<prefix>_<time>_<random>`. */
export interface FreshSchema {
  schema: string;
  /** The URL with `?schema=` naming it: what the server and the CLI are given. */
  url: string;
  /** The URL without a schema: where dropSchema connects. */
  baseUrl: string;
}

export function freshSchema(pgUrl: string, prefix: string): FreshSchema {
  const schema = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const url = new URL(pgUrl);
  url.searchParams.delete('schema');
  const baseUrl = url.toString();
  url.searchParams.set('schema', schema);
  return { schema, url: url.toString(), baseUrl };
}

/**
 * A connected client of its own on the schema a `?schema=` URL names: a second writer, as
 * another process would be (to hold a lock or a transaction open while the server works).
 */
export async function schemaClient(databaseUrl: string): Promise<pg.Client> {
  const url = new URL(databaseUrl);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  const client = new pg.Client({
    connectionString: url.toString(),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  await client.connect();
  return client;
}
