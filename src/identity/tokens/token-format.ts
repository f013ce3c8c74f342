// The format of Sightline's secrets, GitHub-style: a prefix naming the kind (`slt_` for API
// tokens, `sli_` for collector ingest keys) + 30 random base62 characters (178 bits) + a
// 6-character CRC32 checksum of the random part. Secret scanners can recognise a Sightline
// secret by its prefix and checksum without asking us, and a mistyped one is rejected without a
// database lookup.
import zlib from 'node:zlib';
import { randomBase62, toBase62 } from '../../core/ids.js';

const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;

function checksum(random: string): string {
  return toBase62(zlib.crc32(random), CHECKSUM_LENGTH);
}

export interface SecretFormat {
  prefix: string;
  generate(): string;
  /** Whether the value has this kind's shape and a correct checksum. */
  isWellFormed(value: string): boolean;
}

export function secretFormat(prefix: string): SecretFormat {
  const pattern = new RegExp(`^${prefix}([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);
  return {
    prefix,
    generate() {
      const random = randomBase62(RANDOM_LENGTH);
      return `${prefix}${random}${checksum(random)}`;
    },
    isWellFormed(value) {
      const [, random, check] = pattern.exec(value) ?? [];
      return random !== undefined && check === checksum(random);
    },
  };
}

const tokenFormat = secretFormat('slt_');
export const TOKEN_PREFIX = tokenFormat.prefix;

export function generateToken(): string {
  return tokenFormat.generate();
}

/** Whether the value has the token shape and a correct checksum. */
export function isWellFormedToken(value: string): boolean {
  return tokenFormat.isWellFormed(value);
}
