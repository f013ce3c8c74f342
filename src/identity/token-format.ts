// The API token's format, GitHub-style: `slt_` + 30 random base62 characters (178 bits) + a
// 6-character CRC32 checksum of the random part. Secret scanners can recognise a Sightline
// token by its prefix and checksum without asking us, and a mistyped token is rejected without a
// database lookup.
import zlib from 'node:zlib';
import { randomBase62, toBase62 } from '../core/ids.js';

export const TOKEN_PREFIX = 'slt_';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const pattern = new RegExp(`^${TOKEN_PREFIX}([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

function checksum(random: string): string {
  return toBase62(zlib.crc32(random), CHECKSUM_LENGTH);
}

export function generateToken(): string {
  const random = randomBase62(RANDOM_LENGTH);
  return `${TOKEN_PREFIX}${random}${checksum(random)}`;
}

/** Whether the value has the token shape and a correct checksum. */
export function isWellFormedToken(value: string): boolean {
  const [, random, check] = pattern.exec(value) ?? [];
  return random !== undefined && check === checksum(random);
}
