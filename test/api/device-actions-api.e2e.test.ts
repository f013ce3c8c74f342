// Device response actions through HTTP on SQLite and PostgreSQL: isolation requested from a
// case moves the device's state, lands in the case history and the audit log, and reaches the
// tenant's webhook as a signed device.action_requested event at a real HTTPS receiver; the EDR
// integration confirms the outcome; one action at a time; devices:respond required; the summary
// input carries the isolation state and a summary made before it is marked stale.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { databaseTargets } from '../helpers/databases.js';
import { apiSuite } from '../helpers/suite.js';
import { apiClient, bearer, expectProblem, issueToken, type ApiClient } from '../helpers/api.js';
import { selfSignedCertificate, startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { allPermissions } from '../../src/identity/permissions.js';
import { verifySignature } from '../../src/webhooks/webhook-signature.js';
import { buildSummaryInput } from '../../src/summaries/summary-input-builder.js';
import type { AttackCatalogue } from '../../src/detection/attack.js';
import { findCase } from '../../src/cases/case-store.js';
import type { DeviceActionView } from '../../src/devices/device-action-service.js';
import type { DeviceView } from '../../src/devices/device-service.js';

const certificate = selfSignedCertificate();
after(() => fs.rmSync(certificate.dir, { recursive: true, force: true }));

for (const target of databaseTargets) {
  describe(`device response actions on ${target.kind}`, { skip: target.skip }, () => {
    const suite = apiSuite(target, {
      webhookAllowLoopback: true,
      webhookCaFile: certificate.cert,
      webhookRetryBase: '100ms',
    });
    let admin: ApiClient;
    let edr: ApiClient;
    let viewer: ApiClient;
    let receiver: WebhookReceiver;
    let secret: string;
    let caseId: string;
    let deviceId: string;
    before(async () => {
      admin = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, allPermissions)).value));
      edr = apiClient(
        suite.server,
        bearer(
          (await issueToken(suite.server, suite.acme, ['devices:read', 'devices:respond'], { name: 'EDR' })).value,
        ),
      );
      viewer = apiClient(suite.server, bearer((await issueToken(suite.server, suite.acme, ['devices:read'])).value));
      await suite.server.sightline.database.db
        .updateTable('tenants')
        .set({ observation_write_approved_at: Date.now() })
        .execute();
      receiver = await startReceiver(() => 204, certificate);
      const created = await admin.post<{ secret: string }>('/v1/webhooks', {
        url: receiver.url,
        events: ['device.action_requested'],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      secret = created.body.secret;
      const observed = await admin.post('/v1/observations', {
        external_id: 'beacon-1',
        title: 'Beacon to known C2',
        level: 'critical',
        techniques: ['T1071'],
        first_time: new Date().toISOString(),
        host: 'web-01',
      });
      assert.equal(observed.status, 201, JSON.stringify(observed.body));
      const found = await admin.post<{ cases: { id: string; devices: { id: string }[] }[] }>('/v1/cases', {
        text: 'web-01',
      });
      caseId = found.body.cases[0]!.id;
      deviceId = found.body.cases[0]!.devices[0]!.id;
    });
    after(() => receiver.close());

    const device = async () => (await admin.get<DeviceView>(`/v1/devices/${deviceId}`)).body;
    const request = (client: ApiClient, body: Record<string, unknown>) =>
      client.post<DeviceActionView>(`/v1/devices/${deviceId}/actions`, body);

    test('isolation requested from a case: device state, case history, audit log and a signed webhook event', async () => {
      expectProblem(await request(viewer, { action: 'isolate', reason: 'no' }), 403, 'permission_denied');
      expectProblem(await request(admin, { action: 'release', reason: 'nothing' }), 409, 'invalid_device_action');
      expectProblem(
        await request(admin, { action: 'isolate', reason: 'x', case_id: 'case_missing' }),
        404,
        'not_found',
      );
      assert.equal((await device()).isolation_state, null, 'a refused request changed nothing');

      const summary = await admin.post<{ stale: boolean }>(`/v1/cases/${caseId}/summary`, {});
      assert.ok([200, 201].includes(summary.status), `summary generated: ${summary.status}`);

      const requested = await request(admin, { action: 'isolate', reason: 'Beacon to <b>C2</b>', case_id: caseId });
      assert.equal(requested.status, 201, JSON.stringify(requested.body));
      assert.equal(requested.body.status, 'requested');
      assert.equal(requested.body.case_id, caseId);
      assert.equal((await device()).isolation_state, 'isolation_requested');
      expectProblem(await request(admin, { action: 'isolate', reason: 'again' }), 409, 'invalid_device_action');

      const history = await admin.get<{ history: { action: string; changes: Record<string, unknown> }[] }>(
        `/v1/cases/${caseId}/history`,
      );
      const entry = history.body.history.find((item) => item.action === 'response_action_requested');
      assert.ok(entry, JSON.stringify(history.body));
      assert.equal(entry.changes.action_id, requested.body.id);
      assert.equal(entry.changes.reason, 'Beacon to <b>C2</b>');
      const audit = await admin.get<{ events: { action: string; target: { id: string } | null }[] }>(
        '/v1/audit-events?action=device.action_requested',
      );
      assert.equal(audit.body.events[0]?.target?.id, deviceId);

      const [delivered] = await receiver.waitFor(1);
      const headers = {
        id: delivered!.headers['webhook-id']!,
        timestamp: delivered!.headers['webhook-timestamp']!,
        signature: delivered!.headers['webhook-signature']!,
      };
      assert.ok(verifySignature(secret, headers, delivered!.body));
      const event = JSON.parse(delivered!.body) as {
        type: string;
        subject: string;
        data: { action: { id: string; action: string; confirm_href: string }; device: { host_name: string } };
      };
      assert.equal(event.type, 'device.action_requested');
      assert.equal(event.subject, deviceId);
      assert.equal(event.data.action.id, requested.body.id);
      assert.equal(event.data.action.action, 'isolate');
      assert.equal(event.data.action.confirm_href, `/v1/devices/${deviceId}/actions/${requested.body.id}`);
      assert.equal(event.data.device.host_name, 'web-01');

      // The EDR integration confirms through the link the event gave it.
      const confirmed = await edr.post<DeviceActionView>(event.data.action.confirm_href, {
        outcome: 'succeeded',
        detail: 'contained by policy',
      });
      assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
      assert.equal(confirmed.body.status, 'succeeded');
      assert.equal(confirmed.body.completed_by, 'EDR');
      assert.equal((await device()).isolation_state, 'isolated');
      expectProblem(
        await edr.post(event.data.action.confirm_href, { outcome: 'failed' }),
        409,
        'device_action_decided',
      );
      const after = await admin.get<{ history: { action: string }[] }>(`/v1/cases/${caseId}/history`);
      assert.ok(after.body.history.some((item) => item.action === 'response_action_completed'));

      const shown = await admin.get<{ stale: boolean; stale_reasons: string[] }>(`/v1/cases/${caseId}/summary`);
      assert.equal(shown.body.stale, true);
      assert.deepEqual(shown.body.stale_reasons, ['device_changed']);
      const row = await findCase(suite.server.sightline.database.db, suite.acme.id, caseId);
      const catalogue = { technique: () => undefined, tactic: () => undefined } as unknown as AttackCatalogue;
      const input = await buildSummaryInput(
        suite.server.sightline.database.db,
        catalogue,
        { id: suite.acme.id, code_name: 'acme' },
        row!,
      );
      assert.equal(input.devices[0]?.isolation, 'isolated');
    });

    test('release from the device page, confirmed as failed; the action list keeps both', async () => {
      const release = await request(edr, { action: 'release', reason: 'cleaned up' });
      assert.equal(release.status, 201, JSON.stringify(release.body));
      assert.equal(release.body.case_id, null);
      assert.equal((await device()).isolation_state, 'release_requested');
      const failed = await edr.post<DeviceActionView>(`/v1/devices/${deviceId}/actions/${release.body.id}`, {
        outcome: 'failed',
        detail: 'agent offline',
      });
      assert.equal(failed.body.status, 'failed');
      assert.equal((await device()).isolation_state, 'release_failed');
      const listed = await viewer.get<{ actions: DeviceActionView[] }>(`/v1/devices/${deviceId}/actions`);
      assert.deepEqual(
        listed.body.actions.map((action) => [action.action, action.status]),
        [
          ['release', 'failed'],
          ['isolate', 'succeeded'],
        ],
      );
      expectProblem(
        await edr.post(`/v1/devices/${deviceId}/actions/dact_unknown`, { outcome: 'failed' }),
        404,
        'not_found',
      );
    });
  });
}
