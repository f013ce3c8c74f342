// /v1/ingest-keys and /v1/collector/ingest-key-policy: the tenant's collector ingest keys (list,
// create with the value shown once, delete) and whether its collector requires one. Reading
// needs ingest_keys:read, changing ingest_keys:write. Every change drops the collector's cached
// copy of the tenant's keys, so a deleted key is refused from the next request on.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { principalOf, tenantOf } from '../../identity/auth.js';
import { actorOf } from '../../identity/principal.js';
import { decodeCursor, encodeCursor } from '../../http/pagination.js';
import { NextCursor, PageQuery, problemResponse, Timestamp } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { parseIsoTime } from '../../core/time.js';
import type { FastifyRequest } from 'fastify';
import type { IngestKeyGate } from './ingest-key-gate.js';
import {
  createIngestKey,
  deleteIngestKey,
  getIngestKeyPolicy,
  listTenantIngestKeys,
  MAX_INGEST_KEY_NAME_LENGTH,
  setIngestKeyPolicy,
  type IngestKeyContext,
} from './ingest-key-service.js';

const ingestKeyExample = {
  id: 'ikey_3kTq9ZbW1xYv7LmN0pRs',
  name: 'Fluent Bit, web tier',
  prefix: 'sli_Q3v8…',
  created_at: '2026-11-22T09:15:00.000Z',
  created_by: 'alice@example.com',
  expires_at: null,
  last_used_at: '2026-11-22T10:02:00.000Z',
};

const IngestKeySchema = Type.Object(
  {
    id: Type.String({ description: 'Opaque key id (`ikey_…`), not the secret' }),
    name: Type.String({ description: 'What the key is for' }),
    prefix: Type.String({ description: "The key's first characters, to tell keys apart; never the key" }),
    created_at: Timestamp('When it was created'),
    created_by: Type.String({ description: 'Who created it: an email, a token name, or `cli`' }),
    expires_at: Type.Union([Timestamp('When it stops opening the collector'), Type.Null()]),
    last_used_at: Type.Union([Timestamp('Its latest use, to the minute'), Type.Null()], {
      description: 'Its latest accepted request, recorded at most once a minute; null: never used',
    }),
  },
  { description: 'A collector ingest key', examples: [ingestKeyExample] },
);

const CreateIngestKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: MAX_INGEST_KEY_NAME_LENGTH, description: 'What the key is for' }),
    expires_at: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'When the key stops opening the collector (ISO 8601). Absent or null: never',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ name: 'Fluent Bit, web tier' }] },
);

const CreatedIngestKeySchema = Type.Object(
  {
    ingest_key: IngestKeySchema,
    value: Type.String({ description: 'The key itself. Shown this once: it cannot be read again; store it now' }),
  },
  {
    description: 'Created; `value` is the key',
    examples: [{ ingest_key: ingestKeyExample, value: 'sli_Q3v8nZr1Tk0bXy4Wm9Lc2Hs7Jp5Fd6Ga1e0PxM' }],
  },
);

const PolicySchema = Type.Object(
  {
    require_ingest_key: Type.Boolean({
      description: "true: POST /log_sink refuses requests without one of the tenant's ingest keys (401)",
    }),
  },
  {
    additionalProperties: false,
    description: "The tenant's collector policy",
    examples: [{ require_ingest_key: true }],
  },
);

const KeyParams = Type.Object({ key_id: Type.String({ maxLength: 64, description: 'Ingest key id (`ikey_…`)' }) });

const context = (db: Kysely<Tables>, request: FastifyRequest): IngestKeyContext => ({
  db,
  tenantId: tenantOf(request).id,
  actor: actorOf(principalOf(request)),
  ip: request.ip,
});

export const ingestKeyRoutes = routePlugin(function ingestKeyRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables>; gate: IngestKeyGate },
): void {
  const { db, gate } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const read = { access: { scope: 'tenant', permission: 'ingest_keys:read' } } as const;
  const write = { access: { scope: 'tenant', permission: 'ingest_keys:write' } } as const;
  const tags = ['Collector ingest keys'];

  routes.get(
    '/ingest-keys',
    {
      config: read,
      schema: {
        tags,
        summary: 'List ingest keys',
        description:
          "The tenant's collector ingest keys, newest first, each with its creator and last use. Key values are never returned.",
        querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
        response: {
          200: Type.Object(
            { ingest_keys: Type.Array(IngestKeySchema), next_cursor: NextCursor },
            { description: 'A page of keys', examples: [{ ingest_keys: [ingestKeyExample], next_cursor: null }] },
          ),
        },
      },
    },
    async (request) => {
      const { limit = 50, cursor } = request.query;
      const before = cursor ? decodeCursor<{ c: number; i: string }>(cursor, { c: 'number', i: 'string' }) : undefined;
      const page = await listTenantIngestKeys(db, tenantOf(request).id, {
        limit,
        ...(before ? { before: { createdAt: before.c, id: before.i } } : {}),
      });
      return {
        ingest_keys: page.keys,
        next_cursor: page.next ? encodeCursor({ c: page.next.createdAt, i: page.next.id }) : null,
      };
    },
  );

  routes.post(
    '/ingest-keys',
    {
      config: write,
      schema: {
        tags,
        summary: 'Create an ingest key',
        description:
          "Creates a key forwarders send to the tenant's collector (`Authorization: Bearer <key>`, or as the HTTP Basic password). The response holds the key: it is shown this once and only its hash is stored.",
        body: CreateIngestKeyBody,
        response: { 201: CreatedIngestKeySchema },
      },
    },
    async (request, reply) => {
      const { name, expires_at: expiresAt } = request.body;
      const ctx = context(db, request);
      const created = await createIngestKey(ctx, {
        name,
        expiresAt: expiresAt === undefined || expiresAt === null ? null : parseIsoTime('expires_at', expiresAt),
      });
      gate.forget(ctx.tenantId);
      reply.header('Cache-Control', 'no-store');
      return reply.code(201).send(created);
    },
  );

  routes.delete(
    '/ingest-keys/:key_id',
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete an ingest key',
        description:
          'Deletes the key: the collector refuses it from the next request on. Allowed even when it is the last key and keys are required, so a leaked key can always be revoked at once.',
        params: KeyParams,
        response: {
          200: { ...IngestKeySchema, description: 'The key that was deleted' },
          404: problemResponse('The tenant has no such key', 'not_found'),
        },
      },
    },
    async (request) => {
      const ctx = context(db, request);
      const deleted = await deleteIngestKey(ctx, request.params.key_id);
      gate.forget(ctx.tenantId);
      return deleted;
    },
  );

  routes.get(
    '/collector/ingest-key-policy',
    {
      config: read,
      schema: {
        tags,
        summary: 'Whether the collector requires an ingest key',
        description: "The tenant's collector policy. Off by default: the collector accepts records without a key.",
        response: { 200: PolicySchema },
      },
    },
    async (request) => getIngestKeyPolicy(db, tenantOf(request).id),
  );

  routes.put(
    '/collector/ingest-key-policy',
    {
      config: write,
      schema: {
        tags,
        summary: 'Require an ingest key, or stop requiring one',
        description:
          'Turning the requirement on needs at least one ingest key (409 `no_ingest_key` otherwise), so that forwarders have one to send. Once on, the collector answers 401 to requests without a valid key of this tenant.',
        body: PolicySchema,
        response: {
          200: PolicySchema,
          409: problemResponse('The tenant has no ingest key yet', 'no_ingest_key'),
        },
      },
    },
    async (request) => {
      const ctx = context(db, request);
      const policy = await setIngestKeyPolicy(ctx, request.body.require_ingest_key);
      gate.forget(ctx.tenantId);
      return policy;
    },
  );
});
