// Secrets' hashes and constant-time comparison. Every secret that reaches storage goes through
// `sha256` first; every comparison of secrets through `sameSecret`.
import crypto from 'node:crypto';

export function sha256(value: string): string {
  return crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Compares two secrets in time independent of where they differ (hashing first evens lengths). */
export function sameSecret(a: string, b: string): boolean {
  const left = crypto.createHash('sha256').update(a, 'utf8').digest();
  const right = crypto.createHash('sha256').update(b, 'utf8').digest();
  return crypto.timingSafeEqual(left, right);
}
