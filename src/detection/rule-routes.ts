// /v1/rules: the Sigma rules this deployment runs (bundled pack plus configured directories),
// and the ones it refused with the reason, so nobody mistakes a rejected rule for a quiet one;
// each loaded rule says whether any record Sightline parses can make it fire, and if not, why.
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { decodeCursor, encodeCursor } from '../http/pagination.js';
import { NextCursor } from '../http/schemas.js';
import type { AttackCatalogue } from './attack.js';
import type { LogSource } from '../telemetry/normalise/event.js';
import type { RuleCompilation } from './sigma/index.js';
import { BUNDLED_RULES_DIR } from './detection-setup.js';
import type { ProcessingPipeline } from '../telemetry/normalise/pipeline.js';
import { assessReach, type RuleReach } from './rule-reach.js';
import { routePlugin } from '../http/route-plugin.js';

export interface RuleView {
  id: string;
  title: string;
  description: string | null;
  type: 'detection' | 'correlation';
  level: string;
  status: string | null;
  author: string | null;
  logsource: { category: string | null; product: string | null; service: string | null };
  techniques: { id: string; name: string | null }[];
  tactics: { id: string | null; name: string; known: boolean }[];
  tags: string[];
  file: string;
  reachable: boolean;
  unreachable_reason: string | null;
}

const RuleSchema = Type.Object(
  {
    id: Type.String({ description: 'Sigma rule id' }),
    title: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    type: Type.Union([Type.Literal('detection'), Type.Literal('correlation')]),
    level: Type.String(),
    status: Type.Union([Type.String(), Type.Null()], { description: 'Sigma status (stable, test, experimental, …)' }),
    author: Type.Union([Type.String(), Type.Null()]),
    logsource: Type.Object({
      category: Type.Union([Type.String(), Type.Null()]),
      product: Type.Union([Type.String(), Type.Null()]),
      service: Type.Union([Type.String(), Type.Null()]),
    }),
    techniques: Type.Array(Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]) })),
    tactics: Type.Array(
      Type.Object({ id: Type.Union([Type.String(), Type.Null()]), name: Type.String(), known: Type.Boolean() }),
    ),
    tags: Type.Array(Type.String()),
    file: Type.String({
      description:
        'Where the rule came from: rules/… for the bundled pack, else the configured directory and the path in it',
    }),
    reachable: Type.Boolean({
      description:
        'Whether some record Sightline parses can make the rule fire (docs/telemetry-mapping.md); false: it runs but never fires',
    }),
    unreachable_reason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why an unreachable rule can never fire (its logsource, or its member rules); null when reachable',
    }),
  },
  {
    examples: [
      {
        id: '3f1d7a52-6c0e-4f3b-9a57-0b8f3c2d9e11',
        title: 'Reverse shell through /dev/tcp',
        description: 'A shell redirected to a TCP socket.',
        type: 'detection',
        level: 'high',
        status: 'stable',
        author: 'Sightline',
        logsource: { category: 'process_creation', product: 'linux', service: null },
        techniques: [{ id: 'T1059.004', name: 'Unix Shell' }],
        tactics: [{ id: 'TA0002', name: 'Execution', known: true }],
        tags: ['attack.execution', 'attack.t1059.004'],
        file: 'rules/sightline/process/reverse-shell-dev-tcp.yml',
        reachable: true,
        unreachable_reason: null,
      },
    ],
  },
);

const RejectedSchema = Type.Object({
  file: Type.String(),
  id: Type.Union([Type.String(), Type.Null()]),
  title: Type.Union([Type.String(), Type.Null()]),
  construct: Type.String({ description: 'What in the rule is unsupported or wrong' }),
  message: Type.String(),
});

/** A correlation has no log source of its own: it counts its member rules' matches. */
const CORRELATION_LOGSOURCE: LogSource = {};

/** Why a rule no record can reach never fires, in words an operator can act on. */
export function unreachableReason(type: RuleView['type'], logsource: LogSource): string {
  if (type === 'correlation') return 'None of the rules this correlation counts can fire.';
  const where = Object.entries(logsource)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(', ');
  return `No input Sightline parses produces this logsource (${where}); see docs/telemetry-mapping.md.`;
}

export function presentRules(
  compilation: RuleCompilation,
  catalogue: AttackCatalogue,
  roots: readonly string[],
  reach: RuleReach,
): RuleView[] {
  const entries = [
    ...compilation.rules.map((rule) => ({
      rule,
      type: 'detection' as const,
      logsource: rule.logsource,
      status: rule.status ?? null,
      description: rule.description ?? null,
    })),
    ...compilation.correlations.map((rule) => ({
      rule,
      type: 'correlation' as const,
      logsource: CORRELATION_LOGSOURCE,
      status: null,
      description: rule.description ?? null,
    })),
  ];
  return entries
    .map(({ rule, type, logsource, status, description }) => {
      const attack = catalogue.fromTags(rule.tags);
      const reachable = !reach.unreachable.has(rule.id);
      return {
        id: rule.id,
        title: rule.title,
        description,
        type,
        level: rule.level,
        status,
        author: rule.author ?? null,
        logsource: {
          category: logsource.category ?? null,
          product: logsource.product ?? null,
          service: logsource.service ?? null,
        },
        techniques: attack.techniques.map((technique) => ({ id: technique.id, name: technique.name ?? null })),
        tactics: attack.tactics.map((tactic) => ({ id: tactic.id ?? null, name: tactic.name, known: tactic.known })),
        tags: rule.tags,
        file: displayPath(rule.file, roots),
        reachable,
        unreachable_reason: reachable ? null : unreachableReason(type, logsource),
      };
    })
    .sort((a, b) => a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
}

/** The bundled pack as rules/…; configured directories by their own name, not the server's full path. */
export function displayPath(file: string, roots: readonly string[]): string {
  for (const root of [BUNDLED_RULES_DIR, ...roots]) {
    const relative = path.relative(root, file);
    if (!relative.startsWith('..') && !path.isAbsolute(relative)) {
      const base = root === BUNDLED_RULES_DIR ? 'rules' : path.basename(root);
      return relative === '' ? base : `${base}/${relative.split(path.sep).join('/')}`;
    }
  }
  return path.basename(file);
}

export const ruleRoutes = routePlugin(function ruleRoutes(
  app: FastifyInstance,
  deps: {
    compilation: RuleCompilation;
    catalogue: AttackCatalogue;
    pipeline: ProcessingPipeline;
    rulePaths: readonly string[];
  },
): void {
  const reach = assessReach(deps.compilation, deps.pipeline);
  const rules = presentRules(deps.compilation, deps.catalogue, deps.rulePaths, reach);
  const rejected = deps.compilation.rejected.map((entry) => ({
    file: displayPath(entry.file, deps.rulePaths),
    id: entry.id ?? null,
    title: entry.title ?? null,
    construct: entry.construct,
    message: entry.message.split(entry.file).join(displayPath(entry.file, deps.rulePaths)),
  }));
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/rules',
    {
      config: { access: { scope: 'tenant', permission: 'observations:read' } },
      schema: {
        tags: ['Rules'],
        summary: 'List detection rules',
        description:
          'The Sigma rules running here (the bundled pack, imported packages and any configured rule directories), by title, with their ATT&CK techniques and whether any record Sightline parses can make them fire (`reachable`, and `unreachable_reason` when not). `unreachable_count` counts the unreachable rules among all loaded ones; `rejected_count` says how many rules were refused; GET /v1/rules/rejected says why.',
        querystring: Type.Object(
          {
            q: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive text in the title or id' })),
            level: Type.Optional(Type.String({ maxLength: 20, description: 'Only this level' })),
            technique: Type.Optional(
              Type.String({
                maxLength: 20,
                description: 'Only rules tagged with this technique (or a sub-technique of it)',
              }),
            ),
            reachable: Type.Optional(
              Type.Boolean({
                description: 'true: only rules some parsed record can make fire; false: only the unreachable ones',
              }),
            ),
            limit: Type.Optional(
              Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'Items per page (1-500)' }),
            ),
            cursor: Type.Optional(
              Type.String({ maxLength: 512, description: 'The `next_cursor` of the previous page' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              rules: Type.Array(RuleSchema),
              total: Type.Integer({ description: 'Rules matching the filter' }),
              loaded_count: Type.Integer({ description: 'Every loaded rule, whatever the filter' }),
              unreachable_count: Type.Integer({
                description: 'Loaded rules no parsed record can make fire, whatever the filter',
              }),
              rejected_count: Type.Integer(),
              next_cursor: NextCursor,
            },
            { description: 'A page of rules' },
          ),
        },
      },
    },
    (request) => {
      const { q, level, technique, reachable, limit = 100, cursor } = request.query;
      const text = q?.toLowerCase();
      const upper = technique?.toUpperCase();
      const matching = rules.filter(
        (rule) =>
          (text === undefined || rule.title.toLowerCase().includes(text) || rule.id.toLowerCase().includes(text)) &&
          (level === undefined || rule.level === level) &&
          (reachable === undefined || rule.reachable === reachable) &&
          (upper === undefined || rule.techniques.some((item) => item.id === upper || item.id.startsWith(`${upper}.`))),
      );
      const start = cursor ? decodeCursor<{ o: number }>(cursor, { o: 'number' }).o : 0;
      const shown = matching.slice(start, start + limit);
      const next = start + limit < matching.length ? encodeCursor({ o: start + limit }) : null;
      return {
        rules: shown,
        total: matching.length,
        loaded_count: rules.length,
        unreachable_count: reach.summary.unreachable,
        rejected_count: rejected.length,
        next_cursor: next,
      };
    },
  );

  routes.get(
    '/rules/rejected',
    {
      config: { access: { scope: 'tenant', permission: 'observations:read' } },
      schema: {
        tags: ['Rules'],
        summary: 'List rejected rules',
        description:
          'Rules that were refused at load, each with the file, the construct and the reason. A rejected rule never runs.',
        response: { 200: Type.Object({ rejected: Type.Array(RejectedSchema) }, { description: 'Rejected rules' }) },
      },
    },
    () => ({ rejected }),
  );
});
