// Discovery under the outbound address policy: a refused issuer fails before any lookup or
// connection with the one detail the tenant sees, while the reason, for the operator's log,
// says what was refused (never what an internal name resolved to).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { discoverProvider, DiscoveryFailed, DISCOVERY_FAILED_DETAIL } from './sso-provider.js';

const publicOnly = { allowLoopback: false, allowedNetworks: [] };

async function failure(issuer: string, resolved: string[] = []): Promise<DiscoveryFailed> {
  const asked: string[] = [];
  const resolve = (host: string) => {
    asked.push(host);
    return Promise.resolve(resolved);
  };
  const error = await discoverProvider(issuer, 'client', 'secret', { policy: publicOnly, resolve }).then(
    () => assert.fail(`${issuer} was discovered`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof DiscoveryFailed, String(error));
  assert.equal(error.detail, DISCOVERY_FAILED_DETAIL);
  assert.equal(error.status, 422);
  return error;
}

test('a refused issuer fails with the generic detail; the reason names what was refused', async () => {
  assert.match((await failure('https://169.254.169.254')).reason, /link-local/);
  assert.match((await failure('http://127.0.0.1:8080')).reason, /not https/);
  assert.match((await failure('https://[::7f00:1]')).reason, /IPv4-compatible/);
  const internal = await failure('https://idp.corp.example', ['10.1.2.3']);
  assert.match(internal.reason, /idp\.corp\.example resolves to an address that is not public/);
  assert.ok(!internal.reason.includes('10.1.2.3'));
});
