// The access hook on its own Fastify instance with a real SQLite database: the approval that
// writing observations needs (no observation route exists yet, so a stand-in declares one),
// and the declarations the hook refuses at start-up.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import { openDatabase, type Database } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { changeTenant, createTenant, type TenantReactions } from './tenants/tenant-service.js';
import { createToken } from './tokens/token-service.js';
import { allPermissions } from './permissions.js';
import { cliActor } from './principal.js';
import { MemoryFailureLimiter } from './throttling/failure-limiter.js';
import { Metrics } from '../observability/metrics.js';
import { installErrorHandling } from '../http/error-handler.js';
import { installAuth, type Access } from './auth.js';
import { ProblemSchema } from '../http/schemas.js';
import { routePlugin } from '../http/route-plugin.js';

/** These tests change only the observation-write approval, which no other feature reacts to. */
const noReactions: TenantReactions = {
  aiSummariesTurnedOff: () => Promise.reject(new Error('no test here turns AI summaries off')),
};

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-auth-'));
let database: Database;

before(async () => {
  database = await openDatabase({ databaseUrl: '', dataDir });
  await migrateToLatest(database);
});
after(async () => {
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function appWith(access: Access): Promise<FastifyInstance> {
  const app = Fastify();
  installErrorHandling(app);
  app.addSchema(ProblemSchema);
  app.decorate('apiRoutes', []);
  await app.register(cookie);
  await app.register(
    routePlugin((scope) => {
      installAuth(scope, { db: database.db, limiter: new MemoryFailureLimiter(100, 60_000), metrics: new Metrics() });
      scope.post('/observations', { config: { access } }, () => ({ written: true }));
    }),
  );
  await app.ready();
  return app;
}

test('writing observations needs the platform approval of the tenant as well as the permission', async () => {
  const tenant = await createTenant(database.db, { codeName: 'acme' });
  const { value } = await createToken(database.db, {
    tenantId: tenant.id,
    name: 'writer',
    permissions: ['observations:write'],
    expiresAt: null,
    creator: { actor: cliActor, userId: null, permissions: new Set(allPermissions), expiresAt: null },
    lifetime: { defaultMs: 30 * 86_400_000, maxMs: null },
  });
  const app = await appWith({ scope: 'tenant', permission: 'observations:write' });
  try {
    const post = () =>
      app.inject({ method: 'POST', url: '/observations', headers: { authorization: `Bearer ${value}` } });
    const refused = await post();
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json<{ code: string }>().code, 'observation_write_not_approved');

    await changeTenant(
      database.db,
      'acme',
      { observationWriteApproved: true },
      { actor: cliActor, ip: null },
      noReactions,
    );
    const allowed = await post();
    assert.equal(allowed.statusCode, 200);

    await changeTenant(
      database.db,
      'acme',
      { observationWriteApproved: false },
      { actor: cliActor, ip: null },
      noReactions,
    );
    assert.equal((await post()).statusCode, 403, 'withdrawing the approval takes effect at once');
  } finally {
    await app.close();
  }
});

test('routes must declare access, and observations:write only in tenant scope', async () => {
  const noAccess = Fastify();
  noAccess.decorate('apiRoutes', []);
  await noAccess.register(cookie);
  installAuth(noAccess, { db: database.db, limiter: new MemoryFailureLimiter(100, 60_000), metrics: new Metrics() });
  assert.throws(() => noAccess.get('/x', () => ({})), /declares no access/);
  await assert.rejects(appWith({ scope: 'account', permission: 'observations:write' }), /needs tenant scope/);
});
