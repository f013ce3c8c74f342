// A case's observables (list, add, tag, remove), the cases similar to it, and its report
// (Markdown or print-ready HTML). Registered by the case routes, under the same prefix and
// permissions.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { CaseRequest, CasesDeps } from './case-context.js';
import { principalOf, tenantOf } from '../identity/auth.js';
import { actorOf } from '../identity/principal.js';
import { problemResponse } from '../http/schemas.js';
import { OBSERVABLE_LIMITS } from '../detection/observable-values.js';
import { CaseParams } from './case-schemas.js';
import {
  AddObservableBody,
  ObservableListQuery,
  ObservableListSchema,
  ObservableParams,
  ObservableSchema,
  ReportQuery,
  SimilarQuery,
  SimilarSchema,
  TagObservableBody,
} from './case-observable-schemas.js';
import { addObservable, caseObservables, KNOWN_TAGS, removeObservable, tagObservable } from './case-observables.js';
import { SIMILAR_LIMITS, similarCases, TYPE_WEIGHTS } from './case-similar.js';
import { caseReport } from './case-report.js';
import { reportMarkdown } from './case-report-markdown.js';
import { reportHtml } from './case-report-html.js';

/** The report page may use its own styles and nothing else: no script, no request anywhere. */
const REPORT_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const invalid = problemResponse(
  'The value is not one of its type (or a tag is malformed)',
  'invalid_observable',
  '"10.0.0.300" is not an IPv4 or IPv6 address',
);

/** HTML when the caller prefers it to Markdown (by `q`, then by order); Markdown otherwise. */
export function preferredReport(accept: string | undefined): 'markdown' | 'html' {
  const ranked = (accept ?? '')
    .split(',')
    .map((item, index) => {
      const [type = '', ...params] = item.trim().toLowerCase().split(';');
      const q = Number(/^\s*q=([0-9.]+)\s*$/.exec(params.find((param) => /^\s*q=/.test(param)) ?? '')?.[1] ?? '1');
      return { type: type.trim(), q: Number.isNaN(q) ? 0 : q, index };
    })
    .filter((item) => (item.type === 'text/html' || item.type === 'text/markdown') && item.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked[0]?.type === 'text/html' ? 'html' : 'markdown';
}

export function observableRoutes(app: FastifyInstance, deps: CasesDeps): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const read = { access: { scope: 'tenant', permission: 'cases:read' } } as const;
  const write = { access: { scope: 'tenant', permission: 'cases:write' } } as const;
  const caseRequest = (request: FastifyRequest): CaseRequest => ({
    ...deps,
    tenantId: tenantOf(request).id,
    actor: actorOf(principalOf(request)),
  });

  routes.get(
    '/cases/:case_id/observables',
    {
      config: read,
      schema: {
        tags: ['Cases'],
        summary: "A case's observables",
        description: `The indicators the case's evidence names — addresses, domains, URLs, file hashes, email addresses, user names, host names, process paths, command lines — and those analysts added, normalised, by type then value. Taken from each observation's triggering event (and an external observation's fields) and from the case's devices in the transaction that files the observation into the case, so they are there as soon as the case is. At most ${OBSERVABLE_LIMITS.perCase} per case and ${OBSERVABLE_LIMITS.perObservation} per observation; values of up to ${OBSERVABLE_LIMITS.valueBytes} bytes (command lines and URLs are cut there). Each says how many other cases hold the same value, how many devices the cases holding it have, and a telemetry query that finds the records holding it.`,
        params: CaseParams,
        querystring: ObservableListQuery,
        response: { 200: ObservableListSchema },
      },
    },
    async (request) =>
      caseObservables(deps.db, tenantOf(request).id, request.params.case_id, request.query.include_removed ?? false),
  );

  routes.post(
    '/cases/:case_id/observables',
    {
      config: write,
      schema: {
        tags: ['Cases'],
        summary: 'Add an observable',
        description: `Adds an observable to the case, normalised as extraction does (an IPv6 address compressed, a domain in lower case, a hash in lower-case hex); recorded in the history. Tags: ${KNOWN_TAGS.join(', ')} or your own. A value the case holds answers 409 \`observable_exists\` (with \`observable_id\`); one an analyst removed comes back.`,
        params: CaseParams,
        body: AddObservableBody,
        response: {
          201: ObservableSchema,
          400: invalid,
          409: problemResponse(
            'The case holds it already (observable_exists) or holds as many as it may (observable_limit_reached)',
            'observable_exists',
          ),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await addObservable(caseRequest(request), request.params.case_id, request.body)),
  );

  routes.patch(
    '/cases/:case_id/observables/:observable_id',
    {
      config: write,
      schema: {
        tags: ['Cases'],
        summary: 'Tag an observable',
        description: `Replaces an observable's tags (${KNOWN_TAGS.join(', ')}, or your own: lower-case letters, digits and _ . : -); recorded in the history. Tags weigh in similar cases: \`ioc\` doubles a shared value, \`internal\` lowers it, \`benign\` leaves it out.`,
        params: ObservableParams,
        body: TagObservableBody,
        response: { 200: ObservableSchema, 400: invalid },
      },
    },
    async (request) =>
      tagObservable(
        caseRequest(request),
        { caseRef: request.params.case_id, observableId: request.params.observable_id },
        request.body.tags,
      ),
  );

  routes.delete(
    '/cases/:case_id/observables/:observable_id',
    {
      config: write,
      schema: {
        tags: ['Cases'],
        summary: 'Remove an observable',
        description:
          'Removes an observable from the case; recorded in the history. It stays removed when new evidence names it again (list it with `include_removed=true`); adding it again brings it back.',
        params: ObservableParams,
        response: { 204: Type.Null({ description: 'Removed' }) },
      },
    },
    async (request, reply) => {
      await removeObservable(caseRequest(request), {
        caseRef: request.params.case_id,
        observableId: request.params.observable_id,
      });
      return reply.code(204).send(null);
    },
  );

  routes.get(
    '/cases/:case_id/similar',
    {
      config: read,
      schema: {
        tags: ['Cases'],
        summary: 'Similar cases',
        description: `The tenant's other cases holding the same observables, most similar first: each shared value weighs by its type (${Object.entries(
          TYPE_WEIGHTS,
        )
          .map(([type, weight]) => `${type} ${weight}`)
          .join(
            ', ',
          )}), twice when this case tags it \`ioc\`, 1 when \`internal\`, nothing when \`benign\`; each shared ATT&CK technique adds 1. A case sharing techniques only is not listed. At most ${SIMILAR_LIMITS.casesPerValue} other cases are read per value.`,
        params: CaseParams,
        querystring: SimilarQuery,
        response: { 200: SimilarSchema },
      },
    },
    async (request) =>
      similarCases(
        deps.db,
        tenantOf(request).id,
        request.params.case_id,
        request.query.limit ?? SIMILAR_LIMITS.defaultLimit,
      ),
  );

  routes.get(
    '/cases/:case_id/report',
    {
      config: read,
      schema: {
        tags: ['Cases'],
        summary: 'Case report',
        description:
          'The case as a document to attach to a ticket or print: number, title, tenant, status, severity, score, assignee, the AI summary with its notice (when one was generated), the timeline, the observations with their evidence, the observables, comments and history, in a fixed order. `Accept: text/markdown` (the default) or `text/html` (a self-contained page with print styles, no script, no external resource), or `format=markdown|html`. Record text cannot change the structure of either: in Markdown values are code spans and other text is backslash-escaped; in HTML everything is escaped.',
        params: CaseParams,
        querystring: ReportQuery,
        response: {
          200: {
            description: 'The report',
            content: {
              'text/markdown': {
                schema: Type.String(),
                example: '# Case #42: SQL Injection Attempt in Web Request on web-01\n…',
              },
              'text/html': { schema: Type.String(), example: '<!doctype html>\n<html lang="en">…' },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const format = request.query.format ?? preferredReport(request.headers.accept);
      const report = await caseReport(caseRequest(request), tenantOf(request), request.params.case_id);
      const file = `case-${report.detail.number}-report.${format === 'html' ? 'html' : 'md'}`;
      reply.header('Content-Disposition', `inline; filename="${file}"`).header('X-Content-Type-Options', 'nosniff');
      if (format === 'html')
        return reply
          .type('text/html; charset=utf-8')
          .header('Content-Security-Policy', REPORT_CSP)
          .send(reportHtml(report));
      return reply.type('text/markdown; charset=utf-8').send(reportMarkdown(report));
    },
  );
}
