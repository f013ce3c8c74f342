// Observation figures for the web UI and integrations: GET /v1/observations/stats (counts per day
// and level, for the overview's chart and tiles) and GET /v1/observations/cases (which case each
// observation of a list is in, so a list can link to them without opening every case).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../storage/schema.js';
import { tenantOf } from '../identity/auth.js';
import { Timestamp } from '../http/schemas.js';
import { casesOfObservations, MAX_STATS_DAYS, observationStats } from './observation-stats-service.js';
import { routePlugin } from '../http/route-plugin.js';

const MAX_CASE_LOOKUPS = 100;

const levelCounts = {
  informational: Type.Integer({ minimum: 0 }),
  low: Type.Integer({ minimum: 0 }),
  medium: Type.Integer({ minimum: 0 }),
  high: Type.Integer({ minimum: 0 }),
  critical: Type.Integer({ minimum: 0 }),
  total: Type.Integer({ minimum: 0, description: 'All levels together' }),
};

const emptyDay = { informational: 0, low: 0, medium: 0, high: 0, critical: 0, total: 0 };

const StatsQuery = Type.Object(
  {
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_STATS_DAYS,
        default: 14,
        description: `Days to count, ending today (1-${MAX_STATS_DAYS})`,
      }),
    ),
    utc_offset_minutes: Type.Optional(
      Type.Integer({
        minimum: -840,
        maximum: 840,
        default: 0,
        description: 'Where days begin: minutes east of UTC (e.g. 60 for UTC+1). A fixed offset; default 0, UTC days',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ObservationStatsSchema = Type.Object(
  {
    days: Type.Array(
      Type.Object({
        date: Type.String({ description: 'The day (YYYY-MM-DD, in the requested offset)' }),
        ...levelCounts,
      }),
      {
        description:
          'One entry per day, oldest first, every day present (zeros included): observations whose first record falls in the day, per level',
      },
    ),
    since: Timestamp('Start of the first day'),
    until: Timestamp('End of the last day (exclusive): the start of tomorrow'),
    utc_offset_minutes: Type.Integer({ description: 'The offset the days were cut at' }),
    last_24_hours: Type.Object(levelCounts, {
      description: 'Observations whose first record is within the last 24 hours, per level',
    }),
  },
  {
    description: 'Observation counts per day and level',
    examples: [
      {
        days: [
          { date: '2026-11-23', ...emptyDay },
          { date: '2026-11-24', ...emptyDay, low: 3, medium: 1, total: 4 },
        ],
        since: '2026-11-23T00:00:00.000Z',
        until: '2026-11-25T00:00:00.000Z',
        utc_offset_minutes: 0,
        last_24_hours: { ...emptyDay, low: 3, medium: 1, total: 4 },
      },
    ],
  },
);

const CasesQuery = Type.Object(
  {
    ids: Type.String({
      pattern: `^[A-Za-z0-9_-]{1,64}(,[A-Za-z0-9_-]{1,64}){0,${MAX_CASE_LOOKUPS - 1}}$`,
      description: `Observation ids, comma-separated (at most ${MAX_CASE_LOOKUPS})`,
    }),
  },
  { additionalProperties: false },
);

const ObservationCaseSchema = Type.Object({
  id: Type.String({ description: 'Case id (`case_…`)' }),
  number: Type.Integer(),
  title: Type.String(),
  status: Type.String(),
  severity: Type.String(),
  score: Type.Integer(),
});

export const ObservationCasesSchema = Type.Object(
  {
    cases: Type.Record(Type.String(), ObservationCaseSchema, {
      description: "Observation id → its case. Ids that are not the tenant's observations (or in no case) are left out",
    }),
  },
  {
    description: 'The case of each observation',
    examples: [
      {
        cases: {
          obs_4Vq9TnXc2LmR8sWb1YkD: {
            id: 'case_2vPq8LmN4xR7tY1wK9sD',
            number: 42,
            title: 'Reverse shell to a remote host on web-01',
            status: 'in_progress',
            severity: 'high',
            score: 71,
          },
        },
      },
    ],
  },
);

export const observationStatsRoutes = routePlugin(function observationStatsRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables> },
): void {
  const { db } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/observations/stats',
    {
      config: { access: { scope: 'tenant', permission: 'observations:read' } },
      schema: {
        tags: ['Observations'],
        summary: 'Observation counts per day and level',
        description:
          "The tenant's observations counted per day and Sigma level for the last `days` days (today included), every day present with zeros, oldest first; days are UTC unless `utc_offset_minutes` moves their start. An observation counts on the day of its first record. Also the counts of the last 24 hours.",
        querystring: StatsQuery,
        response: { 200: ObservationStatsSchema },
      },
    },
    async (request) =>
      observationStats(db, tenantOf(request).id, {
        days: request.query.days ?? 14,
        utcOffsetMinutes: request.query.utc_offset_minutes ?? 0,
      }),
  );

  routes.get(
    '/observations/cases',
    {
      config: { access: { scope: 'tenant', permission: 'cases:read' } },
      schema: {
        tags: ['Observations'],
        summary: 'The cases of some observations',
        description: `Which case each of up to ${MAX_CASE_LOOKUPS} observations is in (every observation is grouped into one case; a merge moves it), with the case's number, title, status, severity and score: a list of observations links to their cases in one call.`,
        querystring: CasesQuery,
        response: { 200: ObservationCasesSchema },
      },
    },
    async (request) => ({ cases: await casesOfObservations(db, tenantOf(request).id, request.query.ids.split(',')) }),
  );
});
