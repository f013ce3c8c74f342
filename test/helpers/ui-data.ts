// What the browser suites share around the browser: one server on a fresh SQLite database with
// tenant acme and the people who sign in, a Chromium, everything closed afterwards; and one
// minute of the demo's traffic (every attack family, a little benign noise) posted to the
// collector, so pages show what detection really made of it.
import type { Browser } from 'playwright-core';
import type { CliValues } from '../../src/config/config.js';
import { CYCLE_MS, createTraffic } from '../../src/demo/traffic.js';
import { cliActor } from '../../src/identity/principal.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import { createUser } from '../../src/identity/users/user-service.js';
import { ingest, seedTenant } from './api.js';
import { launchBrowser } from './browser.js';
import { databaseTargets, type TestDatabase } from './databases.js';
import { startServer, type TestServer } from './server.js';

/** The password of every person the UI suites create. */
export const password = 'a long enough test password';

/** A person to create: in tenant acme with a tenant role, or a platform operator. */
export type Person =
  | { email: string; name?: string; role: 'admin' | 'analyst' | 'viewer' }
  | { email: string; name?: string; role: 'operator' };

export interface UiServer {
  database: TestDatabase;
  server: TestServer;
  acme: Tenant;
  browser: Browser;
}

/**
 * Runs `body` against a fresh server (SQLite) with tenant acme, `people` created in it (operators
 * outside any tenant) and a Chromium; the browser, server and database are closed afterwards,
 * whatever happened.
 */
export async function withUiServer(
  options: { people: Person[]; overrides?: CliValues },
  body: (ui: UiServer) => Promise<void>,
): Promise<void> {
  const database = await databaseTargets[0]!.create();
  const server = await startServer(database, options.overrides ?? {});
  let browser: Browser | undefined;
  try {
    const acme = await seedTenant(server, 'acme');
    for (const person of options.people) await addPerson(server, acme, person);
    browser = await launchBrowser();
    await body({ database, server, acme, browser });
  } finally {
    await browser?.close();
    await server.close();
    await database.cleanup();
  }
}

/** Creates a person (through the service: setup, not the subject) with the suites' password. */
export async function addPerson(server: TestServer, acme: Tenant, person: Person): Promise<void> {
  await createUser(server.sightline.database.db, {
    tenantId: person.role === 'operator' ? null : acme.id,
    email: person.email,
    ...(person.name ? { name: person.name } : {}),
    role: person.role,
    password,
    actor: cliActor,
  });
}

/**
 * The last minute of the demo's traffic (one cycle of its attack schedule, seed 11, `rate`
 * benign records a second) sent to acme's collector. Detection runs on it asynchronously: wait
 * for what the test needs by polling the API.
 */
export async function sendDemoTraffic(server: TestServer, rate: number): Promise<void> {
  const now = Date.now();
  const records = createTraffic({ seed: 11, start: now - CYCLE_MS, rate })
    .next(now)
    .map((item) => item.record);
  await ingest(server, records);
}
