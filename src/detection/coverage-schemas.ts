// The schemas of GET /v1/attack/coverage and its Navigator layer export: they validate,
// serialize and document the responses (OpenAPI), one per route.
import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';

const Status = Type.Union([Type.Literal('live'), Type.Literal('silent'), Type.Literal('uncovered')]);

const Counts = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  live: Type.Integer({ minimum: 0 }),
  silent: Type.Integer({ minimum: 0 }),
  uncovered: Type.Integer({ minimum: 0 }),
});

const Logsource = Type.Object({
  product: Type.Union([Type.String(), Type.Null()]),
  category: Type.Union([Type.String(), Type.Null()]),
  service: Type.Union([Type.String(), Type.Null()]),
});

const CoveringRule = Type.Object({
  id: Type.String({ description: 'Sigma rule id' }),
  title: Type.String(),
  level: Type.String(),
  type: Type.Union([Type.Literal('detection'), Type.Literal('correlation')]),
  logsources: Type.Array(Logsource, {
    description: "A detection rule's logsource; a correlation's are those of the rules it counts",
  }),
  live: Type.Boolean({ description: "The tenant's telemetry produced one of its logsources within the window" }),
});

const TechniqueCoverage = Type.Object({
  id: Type.String({ description: 'Technique id, e.g. T1059 or T1059.001' }),
  name: Type.String(),
  parent: Type.Union([Type.String(), Type.Null()], { description: "A sub-technique's parent technique id" }),
  tactics: Type.Array(Type.String(), { description: 'Tactic short names, e.g. execution' }),
  status: Status,
  combined_status: Status,
  subtechniques: Type.Array(Type.String(), { description: 'Ids of its sub-techniques (empty for a sub-technique)' }),
  rules: Type.Array(CoveringRule, { description: 'The loaded rules tagged with this technique, by title' }),
});

export const CoverageSchema = Type.Object(
  {
    attack_version: Type.String({ description: 'The ATT&CK release of the bundled catalogue' }),
    window: Type.Object({
      days: Type.Integer(),
      since: Timestamp('Logsources seen at or after this time make a rule live'),
      until: Timestamp('When the coverage was computed'),
    }),
    counts: Type.Object({
      techniques: Type.Intersect([Counts], {
        description: 'Techniques (not sub-techniques) by combined status',
      }),
      subtechniques: Type.Intersect([Counts], { description: 'Sub-techniques by their own status' }),
    }),
    tactics: Type.Array(
      Type.Object({
        id: Type.String({ description: 'Tactic id, e.g. TA0002' }),
        shortname: Type.String(),
        name: Type.String(),
        technique_ids: Type.Array(Type.String(), { description: 'Its techniques (not sub-techniques), by name' }),
        counts: Counts,
      }),
      { description: "The catalogue's tactics in matrix order, reconnaissance to impact" },
    ),
    techniques: Type.Array(TechniqueCoverage, {
      description: 'Every technique of the catalogue, each followed by its sub-techniques',
    }),
    logsources_seen: Type.Array(
      Type.Object({
        product: Type.Union([Type.String(), Type.Null()]),
        category: Type.Union([Type.String(), Type.Null()]),
        service: Type.Union([Type.String(), Type.Null()]),
        first_seen: Timestamp('First time a record produced it'),
        last_seen: Timestamp('Last time a record produced it (receive time)'),
      }),
      { description: "The logsources the tenant's telemetry produced within the window, most recent first" },
    ),
  },
  {
    description: "The tenant's ATT&CK coverage",
    examples: [
      {
        attack_version: '18.1',
        window: { days: 7, since: '2026-11-19T10:00:00.000Z', until: '2026-11-26T10:00:00.000Z' },
        counts: {
          techniques: { total: 216, live: 1, silent: 0, uncovered: 215 },
          subtechniques: { total: 475, live: 1, silent: 0, uncovered: 474 },
        },
        tactics: [
          {
            id: 'TA0002',
            shortname: 'execution',
            name: 'Execution',
            technique_ids: ['T1059'],
            counts: { total: 1, live: 1, silent: 0, uncovered: 0 },
          },
        ],
        techniques: [
          {
            id: 'T1059.001',
            name: 'PowerShell',
            parent: 'T1059',
            tactics: ['execution'],
            status: 'live',
            combined_status: 'live',
            subtechniques: [],
            rules: [
              {
                id: '3f1d7a52-6c0e-4f3b-9a57-0b8f3c2d9e11',
                title: 'Encoded PowerShell command line',
                level: 'high',
                type: 'detection',
                logsources: [{ product: 'windows', category: 'process_creation', service: null }],
                live: true,
              },
            ],
          },
        ],
        logsources_seen: [
          {
            product: 'windows',
            category: 'process_creation',
            service: null,
            first_seen: '2026-11-20T08:00:00.000Z',
            last_seen: '2026-11-26T09:59:00.000Z',
          },
        ],
      },
    ],
  },
);

const Metadata = Type.Union([
  Type.Object({ name: Type.String(), value: Type.String() }),
  Type.Object({ divider: Type.Literal(true) }),
]);

export const NavigatorLayerSchema = Type.Object(
  {
    name: Type.String(),
    versions: Type.Object({ attack: Type.String(), navigator: Type.String(), layer: Type.Literal('4.5') }),
    domain: Type.Literal('enterprise-attack'),
    description: Type.String(),
    sorting: Type.Integer(),
    layout: Type.Object({
      layout: Type.Literal('side'),
      showID: Type.Boolean(),
      showName: Type.Boolean(),
      expandedSubtechniques: Type.Literal('annotated'),
    }),
    hideDisabled: Type.Boolean(),
    techniques: Type.Array(
      Type.Object({
        techniqueID: Type.String(),
        score: Type.Number(),
        color: Type.String(),
        comment: Type.String(),
        enabled: Type.Boolean(),
        metadata: Type.Array(Metadata),
        showSubtechniques: Type.Boolean(),
      }),
    ),
    gradient: Type.Object({ colors: Type.Array(Type.String()), minValue: Type.Number(), maxValue: Type.Number() }),
    legendItems: Type.Array(Type.Object({ label: Type.String(), color: Type.String() })),
    metadata: Type.Array(Metadata),
  },
  { description: 'An ATT&CK Navigator layer (format 4.5), served as a download' },
);
