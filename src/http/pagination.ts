// Opaque cursors for keyset pagination: the position after the last item of a page, sealed with
// authenticated encryption (AES-256-GCM) under the deployment's cursor key. Sealed, a cursor
// tells its holder nothing: positions are often platform-wide (log sequences, row keys), and a
// readable one would show a tenant how busy the others are. Every cursor is padded to a multiple
// of PAD_BYTES so that its length does not show a number's digits either. A client can only hand
// back a cursor this API gave out, unchanged, in the tenant it was given out in: a forged,
// edited or other tenant's cursor is a 400 before anything reads its position. The key is kept in
// the database (storage/instance-settings.ts), so every node and every restart accepts the same
// cursors; the position's fields are checked on the way back in as well.
//
// The tenant comes from the request being answered (installCursorScope), so a route encodes and
// decodes positions without passing it along; a cursor made outside a request (tools, unit
// tests) is refused inside any.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';

/** The format's first byte: a cursor of another format is refused like any other. */
const VERSION = 1;
/** Random bytes per cursor; the cursor's own key and nonce are derived from them. */
const SALT_BYTES = 16;
const TAG_BYTES = 16;
/**
 * Positions are padded (JSON ignores trailing spaces) to a multiple of this many bytes: every
 * position of fixed-width fields fits one block (a case search's, the longest, about 50 bytes),
 * and cursors stay short enough for a stack of them in a page's address.
 */
const PAD_BYTES = 64;
const HEADER_BYTES = 1 + SALT_BYTES;

/**
 * The key cursors are sealed with, derived from the deployment's cursor key. Until the server sets
 * that key, a process-local one (tools and unit tests).
 */
let sealingKey: Buffer = randomBytes(32);

/** Sets the deployment's cursor key; the server calls it once at start. */
export function setCursorKey(key: Buffer): void {
  if (key.length < 32) throw new Error('the cursor key must be at least 32 bytes');
  sealingKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'sightline cursor sealing', 32));
}

/**
 * Each cursor gets a key and nonce of its own, from random salt: GCM's bound on random nonces
 * under one key (2^32 messages) never comes near, however many pages a deployment serves.
 */
function cipherKeyOf(salt: Buffer): { key: Buffer; iv: Buffer } {
  const derived = createHmac('sha512', sealingKey).update(salt).digest();
  return { key: derived.subarray(0, 32), iv: derived.subarray(32, 44) };
}

const scopes = new AsyncLocalStorage<string>();

/**
 * Binds the cursors a request encodes and decodes to what `scopeOf` names for it: the tenant it
 * acts in. A preHandler hook: authentication has run by then, and the body has been read, so the
 * handler runs inside the scope.
 */
export function installCursorScope(app: FastifyInstance, scopeOf: (request: FastifyRequest) => string): void {
  app.addHook('preHandler', (request, _reply, done) => {
    scopes.run(`request: ${scopeOf(request)}`, done);
  });
}

/** Authenticated with each cursor: where it may be handed back. */
const scopeLabel = () => Buffer.from(`sightline cursor ${VERSION}; ${scopes.getStore() ?? 'no request'}`, 'utf8');

export function encodeCursor(position: Record<string, string | number>): string {
  const json = JSON.stringify(position);
  const length = Buffer.byteLength(json, 'utf8');
  const padded = Buffer.alloc(Math.max(1, Math.ceil(length / PAD_BYTES)) * PAD_BYTES, ' ');
  padded.write(json, 'utf8');
  const salt = randomBytes(SALT_BYTES);
  const { key, iv } = cipherKeyOf(salt);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(scopeLabel());
  const sealed = Buffer.concat([cipher.update(padded), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), salt, sealed, cipher.getAuthTag()]).toString('base64url');
}

const invalidCursor = () =>
  new AppError('invalid_cursor', 'cursor is not one this API returned; pass next_cursor unchanged', {
    extensions: { field: 'cursor' },
  });

/** The position a cursor seals, or undefined for anything this API did not give out here. */
function unseal(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const bytes = Buffer.from(cursor, 'base64url');
  const sealedLength = bytes.length - HEADER_BYTES - TAG_BYTES;
  if (bytes[0] !== VERSION || sealedLength <= 0 || sealedLength % PAD_BYTES !== 0) return undefined;
  // base64url of those bytes must be the cursor itself: no second spelling of one cursor.
  if (bytes.toString('base64url') !== cursor) return undefined;
  const { key, iv } = cipherKeyOf(bytes.subarray(1, HEADER_BYTES));
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(scopeLabel());
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    const plain = Buffer.concat([
      decipher.update(bytes.subarray(HEADER_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return plain.toString('utf8');
  } catch {
    return undefined;
  }
}

/** Decodes a cursor this API sealed, whose fields must have the given types; any other is a 400. */
export function decodeCursor<T extends Record<string, string | number>>(
  cursor: string,
  fields: { [K in keyof T]: T[K] extends number ? 'number' : 'string' },
): T {
  const plain = unseal(cursor);
  if (plain === undefined) throw invalidCursor();
  let decoded: unknown;
  try {
    decoded = JSON.parse(plain);
  } catch {
    // Sealed but not JSON cannot happen with our own cursors; reported like any other.
    decoded = undefined;
  }
  const valid =
    typeof decoded === 'object' &&
    decoded !== null &&
    (Object.entries(fields) as [string, string][]).every(([name, type]) => {
      const value = (decoded as Record<string, unknown>)[name];
      // Every numeric position is a row key or a time: an integer the databases can hold.
      return type === 'number' ? Number.isSafeInteger(value) : typeof value === type;
    });
  if (!valid) throw invalidCursor();
  return decoded as T;
}
