// Request and response shapes of the single sign-on settings (GET, PUT, DELETE /v1/sso) and of
// their email domains' verification.
import { Type } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { tenantRoles } from '../permissions.js';

const TenantRoleSchema = Type.Enum(tenantRoles, { description: 'A tenant role' });

const settingsFields = {
  issuer: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      "The provider's issuer URL; discovery reads `<issuer>/.well-known/openid-configuration`. Must be https (plain http only on a loopback address).",
  }),
  client_id: Type.String({ minLength: 1, maxLength: 512, description: 'The client id registered at the provider' }),
  allowed_email_domains: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
    minItems: 1,
    maxItems: 50,
    description:
      'Domains whose people may sign in: the id token must carry a verified `email` (`email_verified` true) in one of them (subdomains are not included), and the domain must be verified (see `email_domains`)',
  }),
  role_claim: Type.String({
    minLength: 1,
    maxLength: 128,
    pattern: '^[A-Za-z0-9_:./-]+$',
    description: "The claim holding the person's groups or role, a string or an array of strings (e.g. `groups`)",
  }),
  role_mapping: Type.Record(Type.String({ pattern: '^.{1,256}$' }), TenantRoleSchema, {
    // Keys outside the pattern would otherwise pass with any value.
    additionalProperties: false,
    maxProperties: 100,
    description:
      'Claim value → role. When several values map, the highest role wins (admin, analyst, viewer); the role is updated at each sign-in',
  }),
  default_role: Type.Union([TenantRoleSchema, Type.Null()], {
    description: 'Role of a person no claim value maps (kept as is for an existing member); null refuses them',
  }),
  enabled: Type.Boolean({ description: 'Whether people may sign in with it' }),
};

const example = {
  issuer: 'https://login.acme.example',
  client_id: 'sightline',
  allowed_email_domains: ['acme.example'],
  role_claim: 'groups',
  role_mapping: { 'soc-admins': 'admin', 'soc-analysts': 'analyst' },
  default_role: 'viewer',
  enabled: true,
};

export const SsoSettingsBody = Type.Object(
  {
    ...settingsFields,
    client_secret: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description: 'The client secret; stored encrypted and never returned. Leave it out to keep the stored one',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ ...example, client_secret: 'the secret the provider issued' }] },
);

const domainExample = {
  domain: 'acme.example',
  verified: true,
  verified_by: 'dns',
  verified_at: '2026-11-22T09:15:00.000Z',
  dns_record: { type: 'TXT', name: 'acme.example', value: 'sightline-verification=2Jf0u3p6sWvQk8yNcR1mZt4xLbH7aE9d' },
};

export const EmailDomainSchema = Type.Object(
  {
    domain: Type.String({ description: 'The domain, lower-cased' }),
    verified: Type.Boolean({ description: 'Whether single sign-on accepts its people' }),
    verified_by: Type.Union([Type.Literal('dns'), Type.Literal('operator'), Type.Null()], {
      description:
        '`dns` (the TXT record was found) or `operator` (a platform operator approved it); null until verified',
    }),
    verified_at: Type.Union([Timestamp('When it was verified'), Type.Null()]),
    dns_record: Type.Object(
      {
        type: Type.Literal('TXT'),
        name: Type.String({ description: 'Where to publish it: the domain itself' }),
        value: Type.String({ description: "The record's text, this tenant's own" }),
      },
      { description: 'The DNS record that verifies the domain for this tenant' },
    ),
  },
  { examples: [domainExample] },
);

export const SsoSettingsSchema = Type.Object(
  {
    ...settingsFields,
    email_domains: Type.Array(EmailDomainSchema, {
      description: 'The allowed domains with their verification: people of an unverified domain are refused',
    }),
    client_secret_set: Type.Literal(true, { description: 'A client secret is stored (it is never returned)' }),
    redirect_uri: Type.String({ description: 'The redirect URI to register at the provider' }),
    sign_in_url: Type.String({ description: "Where a browser starts this tenant's single sign-on" }),
    updated_at: Timestamp('When the settings last changed'),
  },
  {
    examples: [
      {
        ...example,
        email_domains: [domainExample],
        client_secret_set: true,
        redirect_uri: 'https://sightline.example.com/v1/auth/sso/callback',
        sign_in_url: 'https://sightline.example.com/v1/auth/sso/acme/start',
        updated_at: '2026-11-22T09:15:00.000Z',
      },
    ],
  },
);
