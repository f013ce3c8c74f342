// The telemetry query language in a real browser: a valid query lists its matches and lives in
// the URL with the page's cursor; a query the server cannot read is underlined at the character
// it names; the results keep to the window's width at 1440 and 1024 px, with the record in a
// drawer whose actions are on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ingest } from '../helpers/api.js';
import { assertCleanPage, browserSkip, openUi, screenshot, signInThroughUi, until } from '../helpers/browser.js';
import { password, withUiServer } from '../helpers/ui-data.js';

const skip = browserSkip('telemetry query');

async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

test(
  'telemetry query language: a valid query, an invalid one underlined, a table that fits',
  { skip, timeout: 120_000 },
  (t) =>
    withUiServer({ people: [{ email: 'analyst@acme.test', role: 'analyst' }] }, async ({ server, browser }) => {
      const run = `r${Date.now()}`;
      const wide = 'x'.repeat(3000);
      await ingest(
        server,
        Array.from({ length: 130 }, (_, k) => ({
          run,
          message: `request ${k} done`,
          http: { status: k % 4 === 0 ? 503 : 200, path: `/api/item/${k}` },
          kubernetes: { namespace: k % 5 === 0 ? 'dev' : 'prod' },
          ...(k === 129 ? { blob: wide } : {}),
        })),
      );
      const ui = await openUi(browser, server, { width: 1440, height: 900 });
      const { page } = ui;
      await signInThroughUi(page, 'analyst@acme.test', password, '/telemetry');
      await page.getByRole('heading', { name: 'Telemetry' }).waitFor();
      const rows = page.locator('.telemetry-table tbody tr[data-record-id]');
      const query = page.getByLabel('Query');

      await t.test('a valid query lists its matches; query and page cursor are in the URL', async () => {
        await query.fill(`run:${run} AND http.status:>=500 AND NOT kubernetes.namespace:dev`);
        await query.press('Enter');
        // k % 4 == 0 and k % 5 != 0 for k in 0…129: 33 - 7 = 26.
        await until(async () => (await rows.count()) === 26, 'the 26 matching records are listed');
        for (const text of await rows.allInnerTexts()) assert.match(text, /request \d+ done/);
        const url = new URL(page.url());
        assert.equal(url.searchParams.get('q'), `run:${run} AND http.status:>=500 AND NOT kubernetes.namespace:dev`);
        await page.getByText(/26 matching records/).waitFor();

        await query.fill(`run:${run}`);
        await query.press('Enter');
        await until(async () => (await rows.count()) === 100, 'a first page of 100');
        await page.getByRole('button', { name: /Next/ }).click();
        await until(async () => (await rows.count()) === 30, 'the second page holds the other 30');
        assert.ok(new URL(page.url()).searchParams.get('c'), 'the page cursor is in the URL');
        await page.reload();
        await until(async () => (await rows.count()) === 30, 'a reload shows the same page');
      });

      await t.test('an invalid query is underlined where the server stopped reading', async () => {
        await query.fill('http.status:>= AND (');
        await query.press('Enter');
        const mark = page.locator('.query-problem-mark');
        await mark.waitFor();
        assert.equal(await mark.getAttribute('data-position'), '15');
        assert.equal(await mark.innerText(), 'A');
        const alert = page.locator('#telemetry-query-problem');
        assert.match(await alert.innerText(), /position 15.*expected a number or a value/);
        assert.equal(await query.getAttribute('aria-invalid'), 'true');
        // The underline sits under the character: its box starts where the text before it ends.
        const box = await mark.boundingBox();
        const input = await query.boundingBox();
        assert.ok(box && input && box.x > input.x + 50 && box.x < input.x + input.width, 'underline inside the box');
        await screenshot(page, 'telemetry-query-invalid');
        // Editing the query removes the underline (it no longer describes the text).
        await query.press('End');
        await query.pressSequentially('x');
        await mark.waitFor({ state: 'detached' });
      });

      for (const width of [1440, 1024]) {
        await t.test(`at ${width} px the table fits and the record drawer's actions are on screen`, async () => {
          await page.setViewportSize({ width, height: 900 });
          await query.fill(`run:${run} AND _exists_:blob`);
          await query.press('Enter');
          await until(async () => (await rows.count()) === 1, 'the wide record');
          await page.getByRole('button', { name: 'Column picker' }).count();
          assert.ok((await horizontalOverflow(page)) <= 0, 'no horizontal scroll');
          const tableBox = await page.locator('.telemetry-table').boundingBox();
          assert.ok(tableBox && tableBox.x + tableBox.width <= width, `table within ${width} px`);
          await rows.first().click();
          const drawer = page.getByRole('complementary', { name: 'Record details' });
          await drawer.waitFor();
          const filter = drawer.getByRole('button', { name: 'Filter on run = ' + JSON.stringify(run) });
          const filterBox = await filter.boundingBox();
          assert.ok(filterBox && filterBox.x + filterBox.width <= width && filterBox.x >= 0, 'Filter button on screen');
          await screenshot(page, `telemetry-drawer-${width}`);
          await page.getByRole('button', { name: 'Close record' }).click();
          await drawer.waitFor({ state: 'detached' });
        });
      }

      await t.test('a saved search comes back with its query', async () => {
        const saved = `kubernetes.namespace:dev AND run:${run}`;
        await query.fill(saved);
        await query.press('Enter');
        await until(async () => (await rows.count()) === 26, 'the dev records');
        await page.getByRole('button', { name: 'Save search…' }).click();
        await page.getByLabel('Saved search name').fill('Dev records');
        await page.getByRole('button', { name: 'Save', exact: true }).click();
        await page.getByRole('button', { name: 'Delete saved search' }).waitFor();
        await query.fill('something else');
        // Its answer arrives before another search is picked: on a loaded machine a late answer
        // to this one could otherwise land after the pick.
        const answered = page.waitForResponse(
          (response) =>
            new URL(response.url()).pathname === '/v1/telemetry/search' &&
            (response.request().postData() ?? '').includes('something else'),
        );
        await query.press('Enter');
        await answered;
        // That search is applied (in the address) before another is picked, as a person would see it run.
        await until(
          () => Promise.resolve(new URL(page.url()).searchParams.get('q') === 'something else'),
          'the other search',
        );
        await page.getByLabel('Saved searches').selectOption({ label: 'Dev records' });
        await until(async () => (await query.inputValue()) === saved, 'the saved query is back');
        assert.equal(new URL(page.url()).searchParams.get('q'), saved);
      });

      await t.test('field names are suggested from recent records', async () => {
        await query.fill('kuber');
        const option = page.getByRole('option', { name: 'kubernetes.namespace' });
        await option.waitFor();
        await option.click();
        assert.equal(await query.inputValue(), 'kubernetes.namespace:');
        assertCleanPage(ui);
        await ui.context.close();
      });
    }),
);
