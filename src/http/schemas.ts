// Schemas shared by every route: the RFC 9457 problem body, the documented error responses,
// cursor pagination and timestamps. Routes declare their own request and response schemas
// beside them; all of them feed validation, serialization and the OpenAPI document.
import { Type, type TSchema } from 'typebox';
import { problems, problemType, type ProblemCode } from '../core/errors.js';

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URN naming the problem kind: urn:sightline:problem:<code>' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String({ description: 'What was wrong and where' }),
    code: Type.Union(
      Object.keys(problems).map((code) => Type.Literal(code)),
      { description: 'Stable machine code' },
    ),
    instance: Type.Optional(Type.String({ description: 'The request path' })),
  },
  {
    $id: 'Problem',
    additionalProperties: true,
    description: 'RFC 9457 problem details (application/problem+json)',
    examples: [
      {
        type: 'urn:sightline:problem:permission_denied',
        title: 'Permission denied',
        status: 403,
        detail: 'this call needs the permission tokens:read, which the token does not have',
        code: 'permission_denied',
        instance: '/v1/tokens',
        required_permission: 'tokens:read',
      },
    ],
  },
);

/** For routes outside the documented API (collector, health), which declare problems by class. */
export const problemResponses = { '4xx': ProblemSchema, '5xx': ProblemSchema } as const;

/** One documented error response: a problem body under `application/problem+json`, with an example of `code`. */
export function problemResponse(description: string, code: ProblemCode, detail = description) {
  const { status, title } = problems[code];
  const example = { type: problemType(code), title, status, detail, code };
  return { description, content: { 'application/problem+json': { schema: { $ref: 'Problem#' }, example } } };
}

export const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} (ISO 8601, UTC)` });

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Items per page (1-500)' })),
  cursor: Type.Optional(Type.String({ maxLength: 512, description: 'The `next_cursor` of the previous page' })),
};

export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass as `cursor` to get the next page; null on the last page',
});

export function page<T extends TSchema>(itemsKey: string, items: T) {
  return { [itemsKey]: Type.Array(items), next_cursor: NextCursor };
}
