// GET /v1/collector/unrecognised: the records no parser recognised, per source shape, with a
// sample (Settings › Collector), so a customer sees when a forwarder sends something new. Reading
// it shows record content, so it needs what reading telemetry needs: telemetry:read.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Kysely } from 'kysely';
import type { Tables } from '../../storage/schema.js';
import { tenantOf } from '../../identity/auth.js';
import { Timestamp } from '../../http/schemas.js';
import { routePlugin } from '../../http/route-plugin.js';
import { listUnrecognised, type UnrecognisedRow } from './unrecognised-store.js';
import { OVERFLOW_SHAPE, SHAPE_LIMITS } from './unrecognised-shape.js';

const ShapeSchema = Type.Object({
  shape: Type.String({
    description: `The sorted top-level key names, comma-separated (at most ${SHAPE_LIMITS.maxKeys}, each cut to ${SHAPE_LIMITS.maxKeyLength} characters, then "+N more"); "${OVERFLOW_SHAPE}" counts the shapes past the limit`,
  }),
  keys: Type.Array(Type.String(), { description: 'The same key names as a list' }),
  records: Type.Integer({ description: 'Records of this shape no parser recognised' }),
  first_seen_at: Timestamp('Receive time of the first such record'),
  last_seen_at: Timestamp('Receive time of the newest such record'),
  sample: Type.String({
    description: `The newest such record as JSON, values of credential-like keys (password, token, secret, auth…) replaced by "[redacted]", cut to ${SHAPE_LIMITS.maxSampleLength} characters`,
  }),
});

const example = {
  shapes: [
    {
      shape: 'dev,msg,sev,ts',
      keys: ['dev', 'msg', 'sev', 'ts'],
      records: 1240,
      first_seen_at: '2026-11-24T08:02:11.000Z',
      last_seen_at: '2026-11-24T10:41:58.000Z',
      sample: '{"ts":1764000000,"dev":"fw-02","sev":3,"msg":"deny tcp 10.0.0.5:51234 -> 203.0.113.9:445"}',
    },
  ],
  total_records: 1240,
  max_shapes: SHAPE_LIMITS.maxShapesPerTenant,
};

function present(row: UnrecognisedRow) {
  return {
    shape: row.shape,
    keys: row.keys,
    records: row.records,
    first_seen_at: new Date(row.first_seen_at).toISOString(),
    last_seen_at: new Date(row.last_seen_at).toISOString(),
    sample: row.sample,
  };
}

export const unrecognisedRoutes = routePlugin(function unrecognisedRoutes(
  app: FastifyInstance,
  deps: { db: Kysely<Tables> },
): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/collector/unrecognised',
    {
      config: { access: { scope: 'tenant', permission: 'telemetry:read' } },
      schema: {
        tags: ['Telemetry'],
        summary: 'Records no parser recognised',
        description: `Records the tenant sent that no record shape Sightline parses recognised (they are stored and searchable, but no rule for a logsource sees them), counted per source shape — the record's sorted top-level keys — with first and last receive time and the newest record as a sample. At most ${SHAPE_LIMITS.maxShapesPerTenant} shapes are kept per tenant (the whole list, most recently seen first); records of further shapes are counted under "${OVERFLOW_SHAPE}". Counted by detection as it reads the records.`,
        response: {
          200: Type.Object(
            {
              shapes: Type.Array(ShapeSchema),
              total_records: Type.Integer({ description: 'Unrecognised records over every shape' }),
              max_shapes: Type.Integer({ description: 'Shapes kept per tenant' }),
            },
            { description: 'The unrecognised shapes', examples: [example] },
          ),
        },
      },
    },
    async (request) => {
      const shapes = (await listUnrecognised(deps.db, tenantOf(request).id)).map(present);
      return {
        shapes,
        total_records: shapes.reduce((sum, shape) => sum + shape.records, 0),
        max_shapes: SHAPE_LIMITS.maxShapesPerTenant,
      };
    },
  );
});
