// Request and response schemas of /v1/telemetry/saved-searches.
import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';
import { MAX_QUERY_LENGTH } from './telemetry-query.js';

const view = {
  time_range: Type.Optional(
    Type.String({
      maxLength: 16,
      description: 'A relative range of the telemetry page (`15m`, `1h`, `24h`, `7d`) or `custom`',
    }),
  ),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Custom range start, ISO 8601' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Custom range end, ISO 8601' })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  columns: Type.Optional(
    Type.Array(Type.String({ maxLength: 256 }), { maxItems: 30, description: 'Field paths shown as columns' }),
  ),
  filters: Type.Optional(
    Type.Record(
      Type.String({ maxLength: 256 }),
      Type.Unsafe<string | number | boolean | null>({ type: ['string', 'number', 'boolean', 'null'] }),
      {
        maxProperties: 20,
        description: 'Field equality filters, as the search takes them',
      },
    ),
  ),
};

export const SavedSearchBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Name, unique per person' }),
    query: Type.String({ maxLength: MAX_QUERY_LENGTH, description: 'The query, in the telemetry query language' }),
    ...view,
  },
  {
    additionalProperties: false,
    examples: [{ name: 'Checkout 5xx', query: 'service:checkout AND http.status:>=500', time_range: '24h' }],
  },
);

export const SavedSearchSchema = Type.Object(
  {
    id: Type.String({ description: 'Saved search id (`ss_…`)' }),
    name: Type.String(),
    query: Type.String(),
    ...view,
    created_at: Timestamp('When it was first saved'),
    updated_at: Timestamp('When it was last saved'),
  },
  { description: 'A saved telemetry search' },
);

export const SavedSearchList = Type.Object({
  saved_searches: Type.Array(SavedSearchSchema, { description: "The caller's saved searches, by name" }),
});
