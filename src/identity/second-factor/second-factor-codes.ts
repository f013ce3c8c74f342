// The second factor's secrets: TOTP (RFC 6238 with the parameters every authenticator app
// understands: SHA-1, 6 digits, 30-second steps), the secret's encryption at rest (AES-256-GCM
// with a key of the deployment), and recovery codes. Pure functions; the service holds the rules.
import crypto from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { sameSecret, sha256 } from '../../core/secrets.js';

export const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
/** Steps accepted either side of the server's clock: phones drift. */
const DRIFT_STEPS = 1;
const SECRET_BYTES = 20;
export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32 (no i, l, o, u): easy to read aloud and type. */
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export function newTotpSecret(): Buffer {
  return crypto.randomBytes(SECRET_BYTES);
}

export function base32Of(secret: Buffer): string {
  return new OTPAuth.Secret({ buffer: Uint8Array.from(secret).buffer }).base32;
}

function totpFor(secret: Buffer, label = 'user'): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer: 'Sightline',
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: new OTPAuth.Secret({ buffer: Uint8Array.from(secret).buffer }),
  });
}

/** The `otpauth://totp/…` URI authenticator apps read from a QR code. */
export function otpauthUri(secret: Buffer, accountLabel: string): string {
  return totpFor(secret, accountLabel).toString();
}

/** The time step a moment falls in. */
export function stepAt(now: number): number {
  return Math.floor(now / 1000 / TOTP_PERIOD_SECONDS);
}

/** The step whose code this is, within the allowed drift of `now`; undefined when none matches. */
export function matchingStep(secret: Buffer, code: string, now: number): number | undefined {
  const totp = totpFor(secret);
  const current = stepAt(now);
  let found: number | undefined;
  // Every candidate is compared (constant time each), so the answer's timing says nothing of which.
  for (let step = current - DRIFT_STEPS; step <= current + DRIFT_STEPS; step++) {
    const expected = totp.generate({ timestamp: step * TOTP_PERIOD_SECONDS * 1000 });
    if (sameSecret(expected, code) && found === undefined) found = step;
  }
  return found;
}

/** Encrypts the secret: `iv.tag.ciphertext`, each base64url. */
export function encryptSecret(key: Buffer, secret: Buffer): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  return [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('.');
}

export function decryptSecret(key: Buffer, stored: string): Buffer {
  const [iv, tag, ciphertext] = stored.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !ciphertext) throw new Error('stored second-factor secret is malformed');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}

/** Ten fresh recovery codes as shown to the person (`xxxxx-xxxxx`, 50 random bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = [...crypto.randomBytes(10)].map((byte) => RECOVERY_ALPHABET[byte % 32]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** The stored form of a recovery code as typed: case, spaces and dashes ignored; i/l read as 1, o as 0. */
export function recoveryCodeHash(typed: string): string {
  const normal = typed.toLowerCase().replace(/[\s-]/g, '').replace(/[il]/g, '1').replace(/o/g, '0');
  return sha256(`recovery\0${normal}`);
}
