// Rules that can never fire and records nobody parses, seen in a real browser: the Rules page
// marks a SigmaHQ rule whose logsource no input produces with a warning and its reason, and its
// filter lists those alone; Settings › Collector shows the records no parser recognised by
// shape, the sample as text (markup in a record is never rendered) and without credentials.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { detectionCaughtUp, ingest } from '../helpers/api.js';
import { assertCleanPage, browserSkip, openUi, screenshot, signInThroughUi, until } from '../helpers/browser.js';
import { password, withUiServer } from '../helpers/ui-data.js';

const skip = browserSkip('rules and unrecognised records');
import { SIGMAHQ_RULES } from '../helpers/sigmahq.js';
const SIGMA_RULES = SIGMAHQ_RULES;
const rulePaths = [
  'windows/process_creation/proc_creation_win_7zip_exfil_dmp_files.yml',
  'category/database/db_anomalous_query.yml',
  'cloud/azure/privileged_identity_management/azure_pim_account_stale.yml',
].map((file) => path.join(SIGMA_RULES, file));

/** A Cloudflare Logpush http_requests record whose URI carries markup, with a header custom field. */
const cloudflare = {
  ClientIP: '203.0.113.9',
  ClientRequestHost: 'shop.example.com',
  ClientRequestMethod: 'GET',
  ClientRequestURI: '/search?q=<img src=x id=injected>',
  EdgeResponseStatus: 200,
  EdgeStartTimestamp: '2026-11-24T10:00:00Z',
  RayID: '7c5f1e2d3a4b5c6d',
  RequestHeaders: { cookie: 'session=s3cr3t-cookie-value' },
};

test('unreachable rules and unrecognised records in the browser', { skip, timeout: 180_000 }, (t) =>
  withUiServer(
    {
      people: [{ email: 'admin@acme.test', role: 'admin' }],
      overrides: { detectionRulePaths: rulePaths.join(',') },
    },
    async ({ server, browser }) => {
      await ingest(server, [cloudflare]);
      await detectionCaughtUp(server, 60_000);
      const ui = await openUi(browser, server);
      const { page } = ui;

      await t.test('the Rules page warns about rules no input can make fire, and filters them', async () => {
        await signInThroughUi(page, 'admin@acme.test', password, '/rules');
        await page.getByRole('heading', { name: 'Rules' }).waitFor();
        const counts = page.getByLabel('Rule counts');
        await counts.waitFor();
        assert.match(await counts.innerText(), /, 2 unreachable, 0 rejected/);
        const row = page.getByRole('row').filter({ hasText: 'Suspicious SQL Query' });
        await row.getByText('Unreachable', { exact: true }).waitFor();
        assert.match(await row.innerText(), /No input Sightline parses produces this logsource \(category: database\)/);
        const reachable = page.getByRole('row').filter({ hasText: '7Zip Compressing Dump Files' });
        assert.equal(await reachable.getByText('Unreachable', { exact: true }).count(), 0);
        await page.getByText(/^2 rules can never fire: no input Sightline parses produces their logsource/).waitFor();

        await page.getByLabel('Show').selectOption('unreachable');
        await until(
          async () => (await page.getByRole('table', { name: 'Rules' }).getByRole('row').count()) === 3,
          'only the two unreachable rules (and the header) are listed',
        );
        const titles = await page.getByRole('table', { name: 'Rules' }).locator('tbody tr').allInnerTexts();
        assert.ok(
          titles.every((text) => text.includes('Unreachable')),
          titles.join('\n'),
        );
        await screenshot(page, 'rules-unreachable');
      });

      await t.test('Settings › Collector lists the unrecognised shape with its sample as text', async () => {
        await page.goto('/settings/collector');
        const table = page.getByRole('table', { name: 'Unrecognised records by shape' });
        await table.waitFor();
        const text = await table.innerText();
        assert.match(text, /ClientIP, ClientRequestHost, ClientRequestMethod/);
        assert.match(text, /<img src=x id=injected>/, 'the markup shows as text');
        assert.equal(await page.locator('#injected').count(), 0, 'and is never rendered as an element');
        assert.doesNotMatch(text, /s3cr3t-cookie-value/);
        assert.match(text, /"cookie":"\[redacted\]"/);
        await screenshot(page, 'collector-unrecognised');
        assertCleanPage(ui);
      });
    },
  ),
);
