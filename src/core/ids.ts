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

/**
 * Random bytes for identifiers, drawn from the CSPRNG a few kilobytes at a time: detection makes
 * an id for every device it upserts, and one `randomBytes` call each cost more than the upsert.
 * Secrets (randomBase62) never come from this pool.
 */
const ID_POOL_BYTES = 4096;
let idPool = Buffer.alloc(0);
let idPoolAt = 0;

function idByte(): number {
  if (idPoolAt >= idPool.length) {
    idPool = crypto.randomBytes(ID_POOL_BYTES);
    idPoolAt = 0;
  }
  return idPool[idPoolAt++] ?? 0;
}

/** An opaque identifier such as `tok_4fQ9…`: a type prefix and 20 random base62 characters. */
export function newId(prefix: string): string {
  let out = `${prefix}_`;
  for (let left = 20; left > 0;) {
    const byte = idByte();
    // As in randomBase62: bytes at or above 248 would favour the first characters.
    if (byte < 248) {
      out += BASE62.charAt(byte % 62);
      left--;
    }
  }
  return out;
}
