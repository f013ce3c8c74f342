// A server on one database target with two tenants, acme and globex, and an acme token holding
// every permission: the set-up of the API token suites.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { DatabaseTarget, TestDatabase } from './databases.js';
import { startServer, type TestServer } from './server.js';
import { apiClient, bearer, issueToken, seedTenant, type ApiClient } from './api.js';
import { allPermissions } from '../../src/identity/permissions.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';

export interface TwoTenants {
  database: TestDatabase;
  server: TestServer;
  acme: Tenant;
  globex: Tenant;
  /** acme's token with every permission. */
  admin: ApiClient;
}

/** Registers the suite's before/after hooks (call inside `describe`); read the result in tests. */
export function useTwoTenants(target: DatabaseTarget): () => TwoTenants {
  let ready: TwoTenants | undefined;
  let database: TestDatabase | undefined;
  let server: TestServer | undefined;
  before(async () => {
    database = await target.create();
    server = await startServer(database);
    const acme = await seedTenant(server, 'acme');
    const globex = await seedTenant(server, 'globex');
    const admin = apiClient(
      server,
      bearer((await issueToken(server, acme, allPermissions, { name: 'acme admin' })).value),
    );
    ready = { database, server, acme, globex, admin };
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
