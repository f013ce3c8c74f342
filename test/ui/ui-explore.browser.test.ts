// The overview, observations and devices pages in a real browser, over real traffic: one cycle of
// the demo's attack schedule posted to the collector becomes observations, cases and located
// devices; an analyst reads them through the UI (tiles, both charts, the level filter in the URL,
// an observation's evidence, a device in London with its processes and case) and an admin
// changes a device's criticality. Screenshots: overview, observations, devices, device-detail.
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { apiClient, bearer, issueToken, type ApiClient } from '../helpers/api.js';
import type { CaseSearch, Page as ListPage } from '../helpers/responses.js';
import type { DeviceView } from '../../src/devices/device-service.js';
import {
  artifactsDir,
  assertCleanPage,
  browserSkip,
  openUi,
  screenshot,
  sidewaysScroll,
  signInThroughUi,
  until,
} from '../helpers/browser.js';
import { waitFor } from '../helpers/summaries.js';
import { password, sendDemoTraffic, withUiServer, type Person } from '../helpers/ui-data.js';

const skip = browserSkip('overview, observations and devices');
const people: Person[] = [
  { email: 'ana@acme.test', role: 'analyst' },
  { email: 'adam@acme.test', role: 'admin' },
];

interface DeviceRow {
  id: string;
  host_name: string;
  criticality: string;
  open_case_ids: string[];
  addresses: { ip: string; city: string | null; country_code: string | null }[];
}

/** Waits until the traffic became observations, cases and a located device with an open case. */
async function trafficProcessed(reader: ApiClient): Promise<DeviceRow> {
  let seen = {};
  return waitFor(
    'the traffic to become observations, cases and a located web-01',
    async () => {
      // Partial: while the server is busy an answer may be a problem, without the lists.
      const observations = await reader.get<Partial<ListPage<'observations', unknown>>>('/v1/observations?limit=20');
      const cases = await reader.post<Partial<CaseSearch>>('/v1/cases', { limit: 1 });
      const devices = await reader.get<Partial<ListPage<'devices', DeviceRow>>>(
        '/v1/devices?name=web-01&has_open_case=true',
      );
      seen = { observations: observations.body.observations?.length, cases: cases.body.total, devices: devices.body };
      const device = devices.body.devices?.find((item) => item.addresses.some((address) => address.city));
      return (observations.body.observations?.length ?? 0) >= 10 && (cases.body.cases?.length ?? 0) > 0 && device;
    },
    30_000,
  ).catch((error: unknown) => assert.fail(`${String(error)}: ${JSON.stringify(seen)}`));
}

/** Text of the tile labelled `label` (its value). */
async function tileValue(page: Page, label: string): Promise<string> {
  const tile = page.locator('.tile', { has: page.locator('.tile-label', { hasText: label }) });
  await tile.locator('.tile-value').filter({ hasNotText: '…' }).waitFor();
  return (await tile.locator('.tile-value').innerText()).trim();
}

test('overview, observations and devices over real traffic in the browser', { skip, timeout: 180_000 }, (t) =>
  withUiServer({ people }, async ({ server, acme, browser }) => {
    const reader = apiClient(
      server,
      bearer((await issueToken(server, acme, ['observations:read', 'cases:read', 'devices:read'])).value),
    );

    // One minute of the demo's traffic: every attack of the schedule, a little benign noise.
    await sendDemoTraffic(server, 3);
    const web01 = await trafficProcessed(reader);

    await t.test('the overview shows the figures and both charts, which link to their lists', async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'ana@acme.test', password, '/');
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      for (const label of ['Open cases', 'Observations, 24 h', 'Devices seen, 24 h']) {
        const value = await tileValue(page, label);
        assert.ok(Number(value.replace(/\D/g, '')) > 0, `${label}: ${value}`);
      }
      const perDay = page.getByRole('figure', { name: /Observations per day by level/ });
      const byStatus = page.getByRole('figure', { name: /Cases by status/ });
      await perDay.locator('.recharts-bar-rectangle path').first().waitFor();
      await byStatus.locator('.recharts-bar-rectangle path').first().waitFor();
      assert.ok((await perDay.locator('.recharts-bar-rectangle').count()) > 0, 'observation bars are drawn');
      assert.match((await perDay.getAttribute('aria-label')) ?? '', /: [1-9][\d,]* in 14 days/);
      await page.getByRole('table', { name: 'Highest-scoring open cases' }).getByRole('link').first().waitFor();
      assert.ok((await page.getByRole('table', { name: 'Recent observations' }).locator('tbody tr').count()) === 10);
      await page.mouse.move(0, 0);
      await screenshot(page, 'overview');

      // Refresh now asks again for what the page shows, says so until the answers are in, then is ready again.
      const refresh = page.getByRole('button', { name: 'Refresh now' });
      const asked = page.waitForResponse((response) => response.url().includes('/v1/observations/stats'));
      await refresh.click();
      await asked;
      await refresh.waitFor();
      assert.ok(await refresh.isEnabled());

      // A bar opens that day's observations of its level; a tile, the list it counts.
      await perDay.locator('.recharts-bar-rectangle path').last().click();
      await page.waitForURL(
        (url) =>
          url.pathname === '/observations' && ['since', 'until', 'level'].every((name) => url.searchParams.has(name)),
      );
      await page.getByRole('table', { name: 'Observations' }).locator('tbody tr').first().waitFor();
      await page.goBack();
      await page.locator('.tile', { hasText: 'Observations, 24 h' }).click();
      await page.waitForURL(/\/observations\?range=24h$/);
      await page.getByRole('table', { name: 'Observations' }).waitFor();
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test('observations filter by level in the URL, and a row opens its evidence and case', async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'ana@acme.test', password, '/observations');
      const table = page.getByRole('table', { name: 'Observations' });
      await table.locator('tbody tr').first().waitFor();
      const levelsBefore = new Set(await table.locator('tbody tr td:nth-child(2)').allInnerTexts());
      assert.ok(levelsBefore.size > 1, `several levels before filtering: ${[...levelsBefore].join(', ')}`);

      await page.getByRole('button', { name: 'High', exact: true }).click();
      await page.waitForURL(/[?&]level=high(&|$)/);
      await until(async () => {
        const cells = await table.locator('tbody tr td:nth-child(2)').allInnerTexts();
        return cells.length > 0 && cells.every((cell) => cell.trim() === 'High');
      }, 'only high observations are listed');
      assert.equal(await page.getByRole('button', { name: 'High', exact: true }).getAttribute('aria-pressed'), 'true');

      // j selects the first row, Enter opens it: the flyout shows the evidence, marked, and the case.
      await page.locator('body').press('j');
      await page.locator('body').press('Enter');
      const drawer = page.getByRole('dialog', { name: 'Observation details' });
      await drawer
        .getByRole('region', { name: /Evidence record/ })
        .first()
        .waitFor();
      assert.match(page.url(), /[?&]id=obs_/);
      const raw = drawer.getByLabel('Raw record').first();
      await raw.waitFor();
      assert.ok((await raw.locator('mark').count()) > 0, 'the matched fields are marked in the raw record');
      assert.ok((await drawer.getByRole('table', { name: 'Fields the rule looked at' }).count()) > 0);
      const caseLink = drawer.getByRole('link', { name: /^#\d+/ });
      await caseLink.waitFor();
      await screenshot(page, 'observations');
      await raw.locator('mark').first().scrollIntoViewIfNeeded();
      await drawer.screenshot({ path: path.join(artifactsDir, 'screenshots', 'observation-evidence.png') });

      // j moves the flyout along; Escape closes it.
      const firstId = new URL(page.url()).searchParams.get('id');
      await page.locator('body').press('j');
      await page.waitForURL((url) => url.searchParams.get('id') !== firstId);
      await page.keyboard.press('Escape');
      await drawer.waitFor({ state: 'detached' });
      assert.equal(new URL(page.url()).searchParams.get('id'), null);

      // The case link leads to the case.
      await page.locator('tbody tr').first().getByRole('link', { name: /^#\d+/ }).click();
      await page.waitForURL(/\/cases\/case_/);
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test(
      'devices list a located public address; the detail has processes, the case and the attribution',
      async () => {
        const ui = await openUi(browser, server);
        const { page } = ui;
        await signInThroughUi(page, 'ana@acme.test', password, '/devices');
        const table = page.getByRole('table', { name: 'Devices' });
        const row = table.locator('tbody tr', { hasText: 'web-01' });
        await row.waitFor();
        assert.match(await row.innerText(), /81\.2\.69\.142\s+London, GB/);
        await screenshot(page, 'devices');

        await page.getByLabel('Host name').fill('web-01');
        await page.waitForURL(/[?&]name=web-01/);
        await until(async () => (await table.locator('tbody tr').count()) === 1, 'the name filter leaves web-01 alone');
        // Reached with the keyboard: j selects, Enter opens.
        await page.locator('body').click({ position: { x: 5, y: 300 } });
        await page.locator('body').press('j');
        await page.locator('body').press('Enter');
        await page.waitForURL(new RegExp(`/devices/${web01.id}$`));
        await page.getByRole('heading', { name: 'web-01' }).waitFor();
        const addresses = page.getByRole('table', { name: 'Addresses' });
        assert.match(await addresses.innerText(), /81\.2\.69\.142[\s\S]*United Kingdom \(GB\)[\s\S]*London/);
        await page.getByText('IP Geolocation by DB-IP').waitFor();
        const processes = page.getByRole('table', { name: 'Processes' });
        assert.ok((await processes.locator('tbody tr').count()) > 0, 'processes are listed');
        assert.match(await processes.innerText(), /\/usr\/bin\/nc\.traditional|\/bin\/sh/);
        const cases = page.getByRole('table', { name: 'Cases on this device' });
        assert.ok((await cases.getByRole('link', { name: /^#\d+$/ }).count()) >= 1, 'its case is linked');
        assert.equal(await page.getByLabel('Criticality').count(), 0, 'analysts cannot change the criticality');
        await screenshot(page, 'device-detail');
        assertCleanPage(ui);
        await ui.context.close();
      },
    );

    await t.test('an admin changes the criticality and the description', async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'adam@acme.test', password, `/devices/${web01.id}`);
      await page.getByLabel('Criticality').selectOption('critical');
      await page.getByText('Criticality set to Critical').waitFor();
      await page.getByRole('button', { name: 'Edit description' }).click();
      await page.getByLabel('Description').fill('Public web front end, PCI scope');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Public web front end, PCI scope').waitFor();
      const device = await reader.get<DeviceView>(`/v1/devices/${web01.id}`);
      assert.equal(device.body.criticality, 'critical');
      assert.equal(device.body.description, 'Public web front end, PCI scope');
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test('a narrow window stacks the pages without sideways scrolling', async () => {
      const ui = await openUi(browser, server, { width: 420, height: 800 });
      const { page } = ui;
      await signInThroughUi(page, 'ana@acme.test', password, '/');
      await page
        .getByRole('figure', { name: /Cases by status/ })
        .locator('.recharts-bar-rectangle path')
        .first()
        .waitFor();
      const overflow = await sidewaysScroll(page);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      await screenshot(page, 'overview-narrow');
      await page.goto('/observations?level=high');
      await page.getByRole('table', { name: 'Observations' }).locator('tbody tr').first().click();
      await page.getByRole('dialog', { name: 'Observation details' }).getByLabel('Raw record').first().waitFor();
      await screenshot(page, 'observations-narrow');
      for (const at of ['/devices', `/devices/${web01.id}`]) {
        await page.goto(at);
        await page.getByRole('table').first().locator('tbody tr').first().waitFor();
        const sideways = await sidewaysScroll(page);
        assert.ok(sideways <= 0, `${at} scrolls sideways by ${sideways}px (tables scroll inside their frame)`);
      }
      await screenshot(page, 'device-detail-narrow');
      assertCleanPage(ui);
      await ui.context.close();
    });
  }),
);
