// Response types come from the server's own route schemas (TypeBox), imported as types only:
// the UI cannot drift from what the API validates and documents.
import type { Static } from 'typebox';
import type { ProblemSchema } from '../../../src/http/schemas.js';
import type { ProblemCode } from '../../../src/core/errors.js';
import type { MeSchema, SessionSchema } from '../../../src/identity/sessions/auth-routes.js';
import type { TenantSchema } from '../../../src/identity/tenants/tenant-routes.js';
import type { Permission } from '../../../src/identity/permissions.js';

// The schema builds `code` from the problem table at run time, which its static type cannot follow.
export type Problem = Omit<Static<typeof ProblemSchema>, 'code'> & { code: ProblemCode } & Record<string, unknown>;
export type Me = Static<typeof MeSchema>;
export type Session = Static<typeof SessionSchema>;
export type Tenant = Static<typeof TenantSchema>;
export type { Permission };

/** Every list endpoint's page shape: items under their own key, then `next_cursor`. */
export type Page<K extends string, T> = Record<K, T[]> & { next_cursor: string | null };
