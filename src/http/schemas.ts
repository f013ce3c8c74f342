// Schemas shared by every route: the RFC 9457 problem body. Routes declare their own request
// and response schemas beside them; these feed serialization now and the OpenAPI document.
import { Type } from 'typebox';
import { problems } from '../errors.js';

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URN naming the problem kind: urn:sightline:problem:<code>' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String({ description: 'What was wrong and where' }),
    code: Type.Union(Object.keys(problems).map((code) => Type.Literal(code)), { description: 'Stable machine code' }),
    instance: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json)' },
);

export const problemResponses = { '4xx': ProblemSchema, '5xx': ProblemSchema } as const;
