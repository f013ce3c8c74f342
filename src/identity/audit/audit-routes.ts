// GET /v1/audit-events: the tenant's security-relevant events, newest first.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { tenantOf } from '../auth.js';
import { decodeCursor, encodeCursor } from '../../http/pagination.js';
import { NextCursor, PageQuery, Timestamp } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { auditActions, listAudit } from './audit-service.js';
import { parseIsoTime } from '../../core/time.js';

const auditExample = {
  id: 'evt_b81TzQe0rW5nVp3KxY2m',
  occurred_at: '2026-11-22T09:15:00.000Z',
  action: 'token.created',
  outcome: 'success',
  actor: { type: 'user', id: 'usr_Gq2w8Lk3Zr1Xv0Pb7Nm4', label: 'alice@example.com' },
  ip: '203.0.113.7',
  target: { type: 'token', id: 'tok_7QmVb2XcT4kR9sLp0aZe' },
  details: { name: 'SOAR integration', permissions: ['cases:read'], expires_at: null },
};

const AuditEventSchema = Type.Object(
  {
    id: Type.String(),
    occurred_at: Timestamp('When it happened'),
    action: Type.String({ description: `What happened: ${auditActions.join(', ')}` }),
    outcome: Type.Enum(['success', 'failure']),
    actor: Type.Object({
      type: Type.String({ description: 'user, token, cli, system or anonymous' }),
      id: Type.Union([Type.String(), Type.Null()]),
      label: Type.String({ description: 'Email, token name, or the email tried in a failed sign-in' }),
    }),
    ip: Type.Union([Type.String(), Type.Null()], { description: 'Client address' }),
    target: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()]),
    details: Type.Record(Type.String(), Type.Unknown()),
  },
  { examples: [auditExample] },
);

export const auditRoutes = routePlugin(function auditRoutes(app: FastifyInstance, deps: { db: Kysely<Tables> }): void {
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  routes.get(
    '/audit-events',
    {
      config: { access: { scope: 'tenant', permission: 'audit:read' } },
      schema: {
        tags: ['Audit log'],
        summary: 'List audit events',
        description: `Security-relevant events of the tenant, newest first: sign-ins and failed sign-ins, rejected credentials, tokens created and deleted, permissions denied, settings changed. Actions: ${auditActions.map((action) => `\`${action}\``).join(', ')}.`,
        querystring: Type.Object(
          {
            ...PageQuery,
            action: Type.Optional(Type.Enum(auditActions, { description: 'Only this action' })),
            since: Type.Optional(Type.String({ format: 'date-time', description: 'From this time (inclusive)' })),
            until: Type.Optional(Type.String({ format: 'date-time', description: 'Before this time (exclusive)' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            { events: Type.Array(AuditEventSchema), next_cursor: NextCursor },
            { description: 'A page of events', examples: [{ events: [auditExample], next_cursor: null }] },
          ),
        },
      },
    },
    async (request) => {
      const { limit = 50, cursor, action, since, until } = request.query;
      const position = cursor ? decodeCursor<{ s: number }>(cursor, { s: 'number' }) : undefined;
      const page = await listAudit(deps.db, tenantOf(request).id, {
        limit,
        ...(action ? { action } : {}),
        ...(since ? { since: parseIsoTime('since', since) } : {}),
        ...(until ? { until: parseIsoTime('until', until) } : {}),
        ...(position ? { beforeSeq: position.s } : {}),
      });
      return {
        events: page.events,
        next_cursor: page.more && page.lastSeq !== undefined ? encodeCursor({ s: page.lastSeq }) : null,
      };
    },
  );
});
