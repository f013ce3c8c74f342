// The second factor in a real browser: a person sets up an authenticator app under Settings ›
// Security (QR code and key, a first code and their password, recovery codes shown once with copy
// and download),
// then signs in with a code from the app and with a recovery code, and turns it off with the
// password. Codes come from the tests' own RFC 6238 implementation.
import fs from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { assertCleanPage, browserSkip, openUi, screenshot, signInThroughUi } from '../helpers/browser.js';
import { password, withUiServer, type Person } from '../helpers/ui-data.js';
import type { TestServer } from '../helpers/server.js';
import { Authenticator } from '../helpers/totp.js';

const skip = browserSkip('second factor');
const email = 'ana@acme.test';
const people: Person[] = [{ email, role: 'analyst' }];

/** Starts a sign-in in a fresh browser context: email and password, up to the second step. */
async function signInToSecondStep(browser: Browser, server: TestServer) {
  const ui = await openUi(browser, server);
  await ui.page.goto('/');
  await ui.page.getByLabel('Email').fill(email);
  await ui.page.getByLabel('Password').fill(password);
  await ui.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await ui.page.getByLabel('Authentication code').waitFor();
  return ui;
}

test('setting up an authenticator app and signing in with its codes, in the browser', { skip, timeout: 180_000 }, (t) =>
  withUiServer({ people }, async ({ server, browser }) => {
    const ui = await openUi(browser, server);
    const { page, context } = ui;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    let phone: Authenticator | undefined;
    let recoveryCodes: string[] = [];

    await t.test('Settings › Security sets it up: QR code and key, a first code, recovery codes once', async () => {
      await signInThroughUi(page, email, password, '/settings/security');
      await page.getByRole('heading', { name: 'Security' }).waitFor();
      await page.getByRole('link', { name: 'Security' }).waitFor();
      await page.getByRole('button', { name: 'Set up authenticator app' }).click();
      const qr = page.getByRole('img', { name: 'QR code for the authenticator app' });
      await qr.waitFor();
      assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/png;base64,/);
      const key = (await page.getByLabel('Secret key').innerText()).replace(/\s/g, '');
      assert.match(key, /^[A-Z2-7]{32}$/);
      await screenshot(page, 'second-factor-setup');

      phone = new Authenticator(key);
      // Turning it on asks for the password as well as a code.
      const setup = page.getByRole('form', { name: 'Set up authenticator app' });
      await setup.getByLabel('Code from the app').fill(await phone.freshCode());
      await setup.getByLabel('Password').fill('not the password at all');
      await setup.getByRole('button', { name: 'Turn on' }).click();
      await setup.getByText('the password is wrong').waitFor();
      await setup.getByLabel('Code from the app').fill(phone.wrongCode());
      await setup.getByLabel('Password').fill(password);
      await setup.getByRole('button', { name: 'Turn on' }).click();
      await setup.getByText('the code is wrong').waitFor();
      await setup.getByLabel('Code from the app').fill(await phone.freshCode());
      await setup.getByRole('button', { name: 'Turn on' }).click();

      const list = page.getByRole('list', { name: 'Recovery codes' });
      await list.waitFor();
      recoveryCodes = (await list.getByRole('listitem').allInnerTexts()).map((text) => text.trim());
      assert.equal(recoveryCodes.length, 10);
      assert.match(await page.getByRole('status').first().innerText(), /cannot be shown again|Two-step sign-in is on/);
      await page.getByRole('button', { name: 'Copy codes' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), recoveryCodes.join('\n'));
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download' }).click(),
      ]);
      const saved = fs.readFileSync(await download.path(), 'utf8');
      for (const code of recoveryCodes) assert.ok(saved.includes(code), `the download holds ${code}`);
      await screenshot(page, 'second-factor-recovery-codes');
      await page.getByRole('button', { name: 'I have saved them' }).click();
      await page.getByRole('button', { name: 'Turn off' }).waitFor();
      assert.equal(await list.count(), 0, 'the codes are gone once saved');
      assertCleanPage(ui);
    });

    await t.test('sign-in asks for the code after the password, and the code signs in', async () => {
      assert.ok(phone);
      const second = await signInToSecondStep(browser, server);
      await screenshot(second.page, 'second-factor-sign-in');
      await second.page.getByLabel('Authentication code').fill(await phone.freshCode());
      await second.page.getByRole('button', { name: 'Verify' }).click();
      await second.page.getByLabel('User menu').waitFor();
      assertCleanPage(second);
      await second.context.close();
    });

    await t.test('"Use a recovery code" signs in with one of the saved codes', async () => {
      const second = await signInToSecondStep(browser, server);
      await second.page.getByRole('button', { name: 'Use a recovery code' }).click();
      await second.page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
      await second.page.getByRole('button', { name: 'Verify' }).click();
      await second.page.getByLabel('User menu').waitFor();
      await second.context.close();
    });

    await t.test('turning it off asks for the password; then sign-in needs the password alone', async () => {
      await page.getByRole('button', { name: 'Turn off' }).click();
      const dialog = page.getByRole('dialog', { name: 'Turn off two-step sign-in' });
      await dialog.getByLabel('Password').fill('not the password at all');
      await dialog.getByRole('button', { name: 'Turn off' }).click();
      await dialog.getByText('the password is wrong').waitFor();
      await dialog.getByLabel('Password').fill(password);
      await dialog.getByRole('button', { name: 'Turn off' }).click();
      await page.getByRole('button', { name: 'Set up authenticator app' }).waitFor();
      const again = await openUi(browser, server);
      await signInThroughUi(again.page, email, password);
      await again.context.close();
      assertCleanPage(ui);
    });
  }),
);
