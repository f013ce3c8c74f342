// A SQLite data directory with the tenant acme made by `sightline tenant create`, and a real server
// on it: the set-up of the suites that run `sightline user` and `sightline token` and then use what
// they made over HTTP. SQLite is enough there: the commands only call the identity services, which
// the API suites run on both dialects.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets, type TestDatabase } from './databases.js';
import { runCli } from './cli.js';
import { startServer, type TestServer } from './server.js';

export interface CliDeployment {
  database: TestDatabase;
  server: TestServer;
  /** `--data DIR`, to pass to every command. */
  data: string[];
  tenant: string;
}

/** The last line a command printed (where it prints a secret alone). */
export function lastLine(output: string): string {
  return output.trimEnd().split('\n').at(-1) ?? '';
}

/** Registers the suite's before/after hooks (call inside `describe`); read the result in tests. */
export function useCliDeployment(): () => CliDeployment {
  const sqlite = databaseTargets.find((target) => target.kind === 'sqlite')!;
  let ready: CliDeployment | undefined;
  let database: TestDatabase | undefined;
  let server: TestServer | undefined;
  before(async () => {
    database = await sqlite.create();
    const data = ['--data', database.dataDir];
    const tenant = 'acme';
    const created = await runCli(['tenant', 'create', tenant, ...data]);
    assert.equal(created.code, 0, created.stderr);
    server = await startServer(database);
    ready = { database, server, data, tenant };
  });
  after(async () => {
    await server?.close();
    await database?.cleanup();
  });
  return () => {
    assert.ok(ready, 'the suite has started');
    return ready;
  };
}
