// What a caller may do. Tokens carry an explicit list of permissions; people get theirs from
// their role. A token can never hold a permission its creator lacks.
import type { Role } from '../storage/schema.js';
import { AppError } from '../core/errors.js';

export const permissionDescriptions = {
  'cases:read': 'Read cases, their comments, history and summaries already generated',
  'cases:write': 'Update cases: status, assignee, tags, comments, tasks',
  'case_settings:write': 'Manage case templates and the SLA policy (tenant admins)',
  'devices:read': 'Read the device inventory',
  'devices:write': 'Edit device descriptions and criticality (tenant admins)',
  'observations:read': 'Read observations',
  'observations:write': "Create observations (also needs the platform's approval of the tenant)",
  'telemetry:read': 'Search and export the raw records the collector stored',
  'summaries:read': 'Read AI case summaries (together with cases:read: summaries quote case evidence)',
  'summaries:write': 'Generate and rate AI case summaries',
  'tokens:read': "List the tenant's API tokens",
  'tokens:write': 'Create and delete API tokens',
  'audit:read': "Read the tenant's audit log",
  'users:read': "List the tenant's people with their status, and their sign-in sessions",
  'users:write':
    "Manage the tenant's people: invite, change roles, disable, delete, reset passwords and second factors, end sessions",
  'ingest_keys:read': "List the collector's ingest keys and whether the collector requires one",
  'ingest_keys:write': 'Create and delete ingest keys; require them on the collector; send it a test record',
  'sso:read': "Read the tenant's single sign-on settings (never the client secret)",
  'sso:write': "Configure the tenant's single sign-on",
  'devices:respond': 'Request and confirm response actions on devices (isolate, release)',
  'webhooks:read': "List the tenant's webhook subscriptions and their delivery log",
  'webhooks:write': 'Create, change, delete and redeliver webhook subscriptions',
  'retention:read': "Read the tenant's telemetry retention, legal hold and storage use",
  'retention:write': "Change the tenant's telemetry retention and legal hold",
} as const;

export type Permission = keyof typeof permissionDescriptions;

export const allPermissions = Object.keys(permissionDescriptions) as Permission[];

const viewer: Permission[] = ['cases:read', 'devices:read', 'observations:read', 'telemetry:read', 'summaries:read'];
const analyst: Permission[] = [...viewer, 'cases:write', 'observations:write', 'summaries:write', 'devices:respond'];

/** Each role's permissions. Admins manage the tenant's tokens and read its audit log. */
export const rolePermissions: Record<Role, readonly Permission[]> = {
  viewer,
  analyst,
  admin: allPermissions,
  operator: allPermissions,
};

export const tenantRoles = ['admin', 'analyst', 'viewer'] as const;
export const roles: readonly Role[] = ['operator', ...tenantRoles];

export function isPermission(value: string): value is Permission {
  return Object.hasOwn(permissionDescriptions, value);
}

/** `all`, or a comma-separated list of permission names, as the CLI and API accept them. */
export function parsePermissions(values: readonly string[]): Permission[] {
  const names = values
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
  if (names.length === 1 && names[0] === 'all') return [...allPermissions];
  if (names.length === 0)
    throw new AppError(
      'invalid_permission',
      `give at least one permission, or all; known: ${allPermissions.join(', ')}`,
    );
  const unknown = names.filter((name) => !isPermission(name));
  if (unknown.length > 0) {
    throw new AppError(
      'invalid_permission',
      `unknown permission ${unknown.map((name) => JSON.stringify(name)).join(', ')}; known: ${allPermissions.join(', ')}, or all`,
    );
  }
  return allPermissions.filter((permission) => names.includes(permission));
}
