// Table-driven end-to-end detection on real-world telemetry: one server per database target
// with the named SigmaHQ rules loaded beside the bundled pack, every case's record posted to
// POST /log_sink in one batch, then one test per case asserting its rule fired. Records are
// written from the vendors' documented schemas; the rule is only named, never read for them.
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { databaseTargets, type TestDatabase } from './databases.js';
import { startServer, type TestServer } from './server.js';
import { apiClient, bearer, detectionCaughtUp, ingest, issueToken, seedTenant } from './api.js';
import type { Page } from './responses.js';
import type { ObservationView } from '../../src/observations/observation-service.js';
import { SIGMAHQ_RULES } from './sigmahq.js';

/** SigmaHQ's rules, the pinned copy in vendor/sigmahq/. */
export const SIGMA_RULES = SIGMAHQ_RULES;

export interface SigmaCase {
  /** What the record is: the shape and the event. */
  name: string;
  /** One record as the forwarder sends it (an object, or NDJSON text). */
  record: Record<string, unknown> | string;
  /** The SigmaHQ rule that must fire, relative to SIGMA_RULES. */
  rule: string;
}

export interface FamilyContext {
  server: TestServer;
  database: TestDatabase;
}

function ruleId(file: string): string {
  const full = path.join(SIGMA_RULES, file);
  assert.ok(fs.existsSync(full), `SigmaHQ rule ${full} exists (the corpus is pinned in vendor/sigmahq)`);
  const id = (parse(fs.readFileSync(full, 'utf8')) as { id?: unknown }).id;
  assert.equal(typeof id, 'string', `${file} has an id`);
  return id as string;
}

/**
 * Registers, per database target, a suite that posts every case and checks its rule fired;
 * `extra` adds tests that read the same server (normalised rows, malformed records…).
 */
export function describeSigmaFamily(
  family: string,
  cases: readonly SigmaCase[],
  extra?: (context: () => FamilyContext) => void,
  /** Records posted first in the same batch: malformed ones detection must get past. */
  leading: readonly (Record<string, unknown> | string)[] = [],
): void {
  for (const target of databaseTargets) {
    describe(`${family} on ${target.kind}`, { skip: target.skip }, () => {
      let database: TestDatabase;
      let server: TestServer;
      const fired = new Map<string, ObservationView[]>();

      before(async () => {
        const files = [...new Set(cases.map((item) => path.join(SIGMA_RULES, item.rule)))];
        database = await target.create();
        server = await startServer(database, { detectionRulePaths: files.join(',') });
        const tenant = await seedTenant(server, 'acme');
        const reader = apiClient(server, bearer((await issueToken(server, tenant, ['observations:read'])).value));
        await ingest(server, [...leading, ...cases.map((item) => item.record)]);
        await detectionCaughtUp(server, 150_000);
        let cursor: string | null = null;
        do {
          const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
          const page = await reader.get<Page<'observations', ObservationView>>(`/v1/observations?limit=500${query}`);
          assert.equal(page.status, 200, JSON.stringify(page.body));
          for (const observation of page.body.observations) {
            const list = fired.get(observation.rule.id) ?? [];
            list.push(observation);
            fired.set(observation.rule.id, list);
          }
          cursor = page.body.next_cursor;
        } while (cursor !== null);
      });
      after(async () => {
        await server.close();
        await database.cleanup();
      });

      for (const item of cases) {
        test(`${item.name} → ${path.basename(item.rule)} fires`, () => {
          const id = ruleId(item.rule);
          const observations = fired.get(id);
          assert.ok(
            observations !== undefined && observations.length > 0,
            `${item.rule} (${id}) fired; fired: ${[...fired.values()].map((list) => list[0]?.rule.title).join(' | ')}`,
          );
        });
      }
      extra?.(() => ({ server, database }));
    });
  }
}
