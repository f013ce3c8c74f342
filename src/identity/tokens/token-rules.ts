// What every API token must satisfy, tenant or partner: a name people can read, and an expiry
// within the deployment's lifetime policy and never past the token that creates it.
import { AppError } from '../../core/errors.js';
import { hasControlCharacter } from '../../core/control-characters.js';

export const MAX_TOKEN_NAME_LENGTH = 100;
export const DAY_MS = 86_400_000;

/** How long tokens live: the default when no expiry is given, and the longest allowed (null: none). */
export interface TokenLifetimePolicy {
  defaultMs: number;
  maxMs: number | null;
}

export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The name trimmed; a 400 when it is empty, too long or holds control characters. */
export function tokenName(raw: string): string {
  const name = raw.trim();
  if (name === '' || name.length > MAX_TOKEN_NAME_LENGTH) {
    throw new AppError('invalid_request', `name must be 1 to ${MAX_TOKEN_NAME_LENGTH} characters`, {
      extensions: { field: 'name' },
    });
  }
  if (hasControlCharacter(name)) {
    throw new AppError('invalid_request', 'name must not contain control characters (tabs, newlines)', {
      extensions: { field: 'name' },
    });
  }
  return name;
}

/**
 * The expiry a new token gets: the one asked for (epoch ms; null: never; undefined: the default),
 * within the policy and, when a token creates it, no later than `creatorEnd`.
 */
export function tokenExpiry(
  requested: number | null | undefined,
  lifetime: TokenLifetimePolicy,
  creatorEnd: number | null,
  now: number,
): number | null {
  const { defaultMs, maxMs } = lifetime;
  if (requested === undefined) {
    const end = now + defaultMs;
    return creatorEnd !== null && creatorEnd < end ? creatorEnd : end;
  }
  if (requested !== null && requested <= now) {
    throw new AppError('invalid_request', 'expires_at must be in the future', { extensions: { field: 'expires_at' } });
  }
  if (maxMs !== null && (requested === null || requested > now + maxMs)) {
    throw new AppError(
      'invalid_request',
      `tokens live at most ${Math.floor(maxMs / DAY_MS)} days here: give expires_at no later than ${iso(now + maxMs)}`,
      { extensions: { field: 'expires_at', max_lifetime_days: Math.floor(maxMs / DAY_MS) } },
    );
  }
  if (creatorEnd !== null && (requested === null || requested > creatorEnd)) {
    throw new AppError(
      'invalid_request',
      `a token created by a token cannot outlive it: give expires_at no later than ${iso(creatorEnd)}`,
      { extensions: { field: 'expires_at' } },
    );
  }
  return requested;
}
