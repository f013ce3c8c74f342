// Answers that carry stored records write each record's own text into the body
// (core/exact-json.ts) rather than going through the route's compiled serializer, which could
// only write numbers as doubles.
import type { FastifyReply } from 'fastify';
import { stringifyWithRawJson, type AsRead } from '../core/exact-json.js';

/**
 * Makes this reply write every RawJson of `body` as its own text, and gives `body` back typed
 * as the route's schema describes what clients read.
 */
export function answerWithRawJson<T>(reply: FastifyReply, body: T): AsRead<T> {
  reply.type('application/json; charset=utf-8').serializer((payload: unknown) => stringifyWithRawJson(payload));
  return body as AsRead<T>;
}
