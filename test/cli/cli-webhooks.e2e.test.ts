// `sightline webhook …` as an operator scripts it: the signing secret alone on stdout, the target
// rules the server applies (loopback only when allowed), the list, the delivery log of what the
// running server then sent (signed, CloudEvents), redelivery with the same event id, turning a
// webhook off and deleting it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { databaseTargets, type TestDatabase } from '../helpers/databases.js';
import { runCli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { apiClient, bearer, issueToken, seedTenant, type ApiClient } from '../helpers/api.js';
import { selfSignedCertificate, startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { verifySignature } from '../../src/webhooks/webhook-signature.js';

interface WebhookLine {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
}

interface DeliveryLine {
  id: string;
  event_id: string;
  status: string;
  response_status: number | null;
}

const target = databaseTargets[0]!;

describe(`sightline webhook on ${target.kind}`, () => {
  const certificate = selfSignedCertificate();
  let database: TestDatabase;
  let server: TestServer;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let storage: string[];

  before(async () => {
    database = await target.create();
    server = await startServer(database, { webhookAllowLoopback: true, webhookCaFile: certificate.cert });
    const acme = await seedTenant(server, 'acme');
    api = apiClient(server, bearer((await issueToken(server, acme, ['observations:write'])).value));
    // Setup, not the subject: the tenant may write observations (the platform's approval).
    await server.sightline.database.db
      .updateTable('tenants')
      .set({ observation_write_approved_at: Date.now() })
      .execute();
    receiver = await startReceiver(() => 204, certificate);
    storage = database.databaseUrl === '' ? ['--data', database.dataDir] : ['--database', database.databaseUrl];
  });
  after(async () => {
    await receiver.close();
    await server.close();
    await database.cleanup();
  });

  test('create prints the secret alone; the server delivers signed events; the log, redelivery, off and delete work', async () => {
    const refused = await runCli([
      'webhook',
      'create',
      '--tenant',
      'acme',
      '--url',
      receiver.url,
      '--events',
      'all',
      ...storage,
    ]);
    assert.equal(refused.code, 1, 'a loopback target needs the loopback setting, as on the server');
    assert.match(refused.stderr, /loopback|private|refused/i);

    const created = await runCli([
      'webhook',
      'create',
      '--tenant',
      'acme',
      '--url',
      receiver.url,
      '--events',
      'observation.created',
      '--description',
      'CLI test',
      '--webhook-allow-loopback',
      ...storage,
    ]);
    assert.equal(created.code, 0, created.stderr);
    const secret = created.stdout.trim();
    assert.match(secret, /^whsec_\S+$/, 'stdout is the secret alone');
    assert.match(created.stderr, /shown this once/);

    const listed = await runCli(['webhook', 'list', '--tenant', 'acme', '--json', ...storage]);
    assert.equal(listed.code, 0, listed.stderr);
    const [webhook, ...others] = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as WebhookLine);
    assert.equal(others.length, 0);
    assert.equal(webhook!.url, receiver.url);
    assert.deepEqual(webhook!.events, ['observation.created']);
    assert.doesNotMatch(listed.stdout, new RegExp(secret.slice(8)), 'the secret is never listed');

    const observed = await api.post('/v1/observations', {
      external_id: 'cli-webhook-1',
      title: 'CLI webhook test detection',
      level: 'high',
      techniques: ['T1059'],
      first_time: new Date().toISOString(),
      host: 'ws-cli-01',
    });
    assert.equal(observed.status, 201, JSON.stringify(observed.body));
    const [first] = await receiver.waitFor(1, 15_000);
    const event = JSON.parse(first!.body) as { type: string; id: string; specversion: string };
    assert.equal(event.type, 'observation.created');
    assert.equal(event.specversion, '1.0');
    assert.ok(
      verifySignature(
        secret,
        {
          id: first!.headers['webhook-id']!,
          timestamp: first!.headers['webhook-timestamp']!,
          signature: first!.headers['webhook-signature']!,
        },
        first!.body,
      ),
      'signed with the secret the CLI printed',
    );

    const log = async () => {
      const result = await runCli(['webhook', 'deliveries', webhook!.id, '--tenant', 'acme', '--json', ...storage]);
      assert.equal(result.code, 0, result.stderr);
      return result.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as DeliveryLine);
    };
    let deliveries = await log();
    for (let i = 0; i < 50 && deliveries[0]?.status !== 'delivered'; i++) deliveries = await log();
    const latest = deliveries.at(0);
    assert.ok(latest, 'the delivery is logged');
    assert.equal(latest.status, 'delivered');
    assert.equal(latest.response_status, 204);

    const again = await runCli([
      'webhook',
      'redeliver',
      webhook!.id,
      latest.id,
      '--tenant',
      'acme',
      '--webhook-allow-loopback',
      ...storage,
    ]);
    assert.equal(again.code, 0, again.stderr);
    const [, second] = await receiver.waitFor(2, 15_000);
    assert.equal(
      second!.headers['webhook-id'],
      first!.headers['webhook-id'],
      'the same event id, so receivers can drop it',
    );

    const off = await runCli(['webhook', 'set', webhook!.id, '--tenant', 'acme', '--disable', ...storage]);
    assert.equal(off.code, 0, off.stderr);
    assert.match(off.stdout, /disabled \(manual\)/);
    const nothing = await runCli(['webhook', 'set', webhook!.id, '--tenant', 'acme', ...storage]);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /nothing to change/);

    const deleted = await runCli(['webhook', 'delete', webhook!.id, '--tenant', 'acme', ...storage]);
    assert.equal(deleted.code, 0, deleted.stderr);
    const empty = await runCli(['webhook', 'list', '--tenant', 'acme', ...storage]);
    assert.equal(empty.stdout, '');
    const gone = await runCli(['webhook', 'deliveries', webhook!.id, '--tenant', 'acme', ...storage]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /not_found/);
  });
});
