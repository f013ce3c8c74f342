// Cursors are sealed: they round-trip, show nothing of the position (not its digits, not its
// length), refuse every edit, and are bound to the tenant of the request that made them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { AppError } from '../core/errors.js';
import { decodeCursor, encodeCursor, installCursorScope, setCursorKey } from './pagination.js';

const refused = (cursor: string) =>
  assert.throws(
    () => decodeCursor<{ s: number }>(cursor, { s: 'number' }),
    (error: unknown) => error instanceof AppError && error.code === 'invalid_cursor',
    cursor,
  );

test('a cursor gives back its position and nothing of it to its holder', () => {
  const seq = 9_007_199_254_740_991;
  const cursor = encodeCursor({ s: seq, k: 'received_at:desc' });
  assert.deepEqual(decodeCursor<{ s: number; k: string }>(cursor, { s: 'number', k: 'string' }), {
    s: seq,
    k: 'received_at:desc',
  });
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  const bytes = Buffer.from(cursor, 'base64url').toString('latin1');
  // Text of three or more characters: a single character turns up in random ciphertext by chance.
  for (const hidden of [String(seq), 'received_at', '{"s"', '"k":'])
    assert.ok(!bytes.includes(hidden), `${hidden} shows`);
  // The same position twice: two unrelated cursors. Small and large positions: the same length.
  assert.notEqual(encodeCursor({ s: seq }), encodeCursor({ s: seq }));
  assert.equal(encodeCursor({ s: 1 }).length, encodeCursor({ s: seq }).length);
  assert.equal(encodeCursor({ c: 1, i: 'a' }).length, encodeCursor({ c: Date.now(), i: 'tok_0123456789' }).length);
  // Long positions (text keys) still fit, padded further.
  const email = `${'x'.repeat(300)}@example.com`;
  assert.equal(decodeCursor<{ e: string }>(encodeCursor({ e: email }), { e: 'string' }).e, email);
});

test('an edited, cut, extended or home-made cursor is refused', () => {
  const cursor = encodeCursor({ s: 42 });
  const bytes = Buffer.from(cursor, 'base64url');
  for (let i = 0; i < bytes.length; i++) {
    const edited = Buffer.from(bytes);
    edited[i] = (edited[i] ?? 0) ^ 0x01;
    refused(edited.toString('base64url'));
  }
  refused(bytes.subarray(0, bytes.length - 1).toString('base64url'));
  refused(Buffer.concat([bytes, Buffer.alloc(1)]).toString('base64url'));
  refused(`${cursor}.${cursor}`);
  refused(`${cursor}=`);
  refused('');
  refused(Buffer.from('{"s":42}').toString('base64url'));
  refused(randomBytes(bytes.length).toString('base64url'));
  // The fields are still checked once the seal holds.
  assert.throws(() => decodeCursor<{ s: number }>(encodeCursor({ s: 2.5 }), { s: 'number' }), AppError);
  assert.throws(() => decodeCursor<{ s: number }>(encodeCursor({ i: 'x' }), { s: 'number' }), AppError);
});

test('a cursor is sealed with the deployment key: another key refuses it', () => {
  setCursorKey(randomBytes(32));
  const cursor = encodeCursor({ s: 7 });
  assert.equal(decodeCursor<{ s: number }>(cursor, { s: 'number' }).s, 7);
  setCursorKey(randomBytes(32));
  refused(cursor);
  assert.throws(() => setCursorKey(randomBytes(16)), /at least 32 bytes/);
});

test("a cursor is bound to the request's tenant: another tenant's, or one made outside, is refused", async (t) => {
  const app = Fastify({ logger: false });
  t.after(() => app.close());
  installCursorScope(app, (request) => {
    const tenant = request.headers['x-tenant'];
    return tenant ? `tenant ${String(tenant)}` : 'no tenant';
  });
  app.get('/encode', () => ({ cursor: encodeCursor({ s: 5 }) }));
  // A body read before the handler: the scope holds past it.
  app.post<{ Body: { cursor: string } }>('/decode', async (request) => {
    await new Promise((resolve) => setImmediate(resolve));
    try {
      return { s: decodeCursor<{ s: number }>(request.body.cursor, { s: 'number' }).s };
    } catch (error) {
      return { refused: error instanceof AppError ? error.code : String(error) };
    }
  });
  const encode = async (tenant: string) =>
    (await app.inject({ url: '/encode', headers: { 'x-tenant': tenant } })).json<{ cursor: string }>().cursor;
  const decode = async (tenant: string, cursor: string) =>
    (
      await app.inject({ method: 'POST', url: '/decode', headers: { 'x-tenant': tenant }, payload: { cursor } })
    ).json<unknown>();

  const ofA = await encode('1');
  assert.deepEqual(await decode('1', ofA), { s: 5 });
  assert.deepEqual(await decode('2', ofA), { refused: 'invalid_cursor' });
  assert.deepEqual(await decode('', ofA), { refused: 'invalid_cursor' }, 'no tenant');
  const platform = await encode('');
  assert.deepEqual(await decode('', platform), { s: 5 });
  assert.deepEqual(await decode('1', platform), { refused: 'invalid_cursor' });
  assert.deepEqual(await decode('1', encodeCursor({ s: 5 })), { refused: 'invalid_cursor' }, 'made outside');
  refused(ofA);
});
