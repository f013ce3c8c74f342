// Webhooks in OCSF on SQLite and PostgreSQL, delivered to a real HTTPS receiver: a subscription
// with "format": "ocsf" receives an observation as an OCSF 1.3 Detection Finding (class 2004)
// and its case as an Incident Finding (class 2005), each with every attribute the OCSF schema
// requires of that class, signed like any delivery; switched back, it receives CloudEvents.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, issueToken, type ApiClient } from '../helpers/api.js';
import {
  selfSignedCertificate,
  startReceiver,
  type Received,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { verifySignature } from '../../src/webhooks/webhook-signature.js';
import type { WebhookView } from '../../src/webhooks/webhook-service.js';

const certificate = selfSignedCertificate();
after(() => fs.rmSync(certificate.dir, { recursive: true, force: true }));

// Required by OCSF 1.3.0 of every event (base_event) and of the Findings classes, with the
// required attributes of the objects they hold (metadata, product, finding_info).
const BASE_REQUIRED = ['activity_id', 'category_uid', 'class_uid', 'metadata', 'severity_id', 'time', 'type_uid'];
const CLASS_REQUIRED: Record<number, string[]> = {
  2004: ['finding_info'],
  2005: ['finding_info_list', 'status_id'],
};
const SEVERITY_IDS = [0, 1, 2, 3, 4, 5, 6, 99];

type Finding = Record<string, unknown> & { class_uid: number; activity_id: number; type_uid: number };

/** Asserts what the OCSF schema requires of the finding's class; returns it typed. */
function assertOcsf(finding: Finding, classUid: number): Finding {
  for (const name of [...BASE_REQUIRED, ...(CLASS_REQUIRED[classUid] ?? [])])
    assert.ok(finding[name] !== undefined && finding[name] !== null, `${name} is present`);
  assert.equal(finding.class_uid, classUid);
  assert.equal(finding.category_uid, 2, 'the Findings category');
  assert.equal(finding.type_uid, classUid * 100 + finding.activity_id, 'type_uid = class_uid * 100 + activity_id');
  assert.ok(SEVERITY_IDS.includes(finding.severity_id as number), 'a severity_id of the enum');
  assert.equal(typeof finding.time, 'number', 'time is a timestamp in milliseconds');
  const metadata = finding.metadata as { version: string; product: { vendor_name: string; name: string } };
  assert.match(metadata.version, /^1\.3\.\d+$/);
  assert.equal(metadata.product.vendor_name, 'Sightline');
  assert.equal(metadata.product.name, 'Sightline');
  return finding;
}

for (const target of databaseTargets) {
  describe(`webhooks in OCSF on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, { webhookAllowLoopback: true, webhookCaFile: certificate.cert });
    let admin: ApiClient;
    let receiver: WebhookReceiver;
    before(async () => {
      admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
      // Setup, not the subject: the tenant may write observations (the API's operator approval).
      await suite.server.sightline.database.db
        .updateTable('tenants')
        .set({ observation_write_approved_at: Date.now() })
        .execute();
      receiver = await startReceiver(() => 204, certificate);
    });
    after(() => receiver.close());

    const waitFor = async (what: string, found: (item: Received) => boolean): Promise<Received> => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const item = receiver.received.find(found);
        if (item) return item;
        assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
        await sleep(50);
      }
    };

    test('the API answers an observation as a Detection Finding when asked for OCSF', async () => {
      const observed = await admin.post<{ id: string }>('/v1/observations', {
        external_id: `ocsf-api-${target.kind}`,
        title: 'Kerberoasting from a workstation',
        level: 'medium',
        techniques: ['T1558.003'],
        first_time: new Date().toISOString(),
        host: 'ws-ocsf-09',
      });
      assert.equal(observed.status, 201, JSON.stringify(observed.body));
      const path = `/v1/observations/${observed.body.id}`;
      for (const [query, headers] of [
        ['?format=ocsf', {}],
        ['', { accept: 'application/vnd.ocsf+json' }],
      ] as const) {
        const answer = await admin.get<Finding>(`${path}${query}`, headers);
        assert.equal(answer.status, 200);
        assert.match(answer.headers.get('content-type') ?? '', /^application\/vnd\.ocsf\+json/);
        const finding = assertOcsf(answer.body, 2004);
        assert.equal((finding.finding_info as { uid: string }).uid, observed.body.id);
        assert.equal(finding.severity_id, 3, 'medium');
      }
      const plain = await admin.get<{ id: string; evidence: unknown[] }>(path);
      assert.match(plain.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(plain.body.id, observed.body.id);
    });

    test('an observation arrives as a Detection Finding, its case as an Incident Finding', async () => {
      const created = await admin.post<{ webhook: WebhookView; secret: string }>('/v1/webhooks', {
        url: receiver.url,
        events: ['observation.created', 'case.created'],
        format: 'ocsf',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.webhook.format, 'ocsf');
      const { secret, webhook } = created.body;

      const observed = await admin.post<{ id: string }>('/v1/observations', {
        external_id: `ocsf-${target.kind}`,
        title: 'Encoded PowerShell download cradle',
        level: 'high',
        techniques: ['T1059.001'],
        first_time: new Date().toISOString(),
        host: 'ws-ocsf-07',
      });
      assert.equal(observed.status, 201, JSON.stringify(observed.body));

      const detection = await waitFor('the Detection Finding', (item) => item.body.includes('"class_uid":2004'));
      assert.match(detection.headers['content-type'] ?? '', /^application\/json/);
      assert.ok(
        verifySignature(
          secret,
          {
            id: detection.headers['webhook-id']!,
            timestamp: detection.headers['webhook-timestamp']!,
            signature: detection.headers['webhook-signature']!,
          },
          detection.body,
          Date.now(),
        ),
        'signed like every delivery',
      );
      const finding = assertOcsf(JSON.parse(detection.body) as Finding, 2004);
      const info = finding.finding_info as Record<string, unknown>;
      assert.equal(info.uid, observed.body.id);
      assert.equal(info.title, 'Encoded PowerShell download cradle');
      assert.deepEqual(info.attacks, [{ technique: { uid: 'T1059.001' }, version: 'enterprise' }]);
      assert.equal(finding.severity_id, 4, 'high');
      assert.deepEqual(finding.device, { hostname: 'ws-ocsf-07', type_id: 0, type: 'Unknown' });
      assert.equal((finding.metadata as { tenant_uid: string }).tenant_uid, 'acme');

      const incident = assertOcsf(
        JSON.parse(
          (await waitFor('the Incident Finding', (item) => item.body.includes('"class_uid":2005'))).body,
        ) as Finding,
        2005,
      );
      assert.equal(incident.activity_id, 1, 'Create');
      assert.equal(incident.status_id, 1, 'New');
      const [group] = incident.finding_info_list as { uid: string; title: string }[];
      assert.match(group!.uid, /^case_/);

      // The API answers the case as an Incident Finding grouping its observations' findings.
      const asked = await admin.get<Finding>(`/v1/cases/${group!.uid}?format=ocsf`);
      assert.equal(asked.status, 200);
      assert.match(asked.headers.get('content-type') ?? '', /^application\/vnd\.ocsf\+json/);
      const grouped = assertOcsf(asked.body, 2005);
      assert.deepEqual(
        (grouped.finding_info_list as { uid: string; title: string }[]).map((item) => [item.uid, item.title]),
        [[observed.body.id, 'Encoded PowerShell download cradle']],
      );

      // Switched back, the same subscription receives CloudEvents.
      const patched = await admin.patch<WebhookView>(`/v1/webhooks/${webhook.id}`, { format: 'sightline' });
      assert.equal(patched.body.format, 'sightline');
      const before = receiver.received.length;
      await admin.post('/v1/observations', {
        external_id: `ocsf-${target.kind}-after`,
        title: 'Second detection',
        level: 'low',
        techniques: ['T1059'],
        first_time: new Date().toISOString(),
        host: 'ws-ocsf-08',
      });
      const cloud = await waitFor(
        'a CloudEvent',
        (item) => receiver.received.indexOf(item) >= before && item.body.includes('"specversion"'),
      );
      assert.match(cloud.headers['content-type'] ?? '', /^application\/cloudevents\+json/);
    });
  });
}
