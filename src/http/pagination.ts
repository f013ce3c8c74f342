// Opaque cursors for keyset pagination: the position after the last item of a page, signed with
// the deployment's cursor key (HMAC-SHA256) so that a client can only hand back a cursor this API
// gave out: a forged or edited one is a 400 before anything reads its position. The key is kept
// in the database (storage/instance-settings.ts), so every node and every restart accepts the
// same cursors; the position's fields are checked on the way back in as well.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../core/errors.js';

/** Bytes of the HMAC kept in a cursor: 128 bits cannot be guessed. */
const TAG_BYTES = 16;

/** Until the server sets the deployment's key, a process-local one (tools and unit tests). */
let cursorKey: Buffer = randomBytes(32);

/** Sets the key cursors are signed with; the server calls it once at start. */
export function setCursorKey(key: Buffer): void {
  if (key.length < 32) throw new Error('the cursor key must be at least 32 bytes');
  cursorKey = key;
}

const tagOf = (payload: string) => createHmac('sha256', cursorKey).update(payload).digest().subarray(0, TAG_BYTES);

export function encodeCursor(position: Record<string, string | number>): string {
  const payload = Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
  return `${payload}.${tagOf(payload).toString('base64url')}`;
}

const invalidCursor = () =>
  new AppError('invalid_cursor', 'cursor is not one this API returned; pass next_cursor unchanged', {
    extensions: { field: 'cursor' },
  });

/** Decodes a cursor this API signed, whose fields must have the given types; any other is a 400. */
export function decodeCursor<T extends Record<string, string | number>>(
  cursor: string,
  fields: { [K in keyof T]: T[K] extends number ? 'number' : 'string' },
): T {
  const [payload = '', tag = '', extra] = cursor.split('.');
  const sent = Buffer.from(tag, 'base64url');
  if (extra !== undefined || sent.length !== TAG_BYTES || !timingSafeEqual(sent, tagOf(payload))) {
    throw invalidCursor();
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    // Signed but not JSON cannot happen with our own cursors; reported like any other.
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
