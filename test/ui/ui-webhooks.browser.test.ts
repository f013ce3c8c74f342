// Settings › Webhooks and the Isolate action in a real browser: a tenant admin creates a webhook
// to a real HTTPS receiver (the secret shown once), an observation's event arrives and shows in
// the delivery log, and the admin isolates the device from its page with a reason, which the
// device's state and the receiver both show.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { assertCleanPage, browserSkip, openUi, signInThroughUi } from '../helpers/browser.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';
import { apiClient, bearer, issueToken } from '../helpers/api.js';
import { selfSignedCertificate, startReceiver } from '../helpers/webhook-receiver.js';
import { allPermissions } from '../../src/identity/permissions.js';

const skip = browserSkip('webhooks and response actions');
const people: Person[] = [{ email: 'admin@acme.test', role: 'admin' }];
const certificate = selfSignedCertificate();
after(() => fs.rmSync(certificate.dir, { recursive: true, force: true }));

test('webhooks and isolation in the browser', { skip, timeout: 120_000 }, async () => {
  const receiver = await startReceiver(() => 204, certificate);
  try {
    await withUiServer(
      { people, overrides: { webhookAllowLoopback: true, webhookCaFile: certificate.cert } },
      async ({ server, browser, acme }) => {
        const ui = await openUi(browser, server);
        const { page } = ui;
        await signInThroughUi(page, 'admin@acme.test', password, '/settings/webhooks');
        await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
        await page.getByText('No webhooks yet.').waitFor();
        await page.getByRole('button', { name: 'Create webhook' }).click();
        const dialog = page.getByRole('dialog', { name: 'Create webhook' });
        await dialog.getByLabel('URL').fill(receiver.url);
        await dialog.getByRole('checkbox', { name: 'observation.created' }).check();
        await dialog.getByRole('checkbox', { name: 'device.action_requested' }).check();
        await dialog.getByRole('button', { name: 'Create webhook' }).click();
        const created = page.getByRole('dialog', { name: 'Webhook created' });
        const secret = await created.getByLabel('Signing secret').inputValue();
        assert.match(secret, /^whsec_/);
        await created.getByRole('button', { name: 'I have copied it' }).click();
        await page.getByText(receiver.url).waitFor();
        assert.doesNotMatch(await page.content(), new RegExp(secret.slice(10, 30).replace(/[+/]/g, '.')));

        // An observation (through the API, as an integration) makes a device and an event.
        await server.sightline.database.db
          .updateTable('tenants')
          .set({ observation_write_approved_at: Date.now() })
          .execute();
        const admin = apiClient(server, bearer((await issueToken(server, acme, allPermissions)).value));
        const observed = await admin.post('/v1/observations', {
          external_id: 'ui-1',
          title: 'Beacon to known C2',
          level: 'high',
          techniques: ['T1071'],
          first_time: new Date().toISOString(),
          host: 'web-01',
        });
        assert.equal(observed.status, 201, JSON.stringify(observed.body));
        await receiver.waitFor(1);
        await page.getByRole('button', { name: 'Deliveries' }).click();
        const log = page.getByRole('table', { name: 'Deliveries' });
        await log.getByText('delivered', { exact: true }).first().waitFor();
        await log.getByText('observation.created').first().waitFor();

        const devices = await admin.get<{ devices: { id: string }[] }>('/v1/devices');
        await page.goto(`${server.baseUrl}/devices/${devices.body.devices[0]!.id}`);
        await page.getByText('Not isolated').waitFor();
        await page.getByRole('button', { name: 'Isolate', exact: true }).click();
        const isolate = page.getByRole('dialog', { name: 'Isolate web-01' });
        await isolate.getByLabel('Reason').fill('Beacon to <script>alert(1)</script> C2');
        await isolate.getByRole('button', { name: 'Request isolate' }).click();
        await page.getByText('Isolation requested').first().waitFor();
        await page.getByText('Beacon to <script>alert(1)</script> C2').waitFor();
        const typeOf = (body: string) => (JSON.parse(body) as { type: string }).type;
        const deadline = Date.now() + 10_000;
        while (!receiver.received.some((item) => typeOf(item.body) === 'device.action_requested')) {
          assert.ok(Date.now() < deadline, 'the device.action_requested event reached the receiver');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assertCleanPage(ui);
      },
    );
  } finally {
    await receiver.close();
  }
});
