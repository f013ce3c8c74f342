// Settings and the operator console in a real browser: a tenant admin creates a token, sees its
// value once, uses it, deletes it (still listed, now refused) and authorises in the API
// reference with another; the collector page charts records posted to /log_sink and offers the
// documented forwarder settings; an operator creates a tenant, turns its AI summaries off, and
// approves an observation-write request the tenant admin filed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ingest } from '../helpers/api.js';
import { appRecord } from '../helpers/factories.js';
import { fluentBitConfig } from '../../src/collector/forwarders/forwarder-configs.js';
import { assertCleanPage, browserSkip, openUi, screenshot, signInThroughUi, until } from '../helpers/browser.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';

const skip = browserSkip('settings and operator console');
const baseDomain = 'sightline.test';
const people: Person[] = [
  { email: 'admin@acme.test', role: 'admin' },
  { email: 'ops@platform.test', role: 'operator' },
];

/** A full-page screenshot from the top (the shared helper finishes transitions first). */
async function capture(page: Page, name: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot(page, name);
}

/** Creates a token through the dialog and returns its value, read from the one place it shows. */
async function createTokenInUi(
  page: Page,
  name: string,
  choose: (dialog: ReturnType<Page['getByRole']>) => Promise<void>,
): Promise<string> {
  await page.getByRole('button', { name: 'Create token' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create token' });
  await dialog.getByLabel('Name').fill(name);
  await choose(dialog);
  await dialog.getByRole('button', { name: 'Create token' }).click();
  const created = page.getByRole('dialog', { name: 'Token created' });
  await created.waitFor();
  return created.getByLabel('Token value').inputValue();
}

test('settings pages and the operator console in the browser', { skip, timeout: 180_000 }, (t) =>
  withUiServer(
    { people, overrides: { baseDomain, publicUrl: `https://${baseDomain}` } },
    async ({ server, browser }) => {
      const ui = await openUi(browser, server);
      const { page, context } = ui;
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
      let liveToken = '';

      await t.test('a token is shown once, works, and once deleted is listed as deleted and refused', async () => {
        await signInThroughUi(page, 'admin@acme.test', password, '/settings/integrations/api');
        await page.getByRole('heading', { name: 'API Configuration' }).waitFor();
        assert.match(
          await page.getByRole('navigation', { name: 'Breadcrumb' }).innerText(),
          /Settings\s*›\s*Integrations/,
        );

        const name = 'SOAR integration';
        const value = await createTokenInUi(page, name, async (dialog) => {
          await dialog.getByRole('checkbox', { name: /^cases:read/ }).check();
          await dialog.getByRole('checkbox', { name: /^telemetry:read/ }).check();
          await dialog.getByLabel('Expiry').selectOption('30');
        });
        assert.match(value, /^slt_[A-Za-z0-9]{30,}$/);
        const created = page.getByRole('dialog', { name: 'Token created' });
        assert.match(await created.innerText(), /cannot be shown again/);
        await created.getByRole('button', { name: 'Copy', exact: true }).click();
        await created.getByRole('button', { name: 'Copied', exact: true }).waitFor();
        assert.equal(
          await page.evaluate('navigator.clipboard.readText()'),
          value,
          'Copy puts the value on the clipboard',
        );
        // Escape asks first; "I have copied it" closes.
        await page.keyboard.press('Escape');
        await created.getByText('Have you copied it?').waitFor();
        await created.getByRole('button', { name: 'I have copied it' }).first().click();
        await created.waitFor({ state: 'detached' });
        assert.ok(!(await page.content()).includes(value), 'the value is nowhere in the page any more');

        const call = (token: string) =>
          fetch(`${server.baseUrl}/v1/cases`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: '{}',
          });
        const used = await call(value);
        assert.equal(used.status, 200, await used.text());

        await page.reload();
        const row = page.getByRole('row', { name: new RegExp(name) });
        await row.waitFor();
        assert.match(await row.innerText(), /active/);
        assert.match(await row.innerText(), /cases r/);
        assert.match(await row.innerText(), /127\.0\.0\.1/, 'last used shows the address of that call');
        assert.doesNotMatch(await row.innerText(), /Never\s*$/, 'and a last-used time');

        await row.getByRole('button', { name: `Delete ${name}` }).click();
        const confirm = page.getByRole('dialog', { name: 'Delete token' });
        assert.match(await confirm.innerText(), new RegExp(name));
        await confirm.getByRole('button', { name: 'Delete token' }).click();
        await confirm.waitFor({ state: 'detached' });
        await row.getByText('deleted', { exact: true }).waitFor();
        const refused = await call(value);
        assert.equal(refused.status, 401);
        assert.equal(((await refused.json()) as { code: string }).code, 'token_revoked');

        // The status filter lives in the URL and keeps deleted tokens listed under "Deleted".
        await page.getByLabel('Status').selectOption('deleted');
        await page.waitForURL(/status=deleted/);
        await page.getByRole('row', { name: new RegExp(name) }).waitFor();
        const statusCells = await page
          .getByRole('table', { name: 'API tokens' })
          .locator('tbody tr td:nth-child(3)')
          .allInnerTexts();
        assert.ok(
          statusCells.length > 0 && statusCells.every((cell) => cell.includes('deleted')),
          `only deleted tokens: ${statusCells.join(' | ')}`,
        );
        await page.getByLabel('Status').selectOption('');
        // The search asks the server for names holding the text.
        const searched = page.waitForRequest(
          (request) =>
            request.url().includes('/v1/tokens?') && new URL(request.url()).searchParams.get('q') === name.slice(0, 6),
        );
        await page.getByLabel('Search').fill(name.slice(0, 6));
        await searched;
        await page.getByRole('row', { name: new RegExp(name) }).waitFor();
        await page.getByLabel('Search').fill('');

        // A second token, every permission, the longest lifetime allowed (a year: "No expiry" is
        // not offered while the deployment has a maximum), for the reference site.
        liveToken = await createTokenInUi(page, 'API reference', async (dialog) => {
          await dialog.getByRole('checkbox', { name: 'Select all' }).check();
          const expiry = dialog.getByLabel('Expiry');
          assert.deepEqual(await expiry.locator('option').allInnerTexts(), [
            '30 days',
            '60 days',
            '90 days',
            '1 year',
            'Custom date…',
          ]);
          await expiry.selectOption('365');
        });
        await capture(page, 'token-created');
        await page
          .getByRole('dialog', { name: 'Token created' })
          .getByRole('button', { name: 'I have copied it' })
          .click();
        await page.getByRole('row', { name: /API reference/ }).waitFor();
        await capture(page, 'api-configuration');
        await page.setViewportSize({ width: 420, height: 800 });
        await capture(page, 'api-configuration-narrow');
        await page.setViewportSize({ width: 1280, height: 800 });
      });

      await t.test("the page's link opens the API reference, where the token authorises", async () => {
        const link = page.getByRole('link', { name: /Open the API reference/ });
        assert.equal(await link.getAttribute('href'), '/docs/');
        assert.equal(await link.getAttribute('target'), '_blank');
        const docs = await browser.newContext({
          httpCredentials: { username: 'anyone', password: liveToken },
          baseURL: server.baseUrl,
        });
        try {
          const reference = await docs.newPage();
          const opened = await reference.goto((await link.getAttribute('href'))!);
          assert.equal(opened?.status(), 200, 'Basic with any username and the token as password lets the browser in');
          await reference.locator('.information-container .title', { hasText: 'Sightline API' }).waitFor();
          await reference.locator('.scheme-container button.authorize').click();
          const modal = reference.locator('.modal-ux');
          const pat = modal.locator('.auth-container', {
            has: reference.locator('h4', { hasText: 'Personal Access Token' }),
          });
          await pat.waitFor();
          await pat.locator('input').fill(liveToken);
          await pat.getByRole('button', { name: 'Apply credentials' }).click();
          await pat.getByRole('button', { name: 'Remove authorization' }).waitFor();
        } finally {
          await docs.close();
        }
      });

      await t.test('the collector page charts what arrived and offers the forwarder configurations', async () => {
        for (const count of [3, 2]) {
          await ingest(
            server,
            Array.from({ length: count }, () => appRecord()),
            'acme',
            baseDomain,
          );
        }
        await page.getByRole('link', { name: 'Collector' }).click();
        await page.getByRole('heading', { name: 'Collector', exact: true }).waitFor();
        assert.equal(await page.getByLabel('Collector URL').innerText(), `https://acme-collector.${baseDomain}`);
        // Both posts land in the current hour unless an hour began between them and the page.
        await page.getByTestId('total-records').filter({ hasText: /^5$/ }).waitFor();
        const bars = page.locator('.chart .recharts-bar-rectangle path');
        await bars.first().waitFor();
        const heights = await bars.evaluateAll((paths) =>
          paths.map((p) => (p as unknown as { getBBox(): { height: number } }).getBBox().height),
        );
        assert.ok(
          heights.some((h) => h > 0),
          `a visible bar for the current hour: ${heights.join(', ')}`,
        );

        // What the collector heard, and a test record through it.
        const senders = page.getByRole('table', { name: 'Senders in the last 24 hours' });
        await senders.waitFor();
        await page.getByRole('button', { name: 'Send a test record' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: /Stored as record rec_[\w-]{22} in [\d.]+ ms/ })
          .waitFor();
        await senders.getByText('Sightline collector test').waitFor();

        const fluentBit = page.getByLabel(/Fluent Bit configuration .*fluent-bit\.conf/);
        const text = (await fluentBit.innerText()).replace(/[ \t]+/g, ' ');
        for (const setting of [
          `Host acme-collector.${baseDomain}`,
          'Port 443',
          'URI /log_sink',
          'Format json_lines',
          'json_date_key false',
          'tls On',
          'tls.verify On',
          'tls.verify_hostname On',
          'Header Content-Type application/json',
          'Retry_Limit no_limits',
          'net.keepalive On',
          'Flush 5',
          'Mem_Buf_Limit 5MB',
        ]) {
          assert.ok(text.includes(setting), `Fluent Bit config has "${setting}"`);
        }
        await page.getByRole('button', { name: 'Copy fluent-bit.conf' }).click();
        await page.getByRole('button', { name: 'Copied', exact: true }).waitFor();
        const expected = fluentBitConfig(`https://acme-collector.${baseDomain}`).files[0]!.text;
        assert.equal(
          await page.evaluate('navigator.clipboard.readText()'),
          expected,
          'the copy is exactly the generated configuration',
        );

        await page.getByRole('tab', { name: 'Vector', exact: true }).click();
        await page.waitForURL(/forwarder=vector/);
        // The URL changes before the panel renders: wait for the panel itself.
        await page
          .getByRole('tabpanel')
          .filter({ hasText: new RegExp(`uri: https://acme-collector\\.${baseDomain.replace('.', '\\.')}/log_sink`) })
          .waitFor({ timeout: 5_000 });
        await page.getByRole('tab', { name: 'Fluent Bit', exact: true }).click();
        await capture(page, 'collector');
      });

      await t.test('tenant members see the AI summaries status and whom to ask', async () => {
        await page.getByRole('link', { name: 'AI summaries' }).click();
        await page
          .getByTestId('ai-status')
          .filter({ hasText: 'AI case summaries are on for acme display name' })
          .waitFor();
        await page.getByText('ask your account manager or support').waitFor();
        // The deployment runs the built-in summariser: the page says so, and speaks of no language model.
        await page.getByText('written by the built-in summariser on this server').waitFor();
        assert.equal(await page.getByText('written by a language model').count(), 0);
        assert.equal(await page.getByText('The model is given the case').count(), 0);
        assert.equal(await page.getByRole('switch').count(), 0, 'no switch for tenant members');

        // The admin files the observation-write review the operator decides below.
        await page.getByRole('link', { name: 'API Configuration' }).click();
        const form = page.getByRole('form', { name: 'Request observation-write approval' });
        await form
          .getByLabel('Impact on managed services')
          .fill('Our EDR forwards its alerts; the managed services are unchanged.');
        await form
          .getByLabel('How the data correlates with other observations')
          .fill('EDR alerts name the host, so they join the cases of the same devices.');
        await form.getByLabel('Expected volume (observations per hour)').fill('40');
        await form.getByRole('button', { name: 'Request approval' }).click();
        await page.getByText('waiting for the platform').waitFor();
        assertCleanPage(ui);
        await context.close();
      });

      await t.test('an operator creates a tenant, turns its AI summaries off and approves a review', async () => {
        const ops = await openUi(browser, server);
        const op = ops.page;
        await signInThroughUi(op, 'ops@platform.test', password, '/operator/tenants');
        await op.getByRole('heading', { name: 'Tenants' }).waitFor();
        await op.getByRole('button', { name: 'Create tenant' }).click();
        const create = op.getByRole('dialog', { name: 'Create tenant' });
        const codeName = create.getByRole('textbox', { name: /^Code name/ });
        await codeName.fill('Initech');
        assert.equal(await codeName.inputValue(), 'initech', 'code names are lowercase');
        await create.getByRole('textbox', { name: /^Display name/ }).fill('Initech');
        await create.getByRole('button', { name: 'Create tenant' }).click();
        await op.getByText(`https://initech-collector.${baseDomain}`).first().waitFor();

        const aiSwitch = op.getByRole('switch', { name: 'AI summaries for initech' });
        assert.equal(await aiSwitch.isChecked(), true);
        await aiSwitch.click({ force: true });
        const confirm = op.getByRole('dialog', { name: 'Turn off AI summaries' });
        await confirm.getByRole('button', { name: 'Confirm' }).click();
        await confirm.waitFor({ state: 'detached' });
        await until(async () => !(await aiSwitch.isChecked()), 'the switch shows AI summaries off');
        await capture(op, 'operator-tenants');

        await op.getByRole('button', { name: 'Work in initech' }).click();
        await op.waitForURL((url) => url.pathname === '/');
        await op.getByRole('link', { name: 'AI summaries' }).click();
        await op.getByTestId('ai-status').filter({ hasText: 'AI case summaries are off for Initech' }).waitFor();
        assert.equal(
          await op.getByRole('switch', { name: 'AI summaries for Initech' }).isChecked(),
          false,
          'operators get the switch',
        );
        await capture(op, 'ai-summaries');

        await op.getByRole('link', { name: 'Observation-write reviews' }).click();
        const request = op.getByRole('listitem', { name: 'Request of acme' });
        await request.waitFor();
        assert.match(await request.innerText(), /EDR forwards its alerts/);
        assert.match(await request.innerText(), /40 observations per hour/);
        await capture(op, 'operator-reviews');
        await request.getByRole('button', { name: 'Approve…' }).click();
        const decide = op.getByRole('dialog', { name: 'Approve observation writing' });
        await decide.getByLabel('Note (optional)').fill('Reviewed with the customer');
        await decide.getByRole('button', { name: 'Approve' }).click();
        await decide.waitFor({ state: 'detached' });
        await op.getByText('No request is waiting for a decision.').waitFor();
        await op.getByLabel('Status').selectOption('approved');
        await op.getByRole('listitem', { name: 'Request of acme' }).getByText('Reviewed with the customer').waitFor();

        const tenant = await fetch(`${server.baseUrl}/v1/tenant`, {
          headers: { authorization: `Bearer ${liveToken}` },
        });
        assert.equal(
          ((await tenant.json()) as { observation_write_approved: boolean }).observation_write_approved,
          true,
          'the tenant is approved',
        );
        assertCleanPage(ops);
        await ops.context.close();
      });
    },
  ),
);
