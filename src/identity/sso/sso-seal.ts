// Secrets single sign-on must read back (a tenant's client secret, a sign-in's PKCE verifier in
// its cookie) are sealed with AES-256-GCM under a key the deployment makes on first use and
// keeps in its database, so every node and restart can open them. Each seal names what it is
// for (and whose), so a sealed value moved to another purpose or tenant does not open. Values
// that only need to be recognised (a domain's verification token) are tags: an HMAC under a key
// derived from the same one.
import crypto from 'node:crypto';
import type { Db } from '../../storage/database.js';
import { instanceKey } from '../../storage/instance-settings.js';

const VERSION = 'v1';

export class Sealer {
  constructor(private readonly key: Buffer) {}

  seal(plain: string, context: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** A stable, unguessable value for `value` (HMAC-SHA256, base64url), different per context. */
  tag(value: string, context: string): string {
    const key = crypto.createHmac('sha256', this.key).update(`tag\0${context}`).digest();
    return crypto.createHmac('sha256', key).update(value, 'utf8').digest('base64url');
  }

  /** The plain text, or undefined when the value was altered, sealed for another context or under another key. */
  open(sealed: string, context: string): string | undefined {
    const [version, payload] = sealed.split('.', 2);
    if (version !== VERSION || payload === undefined) return undefined;
    const raw = Buffer.from(payload, 'base64url');
    if (raw.length < 28) return undefined;
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch (error) {
      // GCM's authentication failed: the only error decipher.final() raises here.
      if (error instanceof Error) return undefined;
      throw error;
    }
  }
}

/** The deployment's sealer for single sign-on (its key made on first use). */
export async function ssoSealer(db: Db): Promise<Sealer> {
  return new Sealer(await instanceKey(db, 'sso_key'));
}
