// Single sign-on discovery under the outbound address policy, through HTTP on SQLite and
// PostgreSQL: an issuer on loopback, a private, link-local, unique-local or IPv4-compatible
// address, or one that cannot be reached or is no provider, answers one problem with one detail,
// so `PUT /v1/sso` cannot scan the network; refused addresses are refused before any connection
// (a listener on 127.0.0.1 counts them); every failed attempt is audited, without the reason.
// With the operator's allow-list (the webhook settings), loopback providers are reached.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, type ApiClient } from '../helpers/api.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { DISCOVERY_FAILED_DETAIL } from '../../src/identity/sso/sso-provider.js';

interface Listener {
  port: number;
  /** Connections accepted, whatever came over them. */
  connections: number;
  close(): Promise<void>;
}

/** A plain HTTP listener on 127.0.0.1 that answers everything 404 and counts its connections. */
async function startListener(): Promise<Listener> {
  const server = http.createServer((_request, response) => response.writeHead(404).end('not here'));
  const listener = { port: 0, connections: 0, close: () => Promise.resolve() };
  server.on('connection', () => listener.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  listener.port = (server.address() as AddressInfo).port;
  listener.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return listener;
}

async function closedPort(): Promise<number> {
  const listener = await startListener();
  await listener.close();
  return listener.port;
}

const TITLE = 'Identity provider discovery failed';

const settings = (issuer: string) => ({
  issuer,
  client_id: 'sightline',
  client_secret: 'a client secret',
  allowed_email_domains: ['acme.example'],
  role_claim: 'groups',
  role_mapping: {},
  default_role: 'viewer',
  enabled: false,
});

interface AuditPage {
  events: { action: string; outcome: string; details: Record<string, unknown> }[];
}

for (const target of databaseTargets) {
  describe(
    `single sign-on discovery under the outbound address policy on ${target.kind}`,
    { skip: target.skip },
    () => {
      const suite = apiSuite(target);
      let listener: Listener;
      let admin: ApiClient;

      before(async () => {
        listener = await startListener();
        admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
      });
      after(() => listener.close());

      test('internal addresses are refused before any connection, with the one answer every failure gives', async () => {
        const issuers = [
          `http://127.0.0.1:${listener.port}`,
          `https://127.0.0.1:${listener.port}`,
          `http://localhost:${listener.port}`,
          `https://[::ffff:127.0.0.1]:${listener.port}`,
          `https://[::7f00:1]:${listener.port}`,
          `https://[::1]:${listener.port}`,
          'https://169.254.169.254',
          'https://10.0.0.1',
          'https://192.168.1.1:8443',
          'https://[fd00:ec2::254]',
          'http://login.acme.example',
          'https://sso.does-not-exist.invalid',
        ];
        const answers = new Set<string>();
        for (const issuer of issuers) {
          const response = await admin.request('PUT', '/v1/sso', { body: settings(issuer) });
          const problem = expectProblem(response, 422, 'sso_discovery_failed');
          assert.equal(problem.field, 'issuer');
          answers.add(JSON.stringify([response.status, problem.code, problem.title, problem.detail, problem.field]));
        }
        assert.deepEqual(
          [...answers],
          [JSON.stringify([422, 'sso_discovery_failed', TITLE, DISCOVERY_FAILED_DETAIL, 'issuer'])],
        );
        assert.equal(listener.connections, 0, 'no request reached the listener on 127.0.0.1');
        expectProblem(await admin.get('/v1/sso'), 404, 'sso_not_configured');

        const failed = (await admin.get<AuditPage>('/v1/audit-events?action=sso.configured&limit=100')).body.events;
        assert.equal(failed.length, issuers.length);
        for (const event of failed) {
          assert.equal(event.outcome, 'failure');
          assert.deepEqual(Object.keys(event.details).sort(), ['client_id', 'issuer', 'reason']);
          assert.equal(event.details.reason, 'discovery_failed');
        }
        assert.deepEqual(failed.map((event) => event.details.issuer).sort(), [...issuers].sort());
      });
    },
  );

  describe(`single sign-on discovery with the operator's allow-list on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, { webhookAllowLoopback: true, webhookAllowedNetworks: '10.20.0.0/16' });
    let listener: Listener;
    let admin: ApiClient;

    before(async () => {
      listener = await startListener();
      admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
    });
    after(() => listener.close());

    test('allowed loopback is reached; what answers is no provider, and that too is the one answer', async () => {
      const reached = await admin.request('PUT', '/v1/sso', { body: settings(`http://127.0.0.1:${listener.port}`) });
      assert.equal(expectProblem(reached, 422, 'sso_discovery_failed').detail, DISCOVERY_FAILED_DETAIL);
      assert.equal(listener.connections, 1, 'the allow-list let discovery reach the loopback listener');
      for (const issuer of [
        `https://127.0.0.1:${listener.port}`,
        `http://127.0.0.1:${await closedPort()}`,
        'https://169.254.169.254',
        'https://10.21.0.1',
      ]) {
        const response = await admin.request('PUT', '/v1/sso', { body: settings(issuer) });
        assert.equal(expectProblem(response, 422, 'sso_discovery_failed').detail, DISCOVERY_FAILED_DETAIL, issuer);
      }
    });
  });
}
