// The error handler's answers for errors no route turned into an AppError: a storage fault is a
// 503 the client should retry (the fault named, never the database's own message); anything else
// a masked 500 with the request id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { installErrorHandling } from './error-handler.js';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

test('a storage fault is a 503 with Retry-After; any other error a masked 500', async (t) => {
  const app = Fastify({ logger: false });
  t.after(() => app.close());
  installErrorHandling(app);
  app.get('/locked', () => {
    throw withCode('database is locked: secret row text', 'SQLITE_BUSY_SNAPSHOT');
  });
  app.get('/unreachable', () => {
    throw withCode('connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED');
  });
  app.get('/bug', () => {
    throw new TypeError('x is undefined');
  });
  const locked = await app.inject('/locked');
  assert.equal(locked.statusCode, 503);
  assert.equal(locked.headers['retry-after'], '5');
  const body = locked.json<{ code: string; fault: string; detail: string }>();
  assert.equal(body.code, 'storage_unavailable');
  assert.equal(body.fault, 'locked');
  assert.match(body.detail, /locked by another writer\); retry later/);
  assert.doesNotMatch(locked.body, /secret row text/);
  const unreachable = await app.inject('/unreachable');
  assert.equal(unreachable.statusCode, 503);
  assert.equal(unreachable.json<{ fault: string }>().fault, 'unreachable');
  assert.doesNotMatch(unreachable.body, /10\.0\.0\.5/);
  const bug = await app.inject('/bug');
  assert.equal(bug.statusCode, 500);
  assert.equal(bug.json<{ code: string }>().code, 'internal_error');
  assert.doesNotMatch(bug.body, /undefined/);
});
