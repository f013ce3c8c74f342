// Signing deliveries the Standard Webhooks way (standardwebhooks.com), so receivers can verify
// them with its libraries or a few lines of code (docs/webhooks.md): headers `webhook-id` (the
// event id), `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,` + Base64 of
// HMAC-SHA256 over `id.timestamp.body`, keyed by the secret's Base64 part after `whsec_`).
import crypto from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in Base64. */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${crypto.randomBytes(32).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = crypto.createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The signature headers of one attempt. */
export function signatureHeaders(secret: string, id: string, body: string, now: number): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(secret, id, timestamp, body),
  };
}

/**
 * What a receiver does (and the tests do): recompute, compare in constant time against each
 * signature in the header, and refuse timestamps more than `toleranceSeconds` away.
 */
export function verifySignature(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  now = Date.now(),
  toleranceSeconds = 300,
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, headers.id, timestamp, body));
  return headers.signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
}
