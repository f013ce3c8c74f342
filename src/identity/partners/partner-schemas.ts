// Request and response shapes of the partner routes (platform operators).
import { Type } from 'typebox';
import { NextCursor, PageQuery, Timestamp } from '../../http/schemas.js';
import { PermissionSchema, TenantSummarySchema, TokenSchema, tokenExample } from '../identity-schemas.js';
import { MAX_TOKEN_NAME_LENGTH } from '../tokens/token-rules.js';
import { MAX_PARTNER_NAME_LENGTH } from './partner-service.js';

const partnerExample = {
  code_name: 'mssp',
  name: 'Example Managed Security',
  created_at: '2026-11-01T08:00:00.000Z',
  created_by: 'admin@localhost',
  tenants: [
    { code_name: 'acme', name: 'Acme Corp' },
    { code_name: 'globex', name: 'Globex' },
  ],
};

export const PartnerSchema = Type.Object(
  {
    code_name: Type.String({ description: "The partner's identifier, unique among partners" }),
    name: Type.String({ description: 'Display name' }),
    created_at: Timestamp('Creation time'),
    created_by: Type.String({ description: 'The operator who created it, or `cli`' }),
    tenants: Type.Array(TenantSummarySchema, { description: 'The tenants it serves, by code name' }),
  },
  { examples: [partnerExample] },
);

export const PartnerListSchema = Type.Object(
  { partners: Type.Array(PartnerSchema), next_cursor: NextCursor },
  { description: 'A page of partners', examples: [{ partners: [partnerExample], next_cursor: null }] },
);

export const PartnerListQuery = Type.Object(PageQuery, { additionalProperties: false });

export const CreatePartnerBody = Type.Object(
  {
    code_name: Type.String({ maxLength: 63 }),
    name: Type.Optional(Type.String({ maxLength: MAX_PARTNER_NAME_LENGTH })),
    tenants: Type.Optional(
      Type.Array(Type.String({ maxLength: 63 }), {
        maxItems: 1000,
        uniqueItems: true,
        description: 'Code names of the tenants it serves (each must exist)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ code_name: 'mssp', name: 'Example Managed Security', tenants: ['acme', 'globex'] }],
  },
);

export const PartnerParams = Type.Object({
  code_name: Type.String({ maxLength: 63, description: 'Partner code name' }),
});

export const PartnerTenantParams = Type.Object({
  code_name: Type.String({ maxLength: 63, description: 'Partner code name' }),
  tenant_code_name: Type.String({ maxLength: 63, description: 'Tenant code name' }),
});

export const PartnerTokenParams = Type.Object({
  code_name: Type.String({ maxLength: 63, description: 'Partner code name' }),
  token_id: Type.String({ maxLength: 64, description: 'Partner token id (`ptk_…`)' }),
});

const partnerTokenExample = { ...tokenExample, id: 'ptk_3hVq8Zc1Wm4Rt7Ye0LpA', created_by: 'admin@localhost' };

export const PartnerTokenListSchema = Type.Object(
  { tokens: Type.Array(TokenSchema), next_cursor: NextCursor },
  { description: 'A page of tokens', examples: [{ tokens: [partnerTokenExample], next_cursor: null }] },
);

export const CreatePartnerTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: MAX_TOKEN_NAME_LENGTH, description: 'What the token is for' }),
    permissions: Type.Array(Type.Union([PermissionSchema, Type.Literal('all')]), {
      minItems: 1,
      uniqueItems: true,
      description: 'What the token may do in each of the partner\'s tenants, or ["all"]',
    }),
    expires_at: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description:
          'Expiry (ISO 8601), within the maximum token lifetime. Absent: the default lifetime. null: never expires, allowed only where the operator set no maximum',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ name: 'SOC queue', permissions: ['cases:read', 'cases:write'], expires_at: '2027-02-20T09:15:00Z' }],
  },
);

export const CreatedPartnerTokenSchema = Type.Object(
  {
    token: TokenSchema,
    value: Type.String({ description: 'The token itself. Shown this once: it cannot be read again; store it now' }),
  },
  { examples: [{ token: partnerTokenExample, value: 'slt_Q3v8nZr1Tk0bXy4Wm9Lc2Hs7Jp5Fd6Ga1e0PxM' }] },
);
