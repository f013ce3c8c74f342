// An authenticator app for tests: RFC 6238 TOTP written here from the RFC (HMAC-SHA1 from
// node:crypto, RFC 4226 dynamic truncation), independent of the library the server uses, and
// checked against the RFC's own test vectors (test/integration/totp-reference.test.ts).
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

const STEP_MS = 30_000;

/** RFC 4648 base32 (upper case, padding optional) to bytes. */
export function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const index = alphabet.indexOf(char);
    if (index === -1) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226 HOTP: HMAC-SHA1 of the 8-byte big-endian counter, dynamically truncated. */
export function hotp(key: Buffer, counter: number, digits = 6): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** RFC 6238 TOTP at a time in seconds (T0 = 0, X = 30 s). */
export function totpAt(key: Buffer, seconds: number, digits = 6): string {
  return hotp(key, Math.floor(seconds / 30), digits);
}

export const stepNow = () => Math.floor(Date.now() / STEP_MS);

/**
 * The phone of one account: hands out codes the server has not seen yet. A server accepts one
 * step either side of its clock and each step once, so this gives the current step, then the
 * next one, then waits for the clock to move on (a wait, not an assertion on time).
 */
export class Authenticator {
  private lastStep = -1;
  readonly key: Buffer;

  constructor(readonly base32Secret: string) {
    this.key = base32Decode(base32Secret);
  }

  async freshCode(): Promise<string> {
    for (;;) {
      const current = stepNow();
      const step = Math.max(current, this.lastStep + 1);
      if (step <= current + 1) {
        this.lastStep = step;
        return hotp(this.key, step);
      }
      await sleep((current + 1) * STEP_MS - Date.now() + 50);
    }
  }

  /** A 6-digit code that matches none of the steps the server could accept around now. */
  wrongCode(): string {
    const current = stepNow();
    const near = new Set([-2, -1, 0, 1, 2].map((delta) => hotp(this.key, current + delta)));
    for (let n = 0; ; n++) {
      const candidate = String(n).padStart(6, '0');
      if (!near.has(candidate)) return candidate;
    }
  }
}
