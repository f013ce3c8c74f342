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

// N=2^15, r=8, p=1: 32 MiB of memory and tens of milliseconds per hash, off the event loop
// (libuv's thread pool). Each hash records its parameters, so they can be raised later.
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEMORY = 128 * N * R * 2;

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { N, r: R, p: P, maxmem: MAX_MEMORY });
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
 * A hash of a random password, computed once: a login for an unknown email is checked against
 * it so that it takes as long as a login for a known one and does not reveal which emails exist.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBase62(24));
  return decoy;
}

/** A password for people to copy once: 24 base62 characters, about 142 bits. */
export function generatePassword(): string {
  return randomBase62(24);
}
