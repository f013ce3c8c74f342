// The web UI's frame in a real browser: signing in (and failing to), deep links surviving the
// sign-in, the tenant in the top bar, operators switching tenant, the narrow-window menu, signing out,
// and choosing the tenant when one email has accounts in several.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Request } from 'playwright-core';
import { seedTenant } from '../helpers/api.js';
import { createUser } from '../../src/identity/users/user-service.js';
import { cliActor } from '../../src/identity/principal.js';
import { findTenantByCodeName } from '../../src/identity/tenants/tenant-store.js';
import { assertCleanPage, browserSkip, openUi, screenshot, signInThroughUi } from '../helpers/browser.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';

const skip = browserSkip('web UI shell');
const people: Person[] = [
  { email: 'alice@acme.test', role: 'analyst' },
  { email: 'ops@platform.test', role: 'operator' },
];

test('sign-in, the frame, tenant switching and sign-out in the browser', { skip, timeout: 180_000 }, (t) =>
  withUiServer({ people }, async ({ server, browser }) => {
    await seedTenant(server, 'globex');

    await t.test(
      'a deep link asks for sign-in (no browser prompt), refuses a wrong password, then opens the page',
      async () => {
        const ui = await openUi(browser, server);
        const { page } = ui;
        const response = await page.goto('/settings/collector');
        assert.equal(response?.status(), 200, 'the page itself loads; the browser shows no Basic prompt');
        await page.getByRole('form', { name: 'Sign in' }).waitFor();
        await screenshot(page, 'sign-in');

        await page.getByLabel('Email').fill('alice@acme.test');
        await page.getByLabel('Password').fill('not the password');
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('alert').filter({ hasText: 'email or password is wrong' }).waitFor();

        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('navigation').first().waitFor();
        assert.equal(new URL(page.url()).pathname, '/settings/collector', 'signing in lands on the page asked for');
        const tenant = page.locator('.topbar .tenant');
        assert.match(await tenant.innerText(), /acme display name/);
        assert.match(await tenant.innerText(), /acme/);
        // An analyst holds no tokens:read, yet manages their own tokens: the entry is offered.
        assert.equal(await page.getByRole('link', { name: 'API Configuration' }).count(), 1);
        assert.equal(
          await page.getByRole('link', { name: 'Tenants' }).count(),
          0,
          'no operator console for tenant members',
        );

        // Reloading keeps the session (cookie) and the page.
        await page.reload();
        await page.getByRole('navigation').first().waitFor();
        assert.equal(new URL(page.url()).pathname, '/settings/collector');

        // Keyboard: g c goes to cases; ? lists the shortcuts. The two keys must come within a
        // second of each other, which a busy test machine cannot always promise: tried thrice.
        for (let attempt = 1; ; attempt++) {
          await page.locator('body').press('g');
          await page.locator('body').press('c');
          const moved = await page.waitForURL(/\/cases$/, { timeout: 5_000 }).then(
            () => true,
            () => false,
          );
          if (moved) break;
          assert.ok(attempt < 3, 'g then c goes to the cases');
        }
        await page.locator('body').press('?');
        await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
        await page.keyboard.press('Escape');
        await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'detached' });

        await page.getByLabel('User menu').click();
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByRole('form', { name: 'Sign in' }).waitFor();
        const me = await page.evaluate(
          async () => (await fetch('/v1/me', { headers: { 'x-requested-with': 'test' } })).status,
        );
        assert.equal(me, 401, 'the session ended on the server, not just in the page');
        assertCleanPage(ui);
        await ui.context.close();
      },
    );

    await t.test('an operator switches tenant and every call names the tenant picked', async () => {
      const ui = await openUi(browser, server);
      const { page } = ui;
      const tenantHeaders: (string | null)[] = [];
      page.on('request', (request: Request) => {
        if (new URL(request.url()).pathname === '/v1/tenant')
          tenantHeaders.push(request.headers()['sightline-tenant'] ?? null);
      });
      await signInThroughUi(page, 'ops@platform.test', password, '/settings/collector');
      const picker = page.getByLabel('Tenant', { exact: true });
      const options = await picker.locator('option').allInnerTexts();
      assert.ok(
        options.some((o) => o.includes('(acme)')) && options.some((o) => o.includes('(globex)')),
        `every tenant offered: ${options.join(', ')}`,
      );
      await picker.selectOption('globex');
      await page.waitForURL((url) => url.pathname === '/');
      assert.equal(await picker.inputValue(), 'globex');
      await page.getByRole('link', { name: 'Tenants' }).waitFor();
      // The choice survives a reload.
      await page.reload();
      await page.getByRole('navigation').first().waitFor();
      assert.equal(await page.getByLabel('Tenant', { exact: true }).inputValue(), 'globex');
      await screenshot(page, 'operator-frame');
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test('a narrow window folds the navigation behind a menu button', async () => {
      const ui = await openUi(browser, server, { width: 420, height: 800 });
      const { page } = ui;
      await signInThroughUi(page, 'alice@acme.test', password, '/');
      const cases = page.getByRole('navigation').getByRole('link', { name: 'Cases', exact: true });
      assert.equal(await cases.isVisible(), false, 'the navigation is folded away');
      await page.getByRole('button', { name: 'Menu' }).click();
      await cases.waitFor({ state: 'visible' });
      await cases.click();
      await page.waitForURL(/\/cases$/);
      await screenshot(page, 'narrow-window');
      assertCleanPage(ui);
      await ui.context.close();
    });

    await t.test('an email with accounts in two tenants: the sign-in page asks which one', async () => {
      const globex = await findTenantByCodeName(server.sightline.database.db, 'globex');
      await createUser(server.sightline.database.db, {
        tenantId: globex!.id,
        email: 'alice@acme.test',
        role: 'viewer',
        password,
        actor: cliActor,
      });
      const ui = await openUi(browser, server);
      const { page } = ui;
      await page.goto('/');
      await page.getByLabel('Email').fill('alice@acme.test');
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const choice = page.getByLabel('Sign in to');
      await choice.waitFor();
      assert.deepEqual(await choice.locator('option').allInnerTexts(), [
        'acme display name (acme)',
        'globex display name (globex)',
      ]);
      await choice.selectOption({ label: 'globex display name (globex)' });
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('navigation').first().waitFor();
      assert.match(await page.locator('.topbar .tenant').innerText(), /globex display name/);
      assertCleanPage(ui);
      await ui.context.close();
    });
  }),
);
