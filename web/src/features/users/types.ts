// Response shapes of the people pages, from the server's own route schemas (types only).
import type { Static } from 'typebox';
import type {
  ManagedUserSchema,
  OneTimeCodeSchema,
  SessionListSchema,
} from '../../../../src/identity/users/user-admin-routes.js';

export type ManagedUser = Static<typeof ManagedUserSchema>;
export type OneTimeCode = Static<typeof OneTimeCodeSchema>;
export type SessionInfo = Static<typeof SessionListSchema>['sessions'][number];
export const tenantRoles = ['admin', 'analyst', 'viewer'] as const;
export type TenantRole = (typeof tenantRoles)[number];

/** What each role may do, in a sentence, for the role pickers. */
export const roleHelp: Record<TenantRole, string> = {
  admin: 'Everything in the tenant: people, tokens, settings, audit log',
  analyst: 'Work cases, write observations, generate summaries',
  viewer: 'Read cases, devices, observations and telemetry',
};
