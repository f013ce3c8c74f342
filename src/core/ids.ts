// Opaque identifiers (`tok_4fQ9…`) and the base62 alphabet they and the secrets are written in.
import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters of base62, uniformly random (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      // 248 = 4 × 62: bytes at or above it would favour the first characters.
      if (byte < 248 && out.length < length) out += BASE62.charAt(byte % 62);
    }
  }
  return out;
}

export function toBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  do {
    out = BASE62.charAt(rest % 62) + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, '0');
}

/** An opaque identifier such as `tok_4fQ9…`: a type prefix and 20 random base62 characters. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBase62(20)}`;
}
