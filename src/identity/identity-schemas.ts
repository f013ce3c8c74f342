// Response shapes of the identity routes, shared by the routes that return them.
import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';
import { allPermissions, roles } from './permissions.js';

export const PermissionSchema = Type.Enum(allPermissions, { description: 'A permission name' });

export const RoleSchema = Type.Enum(roles);

export const TenantSummarySchema = Type.Object({
  code_name: Type.String({ description: 'Anonymised identifier of the tenant; first label of its collector address' }),
  name: Type.String({ description: 'Display name' }),
});

export const UserSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  permissions: Type.Array(PermissionSchema),
  created_at: Timestamp('When the user was created'),
});

export const tokenExample = {
  id: 'tok_7QmVb2XcT4kR9sLp0aZe',
  name: 'SOAR integration',
  hint: 'slt_…9fXk',
  permissions: ['cases:read', 'cases:write'],
  status: 'active',
  created_by: 'alice@example.com',
  created_at: '2026-11-22T09:15:00.000Z',
  expires_at: '2027-02-20T09:15:00.000Z',
  deleted_at: null,
  deleted_by: null,
  last_used_at: '2026-11-22T10:02:11.000Z',
  last_used_ip: '203.0.113.7',
  parent_token_id: null,
  revoked_reason: null,
};

export const TokenSchema = Type.Object(
  {
    id: Type.String({ description: 'Opaque token id (not the secret)' }),
    name: Type.String(),
    hint: Type.String({ description: "The value's last four characters, to tell tokens apart" }),
    permissions: Type.Array(PermissionSchema),
    status: Type.Enum(['active', 'expired', 'deleted'], {
      description: 'active; expired (past expires_at); deleted (can never authenticate again)',
    }),
    created_by: Type.String({ description: 'Email of the creator, or `cli`' }),
    created_at: Timestamp('Creation time'),
    expires_at: Type.Union([Timestamp('Expiry time'), Type.Null()]),
    deleted_at: Type.Union([Timestamp('Deletion time'), Type.Null()]),
    deleted_by: Type.Union([Type.String(), Type.Null()]),
    last_used_at: Type.Union([
      Timestamp('Last successful authentication (updated at most once a minute)'),
      Type.Null(),
    ]),
    last_used_ip: Type.Union([Type.String({ description: 'Client address of that use' }), Type.Null()]),
    parent_token_id: Type.Union([
      Type.String({ description: 'The token that created this one; deleting it revokes this one' }),
      Type.Null(),
    ]),
    revoked_reason: Type.Union([
      Type.String({ description: 'Why the token was revoked along with another (status deleted)' }),
      Type.Null(),
    ]),
  },
  { examples: [tokenExample] },
);
