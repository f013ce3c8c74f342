// Password hashing with scrypt (memory-hard, in node:crypto). The stored form names its own
// parameters, so they can be raised later without invalidating existing hashes.
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { randomBase62 } from '../../core/ids.js';

const scrypt = promisify(crypto.scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

// N=2^15 by default (--password-hash-cost), r=8, p=1: 32 MiB of memory and tens of milliseconds
// per hash, off the event loop (libuv's thread pool). Each hash records its parameters, so they
// can be raised later.
const DEFAULT_HASH_COST = 15;
let N = 2 ** DEFAULT_HASH_COST;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
/** The decoy hash (decoyHash below), made at the current work factor. */
let decoy: Promise<string> | undefined;

/**
 * The work factor of new hashes, as log2 of N, for the whole process (the server and the CLI set
 * it from --password-hash-cost at start). Hashes already stored keep the factor they name.
 */
export function setPasswordHashCost(log2N: number): void {
  if (2 ** log2N === N) return;
  N = 2 ** log2N;
  decoy = undefined;
}

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { N, r: R, p: P, maxmem: 128 * N * R * 2 });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    ...cost,
    maxmem: 128 * cost.N * cost.r * 2,
  });
  return crypto.timingSafeEqual(actual, expected);
}

/**
 * A hash of a random password, computed once (at the current work factor): a login for an unknown
 * email is checked against it so that it takes as long as a login for a known one and does not
 * reveal which emails exist.
 */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBase62(24));
  return decoy;
}

/** A password for people to copy once: 24 base62 characters, about 142 bits. */
export function generatePassword(): string {
  return randomBase62(24);
}
