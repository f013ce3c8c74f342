// Opaque cursors for keyset pagination: the position after the last item of a page, encoded
// so clients treat it as a token, and checked on the way back in.
import { AppError } from '../core/errors.js';

export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** Decodes a cursor whose fields must have the given types; a bad cursor is a 400. */
export function decodeCursor<T extends Record<string, string | number>>(
  cursor: string,
  fields: { [K in keyof T]: T[K] extends number ? 'number' : 'string' },
): T {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // Not base64url JSON: reported below like any other malformed cursor.
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
  if (!valid)
    throw new AppError('invalid_cursor', 'cursor is not one this API returned; pass next_cursor unchanged', {
      extensions: { field: 'cursor' },
    });
  return decoded as T;
}
