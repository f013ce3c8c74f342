// The setup most API suites share: for one describe block, a fresh database of the target kind,
// a real server on it and two tenants, acme and globex (tenant isolation needs a second one),
// started before the block's tests and closed after them. A suite's own before hook, registered
// after this call, runs after this one: it adds the tokens, users and data the block needs.
import { after, before } from 'node:test';
import type { CliValues } from '../../src/config/config.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import type { DatabaseTarget, TestDatabase } from './databases.js';
import { startServer, type TestServer } from './server.js';
import { seedTenant } from './api.js';

export interface ApiSuite {
  database: TestDatabase;
  server: TestServer;
  acme: Tenant;
  globex: Tenant;
}

/** Registers the block's before and after hooks; the fields are set once its before hook has run. */
export function apiSuite(target: DatabaseTarget, overrides: CliValues = {}): ApiSuite {
  const suite: Partial<ApiSuite> = {};
  before(async () => {
    suite.database = await target.create();
    suite.server = await startServer(suite.database, overrides);
    suite.acme = await seedTenant(suite.server, 'acme');
    suite.globex = await seedTenant(suite.server, 'globex');
  });
  after(() => closeOpened(suite.server, suite.database));
  // Read only from hooks and tests, which run after the before hook above.
  return suite as ApiSuite;
}

/** What a before hook opens: a server or a fake (close), a test database (cleanup), a Kysely (destroy). */
export type Opened = { close(): Promise<void> } | { cleanup(): Promise<void> } | { destroy(): Promise<void> };

/**
 * For an after hook: closes, in order, what the before hook opened. A before hook that failed
 * part way leaves the later variables unset, whatever their declared types say: those are
 * skipped, so that what was opened is still released (a PostgreSQL schema dropped) and the
 * report shows the before hook's error rather than one from here.
 */
export async function closeOpened(...opened: (Opened | undefined)[]): Promise<void> {
  for (const item of opened) {
    if (item === undefined) continue;
    if ('close' in item) await item.close();
    else if ('cleanup' in item) await item.cleanup();
    else await item.destroy();
  }
}
