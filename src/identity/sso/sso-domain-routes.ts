// Verifying the email domains single sign-on accepts: a tenant admin asks Sightline to look for
// the domain's TXT record; a platform operator approves (or withdraws) a domain for a tenant.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Tables } from '../../storage/schema.js';
import { problemResponse } from '../../http/schemas.js';
import { principalOf, tenantOf } from '../auth.js';
import { actorOf } from '../principal.js';
import { requireTenantByCodeName } from '../tenants/tenant-service.js';
import type { TenantRow } from '../tenants/tenant-store.js';
import { approveDomain, verifyByDns, withdrawDomain, type DomainContext, type TxtResolver } from './sso-domains.js';
import { EmailDomainSchema } from './sso-schemas.js';

const DomainParam = Type.String({
  minLength: 1,
  maxLength: 253,
  description: 'The email domain, such as acme.example',
});

export function ssoDomainRoutes(app: FastifyInstance, deps: { db: Kysely<Tables>; resolveTxt: TxtResolver }): void {
  const { db } = deps;
  const routes = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Authentication'];
  const context = (request: FastifyRequest, tenant: TenantRow): DomainContext => ({
    db,
    tenant,
    actor: actorOf(principalOf(request)),
    ip: request.ip,
  });
  const verified = { ...EmailDomainSchema, description: 'The domain, verified' };

  routes.post(
    '/sso/domains/:domain/verify',
    {
      config: { access: { scope: 'tenant', permission: 'sso:write' } },
      schema: {
        tags,
        summary: 'Verify an email domain by DNS',
        description:
          "Looks up the domain's TXT records now; when one is the tenant's `sightline-verification=…` record (see `email_domains[].dns_record` in `GET /v1/sso`), the domain is verified and single sign-on accepts its people. The record may be removed afterwards. Audited as `sso.domain_verified`.",
        params: Type.Object({ domain: DomainParam }),
        response: {
          200: verified,
          422: problemResponse(
            'The record is not there (yet); the problem gives `dns_record`',
            'sso_domain_not_verified',
            'acme.example has no TXT record "sightline-verification=2Jf0u3p6sWvQk8yNcR1mZt4xLbH7aE9d"',
          ),
        },
      },
    },
    async (request) => verifyByDns(context(request, tenantOf(request)), request.params.domain, deps.resolveTxt),
  );

  const operatorParams = Type.Object({
    code_name: Type.String({ maxLength: 63, description: "The tenant's code name" }),
    domain: DomainParam,
  });

  routes.put(
    '/tenants/:code_name/sso-domains/:domain',
    {
      config: { access: { scope: 'operator' } },
      schema: {
        tags,
        summary: "Approve a tenant's email domain",
        description:
          "A platform operator vouches that the tenant holds the domain (for a domain whose DNS the tenant cannot change): single sign-on accepts its people. Audited in the tenant's log as `sso.domain_verified` with `verified_by: operator`.",
        params: operatorParams,
        response: { 200: verified },
      },
    },
    async (request) => {
      const tenant = await requireTenantByCodeName(db, request.params.code_name);
      return approveDomain(context(request, tenant), request.params.domain);
    },
  );

  routes.delete(
    '/tenants/:code_name/sso-domains/:domain',
    {
      config: { access: { scope: 'operator' } },
      schema: {
        tags,
        summary: "Withdraw a tenant's email domain verification",
        description:
          "Withdraws the domain's verification, by DNS or by approval: single sign-on refuses its people until it is verified again. Audited as `sso.domain_unverified`.",
        params: operatorParams,
        response: {
          204: { description: 'Withdrawn', type: 'null' },
          404: problemResponse('The domain is not verified for that tenant', 'not_found'),
        },
      },
    },
    async (request, reply) => {
      const tenant = await requireTenantByCodeName(db, request.params.code_name);
      await withdrawDomain(context(request, tenant), request.params.domain);
      return reply.code(204).send(null);
    },
  );
}
