// Two ways a page must not get lost, in a real browser. After an upgrade, a tab still running the
// old app asks for page chunks the server no longer has: the page says Sightline was updated and
// Reload brings the new version, instead of going blank. And a list's page lives in the address:
// reload and Back show the same page as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seedTenant } from '../helpers/api.js';
import { assertCleanPage, browserSkip, openUi, signInThroughUi } from '../helpers/browser.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';

const skip = browserSkip('page recovery');
const people: Person[] = [{ email: 'ops@platform.test', role: 'operator' }];

test('a missing page chunk and a list page in the address, in the browser', { skip, timeout: 240_000 }, (t) =>
  withUiServer({ people }, async ({ server, browser }) => {
    await t.test('a page chunk that fails to load shows "Sightline was updated" with Reload', async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'ops@platform.test', password);
      // As after an upgrade: the chunk this tab's app names is gone from the server.
      await page.route(/\/assets\/ReviewsPage-[^/]+\.js$/, (route) =>
        route.fulfill({ status: 404, body: 'not found' }),
      );
      await page.getByRole('link', { name: 'Observation-write reviews' }).click();
      const notice = page.getByRole('alert').filter({ hasText: 'Sightline was updated' });
      await notice.waitFor();
      assert.equal(await page.getByRole('navigation').first().isVisible(), true, 'the frame stays usable');

      // The server has the chunk again (the new version): Reload shows the page.
      await page.unroute(/\/assets\/ReviewsPage-[^/]+\.js$/);
      await notice.getByRole('button', { name: 'Reload' }).click();
      await page
        .getByRole('heading', { name: /review/i })
        .first()
        .waitFor();
      assert.equal(await page.getByText('Sightline was updated').count(), 0);
      // The failed load is what the browser logs for the 404; nothing else went wrong.
      assert.ok(
        ui.problems.every((problem) => /ReviewsPage|404|dynamically imported module/i.test(problem)),
        ui.problems.join('\n'),
      );
      assert.deepEqual(ui.external, []);
      await ui.context.close();
    });

    await t.test('the page of a list is in the address: reload and Back keep it', async () => {
      for (let i = 0; i < 55; i++) await seedTenant(server, `tenant-${String(i).padStart(2, '0')}`);
      const ui = await openUi(browser, server);
      const { page } = ui;
      await signInThroughUi(page, 'ops@platform.test', password, '/operator/tenants');
      const range = page.locator('.pager-range');
      await range.filter({ hasText: /^1–50/ }).waitFor();

      await page.getByRole('button', { name: 'Next' }).click();
      await range.filter({ hasText: /^51–/ }).waitFor();
      const url = new URL(page.url());
      assert.equal(url.searchParams.get('page'), '2');
      assert.ok(url.searchParams.get('page_cursors'), 'the cursor of page 2 is in the address');

      await page.reload();
      await range.filter({ hasText: /^51–/ }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Previous' }).isEnabled(), true);

      await page.goBack();
      await range.filter({ hasText: /^1–50/ }).waitFor();
      assert.equal(new URL(page.url()).searchParams.get('page'), null);
      assertCleanPage(ui);
      await ui.context.close();
    });
  }),
);
