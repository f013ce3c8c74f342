// Webhooks through HTTP on SQLite and PostgreSQL, delivered to a real HTTPS receiver whose
// self-signed certificate the server trusts through --webhook-ca-file: subscriptions with the
// secret shown once; CloudEvents signed so the receiver verifies them; failures (errors and
// timeouts) retried on a shortened schedule and shown in the delivery log; a subscription that
// keeps failing turned off and said so; redelivery; the outbox shared by several dispatchers
// (each delivery sent once) and a dead dispatcher's lease taken over; refused addresses.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, type ApiClient } from '../helpers/api.js';
import { selfSignedCertificate, startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { verifySignature } from '../../src/webhooks/webhook-signature.js';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher.js';
import { webhookSealer } from '../../src/webhooks/webhook-secrets.js';
import { claimDue } from '../../src/webhooks/webhook-store.js';
import { emitEvents } from '../../src/webhooks/webhook-events.js';
import { writeTransaction } from '../../src/storage/write-transaction.js';
import { storagePorts } from '../../src/storage/ports/storage-ports.js';
import type { DeliveryView, WebhookView } from '../../src/webhooks/webhook-service.js';

const certificate = selfSignedCertificate();
after(() => fs.rmSync(certificate.dir, { recursive: true, force: true }));

interface CloudEvent {
  specversion: string;
  id: string;
  source: string;
  type: string;
  subject: string;
  time: string;
  datacontenttype: string;
  data: Record<string, Record<string, unknown>>;
}

const RETRY_WINDOW_MS = 6_000;

for (const target of databaseTargets) {
  describe(`webhooks on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, {
      webhookAllowLoopback: true,
      webhookCaFile: certificate.cert,
      webhookRetryBase: '100ms',
      webhookRetryWindow: `${RETRY_WINDOW_MS / 1000}s`,
      webhookTimeout: '2s',
    });
    let admin: ApiClient;
    let reader: ApiClient;
    let receiver: WebhookReceiver;
    let sequence = 0;
    before(async () => {
      admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
      reader = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['webhooks:read'])).value));
      // Setup, not the subject: the tenant may write observations (the API's operator approval).
      await suite.server.sightline.database.db
        .updateTable('tenants')
        .set({ observation_write_approved_at: Date.now() })
        .execute();
      receiver = await startReceiver(() => 204, certificate);
    });
    after(() => receiver.close());

    const subscribe = async (events: string[], url = receiver.url) => {
      const created = await admin.post<{ webhook: WebhookView; secret: string }>('/v1/webhooks', { url, events });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    };
    const unsubscribe = async (id: string) =>
      assert.equal((await admin.request('DELETE', `/v1/webhooks/${id}`)).status, 204);
    const observe = async (host: string) => {
      sequence++;
      const response = await admin.post<{ id: string }>('/v1/observations', {
        external_id: `ext-${target.kind}-${sequence}`,
        title: `Webhook test detection ${sequence}`,
        level: 'high',
        techniques: ['T1059'],
        first_time: new Date().toISOString(),
        host,
      });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      return response.body;
    };
    const deliveries = async (id: string) => {
      const response = await reader.get<{ deliveries: DeliveryView[] }>(`/v1/webhooks/${id}/deliveries`);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body.deliveries;
    };
    const until = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe();
        if (value !== undefined) return value;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await sleep(50);
      }
    };

    test('a subscription shows its signing secret once; refused URLs say why', async () => {
      const { webhook, secret } = await subscribe(['case.created']);
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(webhook.secret_prefix, `${secret.slice(0, 10)}…`);
      const read = await reader.get<WebhookView>(`/v1/webhooks/${webhook.id}`);
      assert.deepEqual(read.body, webhook);
      // A substring, not a pattern: the secret's base64 may hold '+' or '/'.
      const listing = JSON.stringify((await reader.get('/v1/webhooks')).body);
      assert.ok(!listing.includes(secret.slice(10, 30)), 'the listing does not hold the secret');
      await unsubscribe(webhook.id);

      const refused = async (url: string, code: string, detail: RegExp) => {
        const problem = expectProblem(await admin.post('/v1/webhooks', { url, events: ['case.created'] }), 400, code);
        assert.match(problem.detail, detail);
        return problem;
      };
      assert.equal(
        (await refused('http://soar.example.com/hook', 'invalid_webhook_url', /must use https/)).field,
        'url',
      );
      await refused('https://user:pw@soar.example.com/hook', 'invalid_webhook_url', /credentials/);
      await refused('https://169.254.169.254/latest/meta-data', 'webhook_address_refused', /link-local/);
      await refused('https://10.1.2.3/hook', 'webhook_address_refused', /private/);
      await refused('https://[fd00:ec2::254]/hook', 'webhook_address_refused', /uniqueLocal/);
      await refused('https://[::a9fe:a9fe]/hook', 'webhook_address_refused', /IPv4-compatible/);
      await refused(`https://example.com/${'a'.repeat(2_100)}`, 'invalid_request', /url/);
      const unknown = expectProblem(
        await admin.post('/v1/webhooks', { url: receiver.url, events: ['case.deleted'] }),
        400,
        'invalid_request',
      );
      assert.match(unknown.detail, /unknown: case\.deleted/);
      expectProblem(
        await reader.post('/v1/webhooks', { url: receiver.url, events: ['case.created'] }),
        403,
        'permission_denied',
      );
    });

    test('an observation and the case it opens arrive as signed CloudEvents, logged as delivered', async () => {
      const start = receiver.received.length;
      const { webhook, secret } = await subscribe(['observation.created', 'case.created']);
      const observation = await observe(`signed-${target.kind}`);
      const received = (await receiver.waitFor(start + 2)).slice(start);
      const events = received.map((item) => {
        assert.equal(item.headers['content-type'], 'application/cloudevents+json; charset=utf-8');
        assert.ok(
          verifySignature(
            secret,
            {
              id: item.headers['webhook-id']!,
              timestamp: item.headers['webhook-timestamp']!,
              signature: item.headers['webhook-signature']!,
            },
            item.body,
          ),
          'the signature verifies with the secret',
        );
        assert.ok(
          !verifySignature(
            `${secret.slice(0, -4)}AAA=`,
            {
              id: item.headers['webhook-id']!,
              timestamp: item.headers['webhook-timestamp']!,
              signature: item.headers['webhook-signature']!,
            },
            item.body,
          ),
          'and not with another secret',
        );
        const event = JSON.parse(item.body) as CloudEvent;
        assert.equal(event.id, item.headers['webhook-id']);
        return event;
      });
      const byType = new Map(events.map((event) => [event.type, event]));
      const made = byType.get('observation.created');
      assert.ok(made, 'observation.created arrived');
      assert.equal(made.specversion, '1.0');
      assert.equal(made.source, '/tenants/acme');
      assert.equal(made.subject, observation.id);
      assert.equal(made.datacontenttype, 'application/json');
      assert.equal(made.data.observation!.id, observation.id);
      assert.equal(made.data.observation!.host, `signed-${target.kind}`);
      const opened = byType.get('case.created');
      assert.ok(opened, 'case.created arrived');
      assert.match(String(opened.data.case!.id), /^case_/);
      assert.equal(opened.data.case!.status, 'new');

      const log = await until('both deliveries logged as delivered', async () => {
        const rows = await deliveries(webhook.id);
        return rows.length === 2 && rows.every((row) => row.status === 'delivered') ? rows : undefined;
      });
      for (const row of log) {
        assert.equal(row.attempts, 1);
        assert.equal(row.response_status, 204);
        assert.equal(typeof row.latency_ms, 'number');
        assert.equal(row.last_error, null);
      }
      assert.deepEqual(new Set(log.map((row) => row.event_id)), new Set(events.map((event) => event.id)));
      await unsubscribe(webhook.id);
    });

    test('an error and a timeout are retried with the same event id until the receiver takes it', async () => {
      const start = receiver.received.length;
      receiver.answer = (n) => (n === start + 1 ? 500 : n === start + 2 ? 'hang' : 204);
      const { webhook } = await subscribe(['observation.created']);
      await observe(`retried-${target.kind}`);
      const received = (await receiver.waitFor(start + 3)).slice(start);
      assert.equal(
        new Set(received.map((item) => item.headers['webhook-id'])).size,
        1,
        'one event id on every attempt',
      );
      assert.ok(received[1]!.at - received[0]!.at >= 50, 'the first retry waited (base 100 ms, half of it jitter)');
      const [row] = await until('the delivery logged as delivered', async () => {
        const rows = await deliveries(webhook.id);
        return rows[0]?.status === 'delivered' ? rows : undefined;
      });
      assert.equal(row!.attempts, 3);
      assert.equal(row!.response_status, 204);
      receiver.answer = () => 204;
      await unsubscribe(webhook.id);
    });

    test('a subscription failing for the whole retry window is turned off, says so, and redelivers once on again', async () => {
      const start = receiver.received.length;
      receiver.answer = () => 503;
      const { webhook, secret } = await subscribe(['observation.created']);
      await observe(`failing-${target.kind}`);
      await receiver.waitFor(start + 1);
      const off = await until(
        'the subscription turned off',
        async () => {
          const read = await reader.get<WebhookView>(`/v1/webhooks/${webhook.id}`);
          return read.body.enabled ? undefined : read.body;
        },
        RETRY_WINDOW_MS * 4,
      );
      assert.equal(off.disabled_reason, 'failing');
      assert.ok(off.failing_since);
      const [failed] = await until('the delivery given up', async () => {
        const rows = await deliveries(webhook.id);
        return rows[0]?.status === 'failed' ? rows : undefined;
      });
      assert.ok(failed!.attempts >= 2, `retried before giving up: ${failed!.attempts} attempts`);
      assert.equal(failed!.response_status, 503);
      assert.match(failed!.last_error ?? '', /503/);
      const audit = await admin.get<{ events: { action: string; target: { id: string } | null }[] }>(
        '/v1/audit-events?action=webhook.disabled',
      );
      assert.ok(
        audit.body.events.some((event) => event.target?.id === webhook.id),
        'the audit log says who turned it off',
      );

      receiver.answer = () => 204;
      const on = await admin.patch<WebhookView>(`/v1/webhooks/${webhook.id}`, { enabled: true });
      assert.equal(on.body.enabled, true);
      assert.equal(on.body.disabled_reason, null);
      const before = receiver.received.length;
      const again = await admin.post<DeliveryView>(`/v1/webhooks/${webhook.id}/deliveries/${failed!.id}/redeliver`, {});
      assert.equal(again.status, 202, JSON.stringify(again.body));
      assert.equal(again.body.redelivery_of, failed!.id);
      assert.equal(again.body.event_id, failed!.event_id);
      const [redelivered] = (await receiver.waitFor(before + 1)).slice(before);
      assert.equal(redelivered!.headers['webhook-id'], failed!.event_id);
      assert.ok(
        verifySignature(
          secret,
          {
            id: redelivered!.headers['webhook-id'],
            timestamp: redelivered!.headers['webhook-timestamp']!,
            signature: redelivered!.headers['webhook-signature']!,
          },
          redelivered!.body,
        ),
      );
      await until('the redelivery logged as delivered', async () => {
        const rows = await deliveries(webhook.id);
        return rows.find((row) => row.id === again.body.id)?.status === 'delivered' ? rows : undefined;
      });
      expectProblem(
        await admin.post(`/v1/webhooks/${webhook.id}/deliveries/whd_doesnotexist/redeliver`, {}),
        404,
        'not_found',
      );
      await unsubscribe(webhook.id);
    });

    test('several dispatchers share the outbox: every delivery sent once; a dead dispatcher’s lease is taken over', async () => {
      const { db } = suite.server.sightline.database;
      const { locks } = storagePorts(suite.server.sightline.database);
      const start = receiver.received.length;
      const { webhook } = await subscribe(['observation.created']);
      // A dispatcher that claimed a delivery and died: nothing is sent until its lease runs out.
      // Queued and claimed in one transaction: the server's own dispatcher, woken by the
      // commit, must not send it first.
      const tenantId = suite.acme.id;
      const orphaned = (
        await writeTransaction(db, async (trx) => {
          await emitEvents(trx, tenantId, [
            { type: 'observation.created', subject: `orphan-${target.kind}`, data: { observation: {} } },
          ]);
          return claimDue(trx, locks, { owner: 'dead', now: Date.now(), leaseUntil: Date.now() + 1_500, limit: 50 });
        })
      ).filter((item) => item.subscription.id === webhook.id);
      assert.equal(orphaned.length, 1, 'the dead dispatcher holds the delivery');
      const errors: unknown[] = [];
      const extra = await Promise.all(
        [1, 2].map(
          async () =>
            new WebhookDispatcher({
              db,
              locks,
              sealer: await webhookSealer(db),
              policy: { allowLoopback: true, allowedNetworks: [] },
              timeoutMs: 2_000,
              retryBaseMs: 100,
              retryWindowMs: RETRY_WINDOW_MS,
              caFile: certificate.cert,
              pollMs: 20,
              onError: (error) => errors.push(error),
            }),
        ),
      );
      for (const dispatcher of extra) dispatcher.start();
      try {
        for (let i = 0; i < 20; i++) await observe(`shared-${target.kind}-${i}`);
        const log = await until(
          'every delivery delivered',
          async () => {
            const rows = await deliveries(webhook.id);
            return rows.length === 21 && rows.every((row) => row.status === 'delivered') ? rows : undefined;
          },
          15_000,
        );
        await sleep(300);
        const sent = receiver.received.slice(start).map((item) => item.headers['webhook-id']);
        for (const row of log) {
          // One request per recorded attempt: no two dispatchers sent the same attempt (a slow
          // answer past the timeout is retried, and then logged as a second attempt).
          assert.equal(sent.filter((id) => id === row.event_id).length, row.attempts, `event ${row.event_id}`);
        }
        assert.ok(sent.includes(orphaned[0]!.event.id), 'the orphaned delivery was sent once its lease ran out');
      } finally {
        for (const dispatcher of extra) await dispatcher.stop();
      }
      assert.deepEqual(errors, []);
      await unsubscribe(webhook.id);
    });
  });
}
