// How a token's permissions, status and expiry read in the token table and dialogs.
import { allPermissions, permissionDescriptions } from '../../../../src/identity/permissions.js';
import type { Permission } from '../../api/types';
import { Badge, type Tone } from '../../components/ui';
import type { TokenStatus } from './types';

const statusTone: Record<TokenStatus, Tone> = { active: 'success', expired: 'warning', deleted: 'neutral' };

/** A token revoked along with the token that minted it reads "revoked", with the reason beside. */
export function TokenStatusBadge({ status, revoked }: { status: TokenStatus; revoked?: boolean }) {
  return <Badge tone={statusTone[status]}>{revoked ? 'revoked' : status}</Badge>;
}

/** `cases:read` + `cases:write` → "cases rw": one chip per resource; every permission → "all". */
export function PermissionChips({ permissions }: { permissions: readonly Permission[] }) {
  const full = permissions.map((p) => `${p}: ${permissionDescriptions[p]}`).join('\n');
  if (allPermissions.every((p) => permissions.includes(p))) {
    return (
      <span className="token-perms" title={full}>
        <span className="perm">all ({permissions.length})</span>
      </span>
    );
  }
  const resources = new Map<string, string>();
  for (const permission of permissions) {
    const [resource, access] = permission.split(':') as [string, string];
    resources.set(resource, (resources.get(resource) ?? '') + (access === 'read' ? 'r' : 'w'));
  }
  return (
    <span className="token-perms" title={full}>
      {[...resources].map(([resource, access]) => (
        <span key={resource} className="perm">
          {resource} {Array.from(access).sort().join('')}
        </span>
      ))}
    </span>
  );
}

export const expiryChoices = [
  { value: '30', label: '30 days', days: 30 },
  { value: '60', label: '60 days', days: 60 },
  { value: '90', label: '90 days', days: 90 },
  { value: '365', label: '1 year', days: 365 },
  { value: 'custom', label: 'Custom date…', days: null },
  { value: 'never', label: 'No expiry', days: null },
] as const;
export type ExpiryChoice = (typeof expiryChoices)[number]['value'];

/** The token lifetime rules of the deployment (GET /v1/me). */
export interface TokenLifetime {
  default_days: number;
  max_days: number | null;
}

/** The choices a deployment allows: none longer than its maximum, and "No expiry" only without one. */
export function allowedExpiryChoices(lifetime: TokenLifetime) {
  const max = lifetime.max_days;
  return expiryChoices.filter((choice) =>
    choice.value === 'never' ? max === null : choice.days === null || max === null || choice.days <= max,
  );
}

/** The `expires_at` a choice means: ISO time, null for no expiry, undefined when not (yet) valid. */
export function expiryFor(
  choice: ExpiryChoice,
  customDate: string,
  lifetime: TokenLifetime = { default_days: 30, max_days: null },
  now = Date.now(),
): string | null | undefined {
  if (choice === 'never') return lifetime.max_days === null ? null : undefined;
  if (choice === 'custom') {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(customDate)) return undefined;
    // The end of the chosen day, local time.
    const end = new Date(`${customDate}T23:59:59`);
    if (Number.isNaN(end.getTime()) || end.getTime() <= now) return undefined;
    if (lifetime.max_days !== null && end.getTime() > now + lifetime.max_days * 86_400_000) return undefined;
    return end.toISOString();
  }
  const days = expiryChoices.find((c) => c.value === choice)?.days ?? 30;
  return new Date(now + days * 86_400_000).toISOString();
}

/** Today plus `days`, as a date input's value (local). */
export function dateInputValue(days: number, now = Date.now()): string {
  const date = new Date(now + days * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
