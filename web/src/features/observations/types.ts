// Types of the observation pages, from the server's own route schemas (type-only imports).
import type { Static } from 'typebox';
import type { ObservationDetailSchema, ObservationSchema } from '../../../../src/observations/observation-schemas.js';
import type {
  ObservationCasesSchema,
  ObservationStatsSchema,
} from '../../../../src/observations/observation-stats-routes.js';
import type { RuleView } from '../../../../src/detection/rule-routes.js';

export type Observation = Static<typeof ObservationSchema>;
export type ObservationDetail = Static<typeof ObservationDetailSchema>;
export type Evidence = ObservationDetail['evidence'][number];
export type ObservationStats = Static<typeof ObservationStatsSchema>;
export type ObservationCases = Static<typeof ObservationCasesSchema>;
export type ObservationCase = ObservationCases['cases'][string];
export type Rule = RuleView;

/** Sigma's levels, least to most severe (the order of the chart's stack and the level filter). */
export const levels = ['informational', 'low', 'medium', 'high', 'critical'] as const;
export type Level = (typeof levels)[number];
