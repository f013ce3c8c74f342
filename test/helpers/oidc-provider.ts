// A real OpenID Connect provider for single sign-on tests: oidc-provider on a free loopback
// port, one confidential client registered with Sightline's callback, and accounts whose claims
// a test sets (and may change between sign-ins). Its development login form takes the account's
// login and any password; consent is granted without asking, as for a first-party client.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** login → claims; a test adds accounts and edits them between sign-ins. */
  accounts: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = `sightline-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(24).toString('base64url');
  const accounts = new Map<string, Record<string, unknown>>();

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    // Put the scopes' claims in the id token, as most providers do.
    conformIdTokenClaims: false,
    cookies: { keys: [randomBytes(32).toString('hex')] },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx: KoaContextWithOIDC, sub: string) => ({
      accountId: sub,
      claims: () => ({ sub, ...(accounts.get(sub) ?? {}) }),
    }),
    // Consent is implied for this first-party client.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const { client, session } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const existing = session.grantIdFor(client.clientId);
      if (existing) return ctx.oidc.provider.Grant.find(existing);
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    void handle(request, response);
  });
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
